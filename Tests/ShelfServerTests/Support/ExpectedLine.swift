import Foundation
import ShelfWire
import Testing

/// Reply lines exactly as the server writes them (compact JSON, members in protocol order), so end-to-end tests
/// compare whole lines. Titles passed in must need no JSON escaping (plain ASCII without `"` or `\`).
enum ExpectedLine {
    /// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`; `id` is raw JSON text (`1`, `"x"`, `null`).
    static func result(_ id: String, _ result: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"result":\#(result)}"#
    }

    /// `{"jsonrpc":"2.0","id":ID,"error":{"code","message","data":{"reason",EXTRA}}}`; `extra` is raw JSON members.
    static func error(_ id: String, code: Int, message: String, reason: String, extra: String = "") -> String {
        let data = extra.isEmpty ? #"{"reason":"\#(reason)"}"# : #"{"reason":"\#(reason)",\#(extra)}"#
        return #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":\#(code),"message":"\#(message)","data":\#(data)}}"#
    }

    /// The -32601 reply for `method`; the list of methods is the server's own (`MethodCall.methodNames`).
    static func methodNotFound(_ id: String, _ method: String) -> String {
        let known = MethodCall.methodNames.joined(separator: ", ")
        return error(id, code: -32601, message: #"Method not found: \"\#(method)\" (methods: \#(known))"#, reason: "method_not_found")
    }

    /// The last line of every connection at a shutdown (protocol/PROTOCOL.md §3).
    static let closingShutdown =
        #"{"jsonrpc":"2.0","method":"closing","params":{"reason":"shutdown","message":"Closing: the server is shutting down"}}"#

    /// The `ping` reply.
    static func pong(_ id: String) -> String {
        result(id, #""pong""#)
    }

    /// The reply of `get` and of every mutation but `remove`.
    static func item(_ id: String, revision: Int, item: String) -> String {
        result(id, #"{"revision":\#(revision),"item":\#(item)}"#)
    }

    /// The `list` reply.
    static func list(_ id: String, revision: Int, items: [String]) -> String {
        result(id, #"{"revision":\#(revision),"items":[\#(items.joined(separator: ","))]}"#)
    }

    /// The `hello` reply of a server without a token.
    static func hello(_ id: String, revision: Int, list: UUID = TestServer.listID) -> String {
        result(id, #"{"server":"shelfd","version":"0.1.0","protocol":1,"revision":\#(revision),"auth":"none","run":"\#(TestServer.run.wireString)","list":"\#(list.wireString)","features":["item-details","update","expect-item","list-query","add-origin"]}"#)
    }

    /// An item as JSON. `n` picks the id (`TestServer.id(n)`); `tick` is the clock reading it was added at, which
    /// is also `n` unless some add consumed an id without being saved, or a change to read took a reading;
    /// `readTick` is the reading its `readAt` took (an item marked read has one, protocol/PROTOCOL.md §4).
    static func itemJSON(_ n: Int, _ title: String, read: Bool = false, revision: Int, tick: Int? = nil, readTick: Int? = nil) -> String {
        let readAt = readTick.map { #","readAt":"\#(addedAt($0))""# } ?? ""
        return #"{"id":"\#(wireID(n))","title":"\#(title)","isRead":\#(read),"addedAt":"\#(addedAt(tick ?? n))","revision":\#(revision)\#(readAt)}"#
    }

    /// The lowercase wire form of `TestServer.id(n)`.
    static func wireID(_ n: Int) -> String {
        TestServer.id(n).uuidString.lowercased()
    }

    /// The test clock's `tick`th reading: 2026-01-02T03:04:05.000Z plus `tick - 1` seconds (ticks below a day).
    static func addedAt(_ tick: Int) -> String {
        let seconds = 3 * 3600 + 4 * 60 + 5 + tick - 1
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "2026-01-02T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)).000Z"
    }
}


/// Compares reply lines one by one and records only the first difference (whole lists can be megabytes).
func expectSameLines(_ got: [String], _ want: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    if got.count != want.count {
        Issue.record("got \(got.count) lines, want \(want.count)", sourceLocation: sourceLocation)
    }
    for (index, (line, wanted)) in zip(got, want).enumerated() where line != wanted {
        let same = zip(line.utf8, wanted.utf8).prefix { $0 == $1 }.count
        let from = max(0, same - 60)
        let gotPart = String(decoding: Array(line.utf8).dropFirst(from).prefix(300), as: UTF8.self)
        let wantPart = String(decoding: Array(wanted.utf8).dropFirst(from).prefix(300), as: UTF8.self)
        Issue.record(
            "line \(index + 1) differs from byte \(same): got …\(gotPart), want …\(wantPart)", sourceLocation: sourceLocation)
        return
    }
}
