import ShelfClient
import ShelfCommandLine
import ShelfJSON
import ShelfSockets
import ShelfWire
import Testing

@testable import ShelfCLI

/// `ErrorReport`: what `shelf` says of an error, as text or one JSON line, and its exit status.
@Suite struct ErrorReportTests {
    private static func command(_ arguments: [String]) throws -> ShelfCommand {
        try ShelfCommand.parse(arguments, environment: [:])
    }

    private static func conflict(revision: Int, itemRevision: Int?) -> ClientError {
        var extra: [(String, JSONValue)] = [("revision", .number(JSONNumber(revision)))]
        if let itemRevision { extra.append(("itemRevision", .number(JSONNumber(itemRevision)))) }
        return .server(RPCError(.conflict, "The item changed", extra: extra))
    }

    @Test("a conflict from --expect-item exits 75, says the item's revision, and carries the server's data as JSON")
    func expectItemConflict() throws {
        let report = ErrorReport(Self.conflict(revision: 9, itemRevision: 8), command: try Self.command(["--expect-item", "3", "read", "3fa2"]))
        #expect(report.exit == .temporaryFailure)
        #expect(report.exit.rawValue == 75)
        #expect(report.message == "nothing was changed: the item is at revision 8, not 3 (--expect-item): it changed since; "
            + "look again (shelf show ID), then retry with --expect-item 8 if it still applies")
        #expect(report.jsonLine == #"{"code":3,"reason":"conflict","message":"\#(report.message)","data":{"reason":"conflict","revision":9,"itemRevision":8}}"#)
    }

    @Test("a conflict from --expect exits 75 too, with the list's revision")
    func expectConflict() throws {
        let report = ErrorReport(Self.conflict(revision: 9, itemRevision: nil), command: try Self.command(["--expect", "3", "rm", "3fa2"]))
        #expect(report.exit == .temporaryFailure)
        #expect(report.message.hasPrefix("nothing was changed: the list is at revision 9, not 3 (--expect)"))
    }

    @Test("an error found by shelf has a null code and a reason of its own; other server errors exit 1 with theirs")
    func localErrors() throws {
        let list = try Self.command(["read", "3fa2"])
        let missing = ErrorReport(IDPrefix.Failure.noMatch("3fa2"), command: list)
        #expect(missing.exit == .failure)
        #expect(missing.jsonLine == #"{"code":null,"reason":"not_found","message":"no item has an id starting with 3fa2","data":{}}"#)
        let ambiguous = ErrorReport(IDPrefix.Failure.ambiguous("3fa2", candidates: ["3fa2b1c4 [ ] Dune"]), command: list)
        #expect(ambiguous.jsonLine.hasSuffix(#""data":{"candidates":["3fa2b1c4 [ ] Dune"]}}"#))
        #expect(ErrorReport(IDPrefix.Failure.malformed("zz"), command: list).exit == .usage)
        let unreachable = ErrorReport(ClientError.cannotConnect(HostPort(host: "127.0.0.1", port: 1), .closed), command: list)
        #expect(unreachable.exit == .unavailable)
        #expect(unreachable.reason == "cannot_connect")
        let invalid = ErrorReport(ClientError.server(RPCError(.invalidURL, "URL must be absolute")), command: list)
        #expect(invalid.exit == .failure)
        #expect(invalid.jsonLine == #"{"code":9,"reason":"invalid_url","message":"URL must be absolute","data":{"reason":"invalid_url"}}"#)
        let usage = ErrorReport(usage: UsageError("no command given"), pointer: "run 'shelf help'")
        #expect(usage.jsonLine == #"{"code":null,"reason":"usage","message":"no command given","data":{}}"#)
    }
}
