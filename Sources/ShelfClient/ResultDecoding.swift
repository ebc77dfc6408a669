import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire

/// Reads the `result` shapes of protocol/PROTOCOL.md ("Methods") into model values.
/// Each throws `ClientError.protocolViolation` when the value does not have the documented shape.
public enum ResultDecoding {
    /// `{"server","version","protocol","revision","auth","run","list","features"}`; `run`, `list` and `features`
    /// may be missing (older servers), and a `list` that is not a UUID is read as missing.
    public static func hello(_ result: JSONValue) throws(ClientError) -> HelloResult {
        guard case .object(let object) = result,
              let revision = object["revision"]?.numberValue?.uint64,
              let proto = object["protocol"]?.numberValue?.int64
        else { throw .protocolViolation("hello result \(result)") }
        return HelloResult(
            server: object["server"]?.stringValue ?? "", version: object["version"]?.stringValue ?? "",
            protocolVersion: Int(proto), revision: revision, run: object["run"]?.stringValue,
            listID: object["list"]?.stringValue.flatMap { UUID(wireText: $0) },
            features: object["features"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            authRequired: object["auth"]?.stringValue == "required")
    }

    /// `{"revision","items":[Item]}`.
    public static func list(_ result: JSONValue) throws(ClientError) -> (revision: Revision, items: [Item]) {
        guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64,
              let array = object["items"]?.arrayValue
        else { throw .protocolViolation("list result") }
        var items: [Item] = []
        items.reserveCapacity(array.count)
        for value in array {
            guard let item = Item(json: value) else { throw .protocolViolation("list item \(value)") }
            items.append(item)
        }
        return (revision, items)
    }

    /// `{"revision","item"}`.
    public static func item(_ result: JSONValue) throws(ClientError) -> (revision: Revision, item: Item) {
        guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64,
              let itemValue = object["item"], let item = Item(json: itemValue)
        else { throw .protocolViolation("item result") }
        return (revision, item)
    }

    /// `{"revision","item"}`, or `{"revision","id"}` for `remove`.
    public static func mutation(_ result: JSONValue, of mutation: Mutation) throws(ClientError) -> (revision: Revision, item: Item?) {
        if case .remove = mutation {
            guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64 else {
                throw .protocolViolation("remove result")
            }
            return (revision, nil)
        }
        let (revision, item) = try item(result)
        return (revision, item)
    }
}
