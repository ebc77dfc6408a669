import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// Runs one connected `shelf` command and prints its result as text or, with `--json`, as the raw result line.
struct CommandRunner {
    var client: ShelfClient
    let command: ShelfCommand
    let output: Output
    /// The process's environment: `COLUMNS`, the editor.
    var environment: [String: String] = [:]
    /// Opens another connection like `client`'s: `note ID` holds none while the editor runs (an editing session
    /// may outlast the server's `--idle-timeout`, and would hold one of its `--max-connections`).
    var connect: @Sendable () async throws -> ShelfClient = { throw ClientError.connectionLost("no way to reconnect") }

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
        case .export(let format, let query):
            try await ExportRunner(client: client, query: query, format: format, output: output).run()
        case .importFile(let path, let format, let dryRun):
            let summary = try await ImportRunner(
                client: client, source: path, format: format, dryRun: dryRun, json: command.json, output: output,
                showsProgress: isatty(STDERR_FILENO) == 1
            ).run()
            // Each refused row was reported with its line.
            if summary.refused > 0 { return .failure }
        case .help, .version, .watch, .ui:
            break
        }
        return .success
    }

    /// Makes the change and prints `VERB ROW (revision N)`, or `unchanged ROW (revision N)` when it wrote nothing
    /// (marking a read item read, renaming to the same title): then the list's revision did not move, so a later
    /// `--expect` must not count it. `seenAt` is the list's revision when the item was looked up (nil for a change
    /// that always writes): a change that wrote made the item's revision the result's, past `seenAt`.
    func mutate(_ mutation: Mutation, verb: String, seenAt: Revision?, expectItem: Revision? = nil) async throws {
        let result = try await client.call(.mutate(mutation, expect: command.expect, expectItem: expectItem ?? command.expectItem))
        if printJSON(result) { return }
        let (revision, item) = try ResultDecoding.mutation(result, of: mutation)
        guard let item else { return }
        output.line(line(verb: verb, item: item, revision: revision, seenAt: seenAt))
    }

    func line(verb: String, item: Item, revision: Revision, seenAt: Revision?) -> String {
        let wrote = seenAt.map { item.revision == revision && revision > $0 } ?? true
        return "\(wrote ? verb : "unchanged") \(ItemRow.text(item)) (revision \(revision))"
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
    func resolve(_ text: String) async throws -> Target {
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

    func printJSON(_ result: JSONValue) -> Bool {
        guard command.json else { return false }
        output.line(TerminalText.json(result))
        return true
    }
}
