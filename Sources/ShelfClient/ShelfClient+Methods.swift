import Foundation
import ShelfCore
import ShelfWire

extension ShelfClient {
    /// `hello`: the server's name, version, protocol and revision.
    public func hello() async throws(ClientError) -> HelloResult {
        let result = try await call(.hello)
        guard case .object(let object) = result,
              let revision = object["revision"]?.numberValue?.uint64,
              let proto = object["protocol"]?.numberValue?.int64
        else { throw .protocolViolation("hello result \(result)") }
        return HelloResult(
            server: object["server"]?.stringValue ?? "", version: object["version"]?.stringValue ?? "",
            protocolVersion: Int(proto), revision: revision)
    }

    /// `ping`: returns when the server answered `"pong"`.
    public func ping() async throws(ClientError) {
        let result = try await call(.ping)
        guard result == .string("pong") else { throw .protocolViolation("ping result \(result)") }
    }

    /// `list`: the items (in the order they were added) and the revision they were read at.
    public func list(_ filter: ListFilter = .all) async throws(ClientError) -> (revision: Revision, items: [Item]) {
        let result = try await call(.list(filter))
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

    /// `get`: one item by id.
    public func get(_ id: UUID) async throws(ClientError) -> (revision: Revision, item: Item) {
        try Self.itemResult(try await call(.get(id)))
    }

    /// Any mutation (`add`, `mark`, `toggle`, `rename`, `remove`), optionally conditional on `expect`.
    /// - Returns: the new revision, and the item (`nil` for `remove`).
    public func apply(_ mutation: Mutation, expect: Revision? = nil) async throws(ClientError) -> (revision: Revision, item: Item?) {
        let result = try await call(.mutate(mutation, expect: expect))
        if case .remove = mutation {
            guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64 else {
                throw .protocolViolation("remove result")
            }
            return (revision, nil)
        }
        let (revision, item) = try Self.itemResult(result)
        return (revision, item)
    }

    private static func itemResult(_ result: JSONValue) throws(ClientError) -> (revision: Revision, item: Item) {
        guard case .object(let object) = result, let revision = object["revision"]?.numberValue?.uint64,
              let itemValue = object["item"], let item = Item(json: itemValue)
        else { throw .protocolViolation("item result") }
        return (revision, item)
    }
}
