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

    func run() async throws {
        switch command.action {
        case .add(let title):
            try await mutate(.add(title: title), verb: "added", seenAt: nil)
        case .list(let filter):
            let result = try await client.call(.list(ItemQuery(filter: filter)))
            if printJSON(result) { return }
            let (revision, items) = try ResultDecoding.list(result)
            for item in items { output.line(ItemRow.text(item)) }
            output.line(ItemRow.summary(items, revision: revision, filter: filter))
        case .setRead(let id, let isRead):
            let target = try await resolve(id)
            try await mutate(.setRead(id: target.id, isRead: isRead), verb: isRead ? "read" : "unread", seenAt: target.revision)
        case .toggle(let id):
            try await mutate(.toggle(id: try await resolve(id).id), verb: "toggled", seenAt: nil)
        case .rename(let id, let title):
            let target = try await resolve(id)
            try await mutate(.rename(id: target.id, title: title), verb: "renamed", seenAt: target.revision)
        case .remove(let id):
            let target = try await resolve(id)
            let result = try await client.call(.mutate(.remove(id: target.id), expect: command.expect))
            if printJSON(result) { return }
            let revision = try ResultDecoding.mutation(result, of: .remove(id: target.id)).revision
            let what = target.title.map { "\(String(target.id.wireString.prefix(8))) \(TerminalText.visible($0))" } ?? target.id.wireString
            output.line("removed \(what) (revision \(revision))")
        case .show(let id):
            let target = try await resolve(id)
            let result = try await client.call(.get(target.id))
            if printJSON(result) { return }
            let (revision, item) = try ResultDecoding.item(result)
            for line in ItemRow.details(item, listRevision: revision) { output.line(line) }
        case .info:
            let result = try await client.call(.hello)
            if printJSON(result) { return }
            let hello = try ResultDecoding.hello(result)
            output.line("\(hello.server) \(hello.version) at \(command.server) (protocol \(hello.protocolVersion), revision \(hello.revision))")
        case .ping:
            let result = try await client.call(.ping)
            if printJSON(result) { return }
            output.line("pong")
        case .help, .version, .watch, .ui:
            break
        }
    }

    /// Makes the change and prints `VERB ROW (revision N)`, or `unchanged ROW (revision N)` when it wrote nothing
    /// (marking a read item read, renaming to the same title): then the list's revision did not move, so a later
    /// `--expect` must not count it. `seenAt` is the list's revision when the item was looked up (nil for a change
    /// that always writes): a change that wrote made the item's revision the result's, past `seenAt`.
    private func mutate(_ mutation: Mutation, verb: String, seenAt: Revision?) async throws {
        let result = try await client.call(.mutate(mutation, expect: command.expect))
        if printJSON(result) { return }
        let (revision, item) = try ResultDecoding.mutation(result, of: mutation)
        guard let item else { return }
        let wrote = seenAt.map { item.revision == revision && revision > $0 } ?? true
        output.line("\(wrote ? verb : "unchanged") \(ItemRow.text(item)) (revision \(revision))")
    }

    /// A full id is looked up with `get`, a prefix in the current list: either way an id no item has gets the same
    /// message, and `rm` can name what it removed.
    /// - Returns: the item's id and title, and the list's revision when they were read.
    private func resolve(_ text: String) async throws -> (id: UUID, title: String?, revision: Revision) {
        if let id = IDPrefix.fullID(text) {
            do {
                let (revision, item) = try await client.get(id)
                return (item.id, item.title, revision)
            } catch .server(let error) where error.knownCode == .notFound {
                throw IDPrefix.Failure.noItem(text)
            }
        }
        _ = try IDPrefix.digits(text)
        let (revision, items) = try await client.list()
        let item = try IDPrefix.resolve(text, in: items)
        return (item.id, item.title, revision)
    }

    private func printJSON(_ result: JSONValue) -> Bool {
        guard command.json else { return false }
        output.line(TerminalText.json(result))
        return true
    }
}
