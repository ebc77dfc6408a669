import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire
import Testing

/// `MethodResult.appendResponse` writes the same bytes as encoding the response's `JSONValue`.
struct MethodResultResponseTests {
    static let item = Item(
        id: UUID(uuidString: "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9") ?? UUID(),
        title: "Ti\"tle \\ with\nescapes é", isRead: true, addedAt: Date(timeIntervalSince1970: 1_700_000_000.123),
        revision: 42)

    static let plainItem = Item(
        id: UUID(uuidString: "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9") ?? UUID(), title: "Dune", isRead: false,
        addedAt: Date(timeIntervalSince1970: 1_700_000_000.5), revision: 18_446_744_073_709_551_615)

    static let results: [MethodResult] = [
        .item(revision: 42, item: item),
        .item(revision: 18_446_744_073_709_551_615, item: plainItem),
        .removed(revision: 7, id: item.id),
        .revision(3),
        .pong,
        .empty,
        .hello(revision: 9, authRequired: true, run: item.id, list: item.id),
    ]

    /// Number ids up to 40 characters take the stack-buffer path; longer ones, strings and null do not.
    static let ids: [RequestID] = [
        .number(JSONNumber(1)), .string("a\"b"), .null,
        .number(JSONNumber(text: "-0") ?? JSONNumber(0)),
        .number(JSONNumber(text: String(repeating: "9", count: 40)) ?? JSONNumber(0)),
        .number(JSONNumber(text: String(repeating: "9", count: 41)) ?? JSONNumber(0)),
    ]

    @Test(arguments: results, ids)
    func sameBytesAsTheJSONValue(result: MethodResult, id: RequestID) {
        var direct: [UInt8] = []
        result.appendResponse(id: id, to: &direct)
        let viaValue = JSONWriter.encode(RPCResponse(id: id, outcome: .success(result.json)).json)
        #expect(String(decoding: direct, as: UTF8.self) == String(decoding: viaValue, as: UTF8.self))
    }
}
