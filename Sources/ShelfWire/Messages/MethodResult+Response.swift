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
        JSONWriter.appendRaw(#"{"jsonrpc":"2.0","id":"#, to: &bytes)
        JSONWriter.append(id.json, to: &bytes)
        JSONWriter.appendRaw(#","result":"#, to: &bytes)
        switch self {
        case .item(let revision, let item):
            JSONWriter.appendRaw(#"{"revision":"#, to: &bytes)
            JSONWriter.appendInteger(revision, to: &bytes)
            JSONWriter.appendRaw(#","item":"#, to: &bytes)
            item.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "}"))
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
}
