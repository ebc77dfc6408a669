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
        bytes.append(contentsOf: #"{"jsonrpc":"2.0","id":"#.utf8)
        JSONWriter.append(id.json, to: &bytes)
        bytes.append(contentsOf: #","result":"#.utf8)
        switch self {
        case .item(let revision, let item):
            bytes.append(contentsOf: #"{"revision":"#.utf8)
            bytes.append(contentsOf: String(revision).utf8)
            bytes.append(contentsOf: #","item":"#.utf8)
            item.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .removed(let revision, let id):
            bytes.append(contentsOf: #"{"revision":"#.utf8)
            bytes.append(contentsOf: String(revision).utf8)
            bytes.append(contentsOf: #","id":""#.utf8)
            id.appendWireText(to: &bytes)
            bytes.append(contentsOf: #""}"#.utf8)
        default:
            JSONWriter.append(json, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
