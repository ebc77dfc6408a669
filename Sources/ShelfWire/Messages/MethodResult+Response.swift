import ShelfCore
import ShelfJSON

extension MethodResult {
    /// Appends the whole success response `{"jsonrpc":"2.0","id":…,"result":…}` (JSON-RPC 2.0 §5), the same bytes
    /// as `JSONWriter.append(RPCResponse(id:outcome: .success(json)).json)`, written straight to bytes for the
    /// replies every mutation and `get` send (no `JSONValue` tree is built).
    /// - Parameters:
    ///   - id: the request's id.
    ///   - bytes: the buffer to append to (no LF is added).
    public func appendResponse(id: RequestID, to bytes: inout [UInt8]) {
        if case .item(let revision, let item) = self {
            return Self.appendItemResponse(id: id, revision: revision, item: item, to: &bytes)
        }
        Self.appendResultPrefix(id: id, to: &bytes)
        switch self {
        case .removed(let revision, let id):
            JSONWriter.appendRaw(#"{"revision":"#, to: &bytes)
            JSONWriter.appendInteger(revision, to: &bytes)
            JSONWriter.appendRaw(#","id":""#, to: &bytes)
            id.appendWireText(to: &bytes)
            JSONWriter.appendRaw(#""}"#, to: &bytes)
        default:
            JSONWriter.append(json, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `MethodResult.item(revision:item:).appendResponse(id:to:)`, without making the `MethodResult` (a copy of the
    /// item): the reply every mutation sends.
    public static func appendItemResponse(id: RequestID, revision: Revision, item: Item, to bytes: inout [UInt8]) {
        if appendNumberedItemResponse(id: id, revision: revision, item: item, to: &bytes) { return }
        appendResultPrefix(id: id, to: &bytes)
        JSONWriter.appendRaw(#"{"revision":"#, to: &bytes)
        JSONWriter.appendInteger(revision, to: &bytes)
        JSONWriter.appendRaw(#","item":"#, to: &bytes)
        item.appendJSON(to: &bytes)
        JSONWriter.appendRaw("}}", to: &bytes)
    }

    /// `{"jsonrpc":"2.0","id":…,"result":`, the start of every success response.
    private static func appendResultPrefix(id: RequestID, to bytes: inout [UInt8]) {
        JSONWriter.appendRaw(#"{"jsonrpc":"2.0","id":"#, to: &bytes)
        JSONWriter.append(id.json, to: &bytes)
        JSONWriter.appendRaw(#","result":"#, to: &bytes)
    }

    /// `appendResponse` for an item reply to a request whose id is a number of at most 40 characters (what clients
    /// send): the part before the item is written into a stack buffer and appended in one copy, instead of a piece
    /// at a time. False, with nothing appended, for any other id.
    private static func appendNumberedItemResponse(id: RequestID, revision: Revision, item: Item, to bytes: inout [UInt8]) -> Bool {
        guard case .number(let number) = id else { return false }
        var text = number.text
        let written = text.withUTF8 { idText -> Bool in
            guard idText.count <= 40 else { return false }
            // At most 112 bytes: 22 + 22 + 8 of keys and punctuation, 40 of id and 20 digits of revision.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
                guard let start = buffer.baseAddress else { return }
                var out = JSONByteCursor(start)
                out.put(#"{"jsonrpc":"2.0","id":"#)
                out.put(idText)
                out.put(#","result":{"revision":"#)
                out.putInteger(revision)
                out.put(#","item":"#)
                bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: out.position - start))
            }
            return true
        }
        guard written else { return false }
        item.appendJSON(to: &bytes)
        JSONWriter.appendRaw("}}", to: &bytes)
        return true
    }
}
