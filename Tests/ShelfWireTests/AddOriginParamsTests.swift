import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire
import Testing

/// `add`'s `id`, `addedAt`, `isRead` and `readAt` params (protocol/PROTOCOL.md §5, "Adding an item as it was").
struct AddOriginParamsTests {
    private func decode(_ params: JSONObject) -> Result<MethodCall, RPCError> {
        MethodCall.decode(RPCRequest(id: .number(JSONNumber(1)), method: "add", params: params))
    }

    @Test("the four params decode into the add's origin, and a call encodes back to the same params")
    func roundTrip() throws {
        let params = JSONObject([
            ("title", .string("Dune")), ("id", .string("7D3C9A10-1111-4222-8333-444455556666")),
            ("addedAt", .string("2020-05-06T07:08:09.010Z")), ("isRead", .bool(true)),
            ("readAt", .string("2021-01-02T03:04:05.678+00:00")),
        ])
        let call = try decode(params).get()
        guard case .mutate(.add(let title, let details), nil, nil) = call else {
            Issue.record("not an add: \(call)")
            return
        }
        #expect(title == "Dune")
        #expect(details.origin.id?.wireString == "7d3c9a10-1111-4222-8333-444455556666")
        #expect(details.origin.addedAt.map(Timestamp.format) == "2020-05-06T07:08:09.010Z")
        #expect(details.origin.isRead == true)
        #expect(details.origin.readAt.map(Timestamp.format) == "2021-01-02T03:04:05.678Z")
        let encoded = call.request.params
        #expect(try decode(encoded).get() == call)
        #expect(encoded["id"] == .string("7d3c9a10-1111-4222-8333-444455556666"))
    }

    @Test("a malformed id or time, a non-boolean isRead and readAt with isRead false are invalid params", arguments: [
        ("id", JSONValue.string("nope"), "param \"id\" must be a UUID"),
        ("addedAt", .string("2020-05-06"), "param \"addedAt\" must be an RFC 3339 time"),
        ("readAt", .number(JSONNumber(3)), "param \"readAt\" must be a string, or null"),
        ("isRead", .string("yes"), "param \"isRead\" must be true or false"),
    ])
    func refused(name: String, value: JSONValue, message: String) {
        let result = decode(JSONObject([("title", .string("T")), (name, value)]))
        guard case .failure(let error) = result else {
            Issue.record("accepted \(name): \(value)")
            return
        }
        #expect(error.knownCode == .invalidParams)
        #expect(error.message.contains(message))
    }

    @Test("readAt with isRead false is refused")
    func readAtWithUnread() {
        let result = decode(JSONObject([("title", .string("T")), ("isRead", .bool(false)), ("readAt", .string("2021-01-02T03:04:05.678Z"))]))
        guard case .failure(let error) = result else {
            Issue.record("accepted")
            return
        }
        #expect(error.message.contains("readAt"))
    }

    @Test("a taken id is error 12 id_taken carrying the id")
    func idTakenError() {
        let id = UUID(uuidString: "7d3c9a10-1111-4222-8333-444455556666") ?? UUID()
        let error = RPCError(ReadingListError.idTaken(id))
        #expect(error.code == 12)
        #expect(error.reason == "id_taken")
        #expect(error.data["id"] == .string("7d3c9a10-1111-4222-8333-444455556666"))
    }
}
