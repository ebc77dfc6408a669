import Foundation
import ShelfCore
import ShelfJSON
import Testing
@testable import ShelfWire

/// `PlainCallLine` must give exactly the id and call the general path (`IncomingMessage.decodeTree`, then
/// `MethodCall.decode`) gives for every line it takes, and leave every other line, errors included, to it.
@Suite struct PlainCallLineTests {
    static let uuid = "3fa2b1c4-0000-4000-8000-00000000000a"

    static let takenLines = [
        #"{"jsonrpc":"2.0","id":1,"method":"add","params":{"title":"Dune"}}"#,
        #"{"method":"add","params":{"title":"  "}}"#,
        #"{"id":"a-1","method":"ping"}"#,
        #"{"id":null,"method":"hello","params":{}}"#,
        #"{"params":{"id":"\#(uuid)","read":true,"expect":12},"method":"mark","id":-0}"#,
        #"{"id":2,"method":"mark","params":{"read":false,"id":"3FA2B1C4-0000-4000-8000-00000000000A","expect":null}}"#,
        #" { "jsonrpc" : "2.0" , "id" : 18446744073709551616 , "method" : "rename" , "params" : { "id" : "\#(uuid)" , "title" : "x" } } "#,
        #"{"id":3,"method":"toggle","params":{"id":"\#(uuid)","expect":18446744073709551615}}"#,
        #"{"id":4,"method":"remove","params":{"id":"\#(uuid)","expect":0}}"#,
        #"{"id":5,"method":"get","params":{"id":"\#(uuid)"}}"#,
    ]

    static let otherLines = [
        // Outside the JSON subset.
        #"{"id":1,"method":"add","params":{"title":"Café"}}"#,
        #"{"id":1,"method":"add","params":{"title":"a\"b"}}"#,
        #"{"id":1.5,"method":"ping"}"#,
        #"{"id":true,"method":"ping"}"#,
        #"{"id":1,"id":2,"method":"ping"}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        "{\"id\":1,\"method\":\"ping\"}\r",
        // Methods the fast path leaves to the general one.
        #"{"id":1,"method":"list"}"#,
        #"{"id":1,"method":"watch","params":{"since":3}}"#,
        #"{"id":1,"method":"auth","params":{"token":"t"}}"#,
        #"{"id":1,"method":"nope"}"#,
        #"{"id":1,"method":"ADD","params":{"title":"a"}}"#,
        // Params that are errors for the general path.
        #"{"id":1,"method":"add"}"#,
        #"{"id":1,"method":"add","params":{"titel":"a"}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","title":"b"}}"#,
        #"{"id":1,"method":"add","params":{"title":5}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","expect":-1}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","expect":-0}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","expect":18446744073709551616}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","expect":1.0}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","expect":"1"}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","id":"\#(uuid)"}}"#,
        #"{"id":1,"method":"mark","params":{"id":"\#(uuid)"}}"#,
        #"{"id":1,"method":"mark","params":{"id":"\#(uuid)","read":1}}"#,
        #"{"id":1,"method":"toggle","params":{"id":"3fa2b1c4-0000-4000-8000-00000000000"}}"#,
        #"{"id":1,"method":"toggle","params":{"id":"3fa2b1c4x0000-4000-8000-00000000000a"}}"#,
        #"{"id":1,"method":"get","params":{"id":"\#(uuid)","expect":1}}"#,
        #"{"id":1,"method":"ping","params":{"expect":null}}"#,
        #"{"id":1,"method":"hello","params":{"title":"a"}}"#,
    ]

    /// What the general path makes of `line`: the id and call of a valid single request, else `nil`. By way of the
    /// JSON tree, so that a fault in the scanner the fast paths share cannot hide in both sides.
    static func general(_ line: [UInt8]) -> (id: RequestID?, call: MethodCall)? {
        guard case .single(.request(let request)) = IncomingMessage.decodeTree(line: line),
              case .success(let call) = MethodCall.decode(request)
        else { return nil }
        return (request.id, call)
    }

    static func fast(_ line: [UInt8]) -> (id: RequestID?, call: MethodCall)? {
        line.withUnsafeBufferPointer(PlainCallLine.decode)
    }

    @Test("lines in the subset are typed directly, into the id and call the general path gives", arguments: takenLines)
    func taken(line: String) throws {
        let bytes = Array(line.utf8)
        let typed = try #require(Self.fast(bytes))
        let general = try #require(Self.general(bytes))
        #expect(typed.id == general.id)
        #expect(typed.call == general.call)
        #expect(IncomingMessage.decodeCall(line: bytes) == .single(.call(id: general.id, general.call)))
    }

    @Test("everything else is left to the general path, which decodes it as before", arguments: otherLines)
    func leftToTheGeneralPath(line: String) {
        let bytes = Array(line.utf8)
        #expect(Self.fast(bytes) == nil)
        #expect(IncomingMessage.decodeCall(line: bytes) == IncomingMessage.decode(line: bytes))
    }

    @Test("every one-byte deletion, replacement and insertion of the subset's lines is typed as the general path does")
    func mutations() {
        let replacements: [UInt8] = Array("\"\\{}[],: 0-9aetn.E-fA".utf8) + [0x00, 0x09, 0x0D, 0x7F, 0xC3, 0xFF]
        var checked = 0
        var typedDirectly = 0
        for seed in Self.takenLines.map({ Array($0.utf8) }) {
            for line in OneByteEdits.of(seed, using: replacements) {
                checked += 1
                guard let typed = Self.fast(line) else { continue }
                typedDirectly += 1
                let general = Self.general(line)
                let text = String(decoding: line, as: UTF8.self)
                #expect(general?.id == typed.id, "\(text)")
                #expect(general?.call == typed.call, "\(text)")
            }
        }
        // Both kinds occur, so the comparison above is not vacuous.
        #expect(checked > 20_000)
        #expect(typedDirectly > 1_000)
        #expect(typedDirectly < checked / 2)
    }

    @Test("a typed call's method name is the one its request carries (the auth check reads it)")
    func methodNames() throws {
        let id = try #require(UUID(uuidString: Self.uuid))
        let calls: [MethodCall] = [
            .hello, .ping, .list(.all), .get(id), .watch(since: nil), .unwatch, .auth(token: "t"),
            .mutate(.add(title: "a"), expect: nil), .mutate(.setRead(id: id, isRead: true), expect: 1),
            .mutate(.toggle(id: id), expect: nil), .mutate(.rename(id: id, title: "b"), expect: nil),
            .mutate(.remove(id: id), expect: nil), .mutate(.update(id: id, ItemEdit(title: "c")), expect: nil, expectItem: 2),
        ]
        #expect(calls.map(\.methodName) == calls.map(\.request.method))
        #expect(Set(calls.map(\.methodName)) == Set(MethodCall.methodNames))
    }

    @Test("`expect` written -0 is revision 0 (protocol/PROTOCOL.md §5), decided by the general path")
    func minusZeroExpect() throws {
        let line = Array(#"{"id":1,"method":"add","params":{"title":"a","expect":-0}}"#.utf8)
        #expect(Self.fast(line) == nil)
        let general = try #require(Self.general(line))
        #expect(general.call == .mutate(.add(title: "a"), expect: 0))
    }
}
