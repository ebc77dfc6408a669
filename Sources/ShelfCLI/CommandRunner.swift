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
            try await mutate(.add(title: title), verb: "added")
        case .list(let filter):
            let result = try await client.call(.list(filter))
            if printJSON(result) { return }
            let (revision, items) = try ResultDecoding.list(result)
            for item in items { output.line(ItemRow.text(item)) }
            output.line(ItemRow.summary(items, revision: revision))
        case .setRead(let id, let isRead):
            try await mutate(.setRead(id: try await resolve(id).id, isRead: isRead), verb: isRead ? "read" : "unread")
        case .toggle(let id):
            try await mutate(.toggle(id: try await resolve(id).id), verb: "toggled")
        case .rename(let id, let title):
            try await mutate(.rename(id: try await resolve(id).id, title: title), verb: "renamed")
        case .remove(let id):
            let target = try await resolve(id)
            let result = try await client.call(.mutate(.remove(id: target.id), expect: command.expect))
            if printJSON(result) { return }
            output.line("removed \(target.title.map { "\(String(target.id.wireString.prefix(8))) \(TerminalText.visible($0))" } ?? target.id.wireString)")
        case .show(let id):
            let target = try await resolve(id)
            let result = try await client.call(.get(target.id))
            if printJSON(result) { return }
            for line in ItemRow.details(try ResultDecoding.item(result).item) { output.line(line) }
        case .info:
            let result = try await client.call(.hello)
            if printJSON(result) { return }
            let hello = try ResultDecoding.hello(result)
            output.line("\(hello.server) \(hello.version) at \(command.server) (protocol \(hello.protocolVersion), revision \(hello.revision))")
        case .ping:
            let result = try await client.call(.ping)
            if printJSON(result) { return }
            output.line("pong")
        case .help, .version, .watch:
            break
        }
    }

    private func mutate(_ mutation: Mutation, verb: String) async throws {
        let result = try await client.call(.mutate(mutation, expect: command.expect))
        if printJSON(result) { return }
        if let item = try ResultDecoding.mutation(result, of: mutation).item {
            output.line("\(verb) \(ItemRow.text(item))")
        }
    }

    /// A full id is looked up with `get`, a prefix in the current list: either way an id no item has gets the same
    /// message, and `rm` can name what it removed.
    private func resolve(_ text: String) async throws -> (id: UUID, title: String?) {
        if let id = IDPrefix.fullID(text) {
            do {
                let item = try await client.get(id).item
                return (item.id, item.title)
            } catch .server(let error) where error.knownCode == .notFound {
                throw IDPrefix.Failure.noItem(text)
            }
        }
        _ = try IDPrefix.digits(text)
        let item = try IDPrefix.resolve(text, in: try await client.list().items)
        return (item.id, item.title)
    }

    private func printJSON(_ result: JSONValue) -> Bool {
        guard command.json else { return false }
        output.line(TerminalText.json(result))
        return true
    }
}
