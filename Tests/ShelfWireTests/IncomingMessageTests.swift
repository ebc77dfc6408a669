import ShelfJSON
import Testing
@testable import ShelfWire

/// `IncomingMessage.decode` and `decodeCall`: which error a line that is not a good call gets, and with which id
/// (protocol/PROTOCOL.md §2, §7, §8).
@Suite struct IncomingMessageTests {
    /// The code and id a line is answered with, whichever decoding path takes it.
    private static func answers(_ line: String) -> [(code: Int?, id: RequestID?)] {
        let bytes = Array(line.utf8)
        let general = IncomingMessage.decode(line: bytes)
        #expect(IncomingMessage.decodeCall(line: bytes) == general || isSameCall(bytes), "both paths agree on \(line)")
        let elements: [IncomingMessage.IncomingRequest]
        switch general {
        case .single(let element): elements = [element]
        case .batch(let all): elements = all
        }
        return elements.map { element in
            switch element {
            case .invalid(let error, let id): (error.code, id)
            case .request(let request):
                switch MethodCall.decode(request) {
                case .success: (nil, request.id)
                case .failure(let error): (error.code, request.id)
                }
            case .call(let id, _): (nil, id)
            }
        }
    }

    /// True when the fast path typed the line into the call the general path decodes it to.
    private static func isSameCall(_ bytes: [UInt8]) -> Bool {
        guard case .single(.call(let id, let call)) = IncomingMessage.decodeCall(line: bytes),
              case .single(.request(let request)) = IncomingMessage.decode(line: bytes)
        else { return false }
        return request.id == id && MethodCall.decode(request) == .success(call)
    }

    @Test("an unknown method with params that are not an object is -32601, not -32602: the method is checked first",
          arguments: [
              #"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
              #"{"id":1,"method":"subtract","params":null}"#,
              #"{"id":1,"method":"subtract","params":"x"}"#,
          ])
    func unknownMethodBeforeParams(line: String) {
        let answer = Self.answers(line)
        #expect(answer.count == 1)
        #expect(answer.first?.code == RPCErrorCode.methodNotFound.rawValue)
        #expect(answer.first?.id == .number(JSONNumber(1)))
    }

    @Test("a known method with params that are not an object is still -32602")
    func knownMethodBadParams() {
        let answer = Self.answers(#"{"jsonrpc":"2.0","method":"add","params":[42,23],"id":1}"#)
        #expect(answer.first?.code == RPCErrorCode.invalidParams.rawValue)
    }

    @Test("in a batch, and as a notification, the unknown method wins too (the notification is not answered)")
    func unknownMethodInBatchAndNotification() {
        let batch = Self.answers(#"[{"method":"subtract","params":[42,23],"id":1},{"method":"subtract","params":[1]}]"#)
        #expect(batch.map(\.code) == [RPCErrorCode.methodNotFound.rawValue, RPCErrorCode.methodNotFound.rawValue])
        #expect(batch.map(\.id) == [.number(JSONNumber(1)), nil])
    }

    @Test("an unpaired surrogate escape after the id is -32700 with that id: the exact line Python's json module sends")
    func unpairedSurrogateKeepsTheID() {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"add","params":{"title":"x\ud800y"}}"#
        let error = RPCError(.parseError, "Parse error: unpaired UTF-16 surrogate escape in string at byte 59")
        #expect(IncomingMessage.decode(line: Array(line.utf8)) == .single(.invalid(error, id: .number(JSONNumber(1)))))
        #expect(IncomingMessage.decodeCall(line: Array(line.utf8)) == .single(.invalid(error, id: .number(JSONNumber(1)))))
    }

    @Test("a lone low surrogate, and a high one followed by another escape, keep a string id too")
    func otherUnpairedSurrogates() {
        for line in [#"{"id":"a","method":"add","params":{"title":"\udc00"}}"#, #"{"id":"a","method":"add","params":{"title":"\ud800\u0041"}}"#] {
            #expect(Self.answers(line).map(\.id) == [.string("a")], "\(line)")
        }
    }

    @Test("-32700 stays id null when the id was not read before the error, or the error is not a surrogate",
          arguments: [
              #"{"method":"add","params":{"title":"x\ud800y"},"id":1}"#,
              #"{"method":"add","params":{"title":"x\ud800y"}}"#,
              #"{"id":"\ud800","method":"ping"}"#,
              #"{"id":true,"method":"add","params":{"title":"x\ud800y"}}"#,
              #"{"id":1,"method":"ping",}"#,
              #"{"id":1,"method":"add","params":{"title":"x\uZZZZ"}}"#,
              #"[{"id":1,"method":"add","params":{"title":"x\ud800y"}}]"#,
              #"{"params":{"id":1,"title":"x\ud800y"},"method":"add"}"#,
          ])
    func parseErrorWithoutID(line: String) {
        let answer = Self.answers(line)
        #expect(answer.map(\.code) == [RPCErrorCode.parseError.rawValue])
        #expect(answer.map(\.id) == [.null])
    }

    @Test("with the id given twice before the bad string, the last one read is echoed, as duplicate members resolve")
    func lastIDBeforeTheSurrogate() {
        let answer = Self.answers(#"{"id":1,"id":"two","method":"add","params":{"title":"x\ud800y"},"id":3}"#)
        #expect(answer.map(\.id) == [.string("two")])
    }
}
