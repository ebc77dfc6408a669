import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// The changes that take more than one call: `add` with its search for repeats, a change to several ids, and a
/// note edited in the editor.
extension CommandRunner {
    /// `add`, sent together with a search for the items it repeats (same title, and author when given;
    /// `ItemMatching`), so that it costs one round trip: those are named in a note on stderr (not with `--json`),
    /// and it is added anyway — a list may hold an item twice.
    func add(title: String, details: ItemDetails) async throws {
        let mutation = Mutation.add(title: title, details: details)
        let change = MethodCall.mutate(mutation, expect: command.expect)
        guard !command.json, let word = ItemMatching.searchWord(title) else {
            try await mutate(mutation, verb: "added", seenAt: nil)
            return
        }
        let replies = await client.pipelined([.list(ItemQuery(text: word)), change])
        let result: JSONValue
        switch replies[1] {
        case .success(let value): result = value
        // The add was sent, whichever of the two calls timed out first: the message must say it may have been made.
        case .failure(.noReply(let address, let limit, _)): throw ClientError.noReply(address, limit, method: "add")
        case .failure(let error): throw error
        }
        // The search is a courtesy: a reply that cannot be read names no item, and the add stands.
        if let candidates = try? ResultDecoding.list(try replies[0].get()).items {
            let repeated = ItemMatching.duplicates(title: title, author: details.author, in: candidates)
            if !repeated.isEmpty {
                let named = repeated.prefix(3).map(ItemRow.text).joined(separator: "; ")
                let others = repeated.count > 3 ? " and \(repeated.count - 3) more" : ""
                output.error("shelf: note: already on the list: \(named)\(others); adding it again")
            }
        }
        let (revision, item) = try ResultDecoding.mutation(result, of: mutation)
        guard let item else { return }
        output.line(line(verb: "added", item: item, revision: revision, seenAt: nil))
    }

    /// `read`, `unread`, `toggle` or `rm` of each id in `ids`: each its own change, all sent at once (pipelined),
    /// each reported in the order given — its line on standard output, or its error on standard error. An id that
    /// cannot be one stops the command before anything is sent.
    func changeEach(
        _ ids: [String], verb: String, writesAlways: Bool, _ mutation: (UUID) -> Mutation
    ) async throws -> ExitCode {
        for id in ids where IDPrefix.fullID(id) == nil { _ = try IDPrefix.digits(id) }
        var targets: [Result<Target, any Error>] = []
        if ids.count == 1 {
            targets = [.success(try await resolve(ids[0]))]
        } else {
            let (revision, items) = try await client.list()
            targets = ids.map { text in
                Result { () throws(IDPrefix.Failure) -> Target in
                    let item: Item
                    if let id = IDPrefix.fullID(text) {
                        guard let found = items.first(where: { $0.id == id }) else { throw .noItem(text) }
                        item = found
                    } else {
                        item = try IDPrefix.resolve(text, in: items)
                    }
                    return Target(id: item.id, title: item.title, revision: revision)
                }.mapError { $0 as any Error }
            }
        }
        let sent = targets.compactMap { try? $0.get() }
        let calls = sent.map { MethodCall.mutate(mutation($0.id), expect: command.expect, expectItem: command.expectItem) }
        var results = await client.pipelined(calls)[...]
        var status = ExitCode.success
        for target in targets {
            do {
                let target = try target.get()
                let result = try results.popFirst()?.get() ?? .null
                if printJSON(result) { continue }
                let change = mutation(target.id)
                let (revision, item) = try ResultDecoding.mutation(result, of: change)
                if let item {
                    output.line(line(verb: verb, item: item, revision: revision, seenAt: writesAlways ? nil : target.revision))
                } else {
                    let what = target.title.map { "\(String(target.id.wireString.prefix(8))) \(TerminalText.visible($0))" } ?? target.id.wireString
                    output.line("\(verb) \(what) (revision \(revision))")
                }
            } catch {
                let report = ErrorReport(error, command: command)
                report.print(to: output, json: command.json)
                if status == .success { status = report.exit }
            }
        }
        return status
    }

    /// `note ID` with no text: the note in the editor, then one `update` made only if the item is still as it was
    /// read (`expectItem`), so an edit made meanwhile elsewhere is not overwritten. No connection is held while the
    /// editor runs: the update goes on a new one (`connect`).
    func editNote(_ id: String) async throws {
        let target = try await resolve(id)
        let (listRevision, item) = try await client.get(target.id)
        await client.close()
        let edited = try ExternalEditor.edit(
            item.note ?? "", editor: ExternalEditor.command(environment: environment), environment: environment)
        switch ItemMatching.note(old: item.note, edited: edited.text) {
        case .unchanged:
            ExternalEditor.discard(edited)
            output.line("unchanged \(ItemRow.text(item)) (revision \(listRevision)): the note is as it was")
        case .empty:
            ExternalEditor.discard(edited)
            output.line("unchanged \(ItemRow.text(item)) (revision \(listRevision)): the note was left empty (shelf edit ID --no-note removes it)")
        case .changed(let note):
            do {
                // The editor may itself have run `shelf` (as a script might): on a server with few connections, the
                // one it closed a moment ago may still count, so a full server is tried again a few times.
                var attempt = 0
                while true {
                    attempt += 1
                    var again = self
                    again.client = try await connect()
                    do {
                        try await again.mutate(
                            .update(id: item.id, ItemEdit(note: .set(note))), verb: "updated", seenAt: listRevision,
                            expectItem: command.expectItem ?? item.revision)
                        await again.client.close()
                        break
                    } catch ClientError.server(let rpc) where rpc.knownCode == .tooManyConnections && attempt < 5 {
                        await again.client.close()
                        try? await Task.sleep(for: .milliseconds(100 * attempt))
                    } catch {
                        await again.client.close()
                        throw error
                    }
                }
            } catch {
                // What was typed is not lost with the change: it stays in the file, and the user is told where.
                if !command.json { output.error("shelf: the note you wrote is kept in \(edited.path)") }
                throw error
            }
            ExternalEditor.discard(edited)
        }
    }
}
