import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// Runs one connected `shelf` command and prints its result as text or, with `--json`, as the raw result line.
struct CommandRunner {
    let client: ShelfClient
    let command: ShelfCommand
    let output: Output
    /// The process's environment: `COLUMNS`, the editor.
    var environment: [String: String] = [:]

    /// Runs the command.
    /// - Returns: `success`, or for a change to several items the status of the first that failed (each failure
    ///   already said).
    /// - Throws: what stops the whole command.
    func run() async throws -> ExitCode {
        switch command.action {
        case .add(let title, let details):
            try await add(title: title, details: details)
        case .list(let query):
            let result = try await client.call(.list(query))
            if printJSON(result) { return .success }
            let (revision, items) = try ResultDecoding.list(result)
            let width = TerminalWidth.current(environment: environment)
            for item in items { output.line(ItemRow.text(item, width: width)) }
            let more = result.objectValue?["next"].map { $0 != .null } ?? false
            output.line(ItemRow.summary(items, revision: revision, query: query, more: more))
        case .setRead(let ids, let isRead):
            return try await changeEach(ids, verb: isRead ? "read" : "unread", writesAlways: false) {
                .setRead(id: $0, isRead: isRead)
            }
        case .toggle(let ids):
            return try await changeEach(ids, verb: "toggled", writesAlways: true) { .toggle(id: $0) }
        case .remove(let ids):
            return try await changeEach(ids, verb: "removed", writesAlways: true) { .remove(id: $0) }
        case .rename(let id, let title):
            let target = try await resolve(id)
            try await mutate(.rename(id: target.id, title: title), verb: "renamed", seenAt: target.revision)
        case .edit(let id, let edit):
            let target = try await resolve(id)
            try await mutate(.update(id: target.id, edit), verb: "updated", seenAt: target.revision)
        case .editNote(let id):
            try await editNote(id)
        case .show(let id):
            let target = try await resolve(id)
            let result = try await client.call(.get(target.id))
            if printJSON(result) { return .success }
            let (revision, item) = try ResultDecoding.item(result)
            for line in ItemRow.details(item, listRevision: revision) { output.line(line) }
        case .info:
            let result = try await client.call(.hello)
            if printJSON(result) { return .success }
            let hello = try ResultDecoding.hello(result)
            output.line("\(hello.server) \(hello.version) at \(command.server) (protocol \(hello.protocolVersion), revision \(hello.revision))")
        case .ping:
            let result = try await client.call(.ping)
            if printJSON(result) { return .success }
            output.line("pong")
        case .help, .version, .watch:
            break
        }
        return .success
    }

    /// Makes the change and prints `VERB ROW (revision N)`, or `unchanged ROW (revision N)` when it wrote nothing
    /// (marking a read item read, renaming to the same title): then the list's revision did not move, so a later
    /// `--expect` must not count it. `seenAt` is the list's revision when the item was looked up (nil for a change
    /// that always writes): a change that wrote made the item's revision the result's, past `seenAt`.
    private func mutate(_ mutation: Mutation, verb: String, seenAt: Revision?, expectItem: Revision? = nil) async throws {
        let result = try await client.call(.mutate(mutation, expect: command.expect, expectItem: expectItem ?? command.expectItem))
        if printJSON(result) { return }
        let (revision, item) = try ResultDecoding.mutation(result, of: mutation)
        guard let item else { return }
        output.line(line(verb: verb, item: item, revision: revision, seenAt: seenAt))
    }

    private func line(verb: String, item: Item, revision: Revision, seenAt: Revision?) -> String {
        let wrote = seenAt.map { item.revision == revision && revision > $0 } ?? true
        return "\(wrote ? verb : "unchanged") \(ItemRow.text(item)) (revision \(revision))"
    }

    /// `read`, `unread`, `toggle` or `rm` of each id in `ids`: each its own change, all sent at once (pipelined),
    /// each reported in the order given — its line on standard output, or its error on standard error. An id that
    /// cannot be one stops the command before anything is sent.
    private func changeEach(
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

    /// `add`, sent together with a search for the items it repeats (same title, and author when given;
    /// `ItemMatching`), so that it costs one round trip: those are named in a note on stderr (not with `--json`),
    /// and it is added anyway — a list may hold an item twice.
    private func add(title: String, details: ItemDetails) async throws {
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

    /// `note ID` with no text: the note in the editor, then one `update` made only if the item is still as it was
    /// read (`expectItem`), so an edit made meanwhile elsewhere is not overwritten.
    private func editNote(_ id: String) async throws {
        let target = try await resolve(id)
        let (listRevision, item) = try await client.get(target.id)
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
                try await mutate(
                    .update(id: item.id, ItemEdit(note: .set(note))), verb: "updated", seenAt: listRevision,
                    expectItem: command.expectItem ?? item.revision)
            } catch {
                // What was typed is not lost with the change: it stays in the file, and the user is told where.
                if !command.json { output.error("shelf: the note you wrote is kept in \(edited.path)") }
                throw error
            }
            ExternalEditor.discard(edited)
        }
    }

    /// An item a command names, as it was looked up.
    struct Target {
        let id: UUID
        let title: String?
        /// The list's revision when it was read.
        let revision: Revision
    }

    /// A full id is looked up with `get`, a prefix in the current list: either way an id no item has gets the same
    /// message, and `rm` can name what it removed.
    private func resolve(_ text: String) async throws -> Target {
        if let id = IDPrefix.fullID(text) {
            do {
                let (revision, item) = try await client.get(id)
                return Target(id: item.id, title: item.title, revision: revision)
            } catch .server(let error) where error.knownCode == .notFound {
                throw IDPrefix.Failure.noItem(text)
            }
        }
        _ = try IDPrefix.digits(text)
        let (revision, items) = try await client.list()
        let item = try IDPrefix.resolve(text, in: items)
        return Target(id: item.id, title: item.title, revision: revision)
    }

    private func printJSON(_ result: JSONValue) -> Bool {
        guard command.json else { return false }
        output.line(TerminalText.json(result))
        return true
    }
}
