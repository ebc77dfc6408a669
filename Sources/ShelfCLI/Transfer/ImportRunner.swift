import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// `shelf import`: reads the whole file first (refusing it, before the list is read or any item sent, when it is
/// unreadable, binary or not the format asked for), lists once, plans each row (`ImportPlan`), then sends the adds
/// pipelined — up to `window` in flight on the one connection, in file order — and prints the summary.
struct ImportRunner {
    let client: ShelfClient
    let source: String
    let format: ImportFormat
    let dryRun: Bool
    let json: Bool
    let output: Output
    /// Whether standard error is a terminal: only then is progress shown there.
    let showsProgress: Bool

    /// Requests in flight at once: far below the server's 1024 lines read ahead (protocol/PROTOCOL.md §3), and
    /// enough that the round trip is not what limits the rate.
    static let window = 256

    /// What the import did; the exit status is 1 when a row was refused.
    struct Summary: Equatable {
        var added = 0
        var skipped = 0
        var refused = 0
        var revision: Revision = 0
    }

    func run() async throws -> Summary {
        let records = try format.records(try ImportFormat.text(of: try Self.read(source), source: Self.name(source)))
        let (revision, existing) = try await client.list()
        let plan = ImportPlan(records: records, existing: existing)
        var summary = Summary(revision: revision)
        for case .refuse(let line, let reason) in plan.steps { refuse(line, reason, &summary) }
        if dryRun {
            for step in plan.steps {
                switch step {
                case .add(let line, let candidate): output.line("would add   line \(line): \(Self.describe(candidate))")
                case .skip(let line, let candidate, let reason):
                    output.line("would skip  line \(line): \(Self.describe(candidate)) (\(reason))")
                    summary.skipped += 1
                case .refuse: break
                }
            }
            summary.added = plan.counts.add
            report(summary, dryRun: true)
        } else {
            summary.skipped = plan.counts.skip
            do {
                try await send(plan, into: &summary)
            } catch {
                // How far it got: what was confirmed is in; running the import again adds the rest.
                output.error("shelf: import stopped: added \(summary.added) before the connection failed; run it again to "
                    + "add the rest")
                throw error
            }
            report(summary, dryRun: false)
        }
        if summary.refused > 0, !json {
            let rows = summary.refused == 1 ? "1 row was" : "\(summary.refused) rows were"
            output.error("shelf: \(rows) refused (listed above); the others were \(dryRun ? "checked" : "imported")")
        }
        return summary
    }

    /// The adds, `window` at a time in flight, their replies taken in order.
    private func send(_ plan: ImportPlan, into summary: inout Summary) async throws {
        let keepsOrigin = try await client.hello().features.contains("add-origin")
        var warned = false
        var progress = ImportProgress(total: plan.counts.add, shown: showsProgress)
        var inFlight: [(ticket: ShelfClient.Ticket, line: Int)] = []
        var head = 0
        for case .add(let line, var candidate) in plan.steps {
            if !keepsOrigin, !candidate.details.origin.isEmpty {
                if !warned {
                    output.error("shelf: warning: this server keeps no ids, dates or read states given to add (it lacks "
                        + "add-origin); items are added unread, dated now")
                }
                warned = true
                candidate.details.origin = ItemDetails.Origin()
            }
            if inFlight.count - head >= Self.window {
                try await take(inFlight[head], into: &summary, progress: &progress)
                head += 1
                if head > 4096 {
                    inFlight.removeFirst(head)
                    head = 0
                }
            }
            let ticket = try await client.enqueue(.mutate(.add(title: candidate.title, details: candidate.details), expect: nil))
            inFlight.append((ticket, line))
        }
        while head < inFlight.count {
            try await take(inFlight[head], into: &summary, progress: &progress)
            head += 1
        }
        progress.finish(output)
    }

    /// Takes one reply: an add, or a row the server refused.
    /// - Throws: the client's error when the connection failed: the rest were not sent or not confirmed.
    private func take(
        _ entry: (ticket: ShelfClient.Ticket, line: Int), into summary: inout Summary, progress: inout ImportProgress
    ) async throws(ClientError) {
        do throws(ClientError) {
            let result = try await client.reply(to: entry.ticket)
            guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64 else {
                throw ClientError.protocolViolation("add result \(result)")
            }
            summary.added += 1
            summary.revision = max(summary.revision, revision)
        } catch .server(let error) where error.knownCode == .idTaken {
            // Added meanwhile by someone else, with the same id: the same item.
            summary.skipped += 1
        } catch .server(let error) {
            refuse(entry.line, TerminalText.visible(error.message), &summary)
        }
        progress.step(output)
    }

    private func refuse(_ line: Int, _ reason: String, _ summary: inout Summary) {
        output.error("shelf: line \(line): refused: \(reason)")
        summary.refused += 1
    }

    private func report(_ summary: Summary, dryRun: Bool) {
        if json {
            let object = JSONObject([
                ("added", .number(JSONNumber(summary.added))), ("skipped", .number(JSONNumber(summary.skipped))),
                ("refused", .number(JSONNumber(summary.refused))), ("revision", .number(JSONNumber(summary.revision))),
                ("dryRun", .bool(dryRun)),
            ])
            output.line(String(decoding: JSONWriter.encode(.object(object)), as: UTF8.self))
        } else if dryRun {
            output.line("would add \(summary.added), skip \(summary.skipped) already present, refuse \(summary.refused); nothing was changed (revision \(summary.revision))")
        } else {
            output.line("added \(summary.added), skipped \(summary.skipped) already present, refused \(summary.refused) (revision \(summary.revision))")
        }
    }

    /// A row for people: `Title — Author`, control characters made visible.
    static func describe(_ candidate: ImportCandidate) -> String {
        TerminalText.visible(candidate.title) + (candidate.details.author.map { " — " + TerminalText.visible($0) } ?? "")
    }

    /// The file's bytes; `-` is standard input.
    /// - Throws: `ImportFailure` naming the file and why it cannot be read.
    static func read(_ source: String) throws(ImportFailure) -> [UInt8] {
        if source == "-" { return [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
            throw ImportFailure("cannot read \(source): no such file")
        }
        if isDirectory.boolValue { throw ImportFailure("cannot read \(source): it is a directory") }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        } catch {
            throw ImportFailure("cannot read \(source): \((error as NSError).localizedDescription)")
        }
    }

    static func name(_ source: String) -> String { source == "-" ? "standard input" : source }
}
