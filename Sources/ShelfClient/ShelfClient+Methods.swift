import Foundation
import ShelfCore
import ShelfWire

extension ShelfClient {
    /// `hello`: the server's name, version, protocol and revision.
    public func hello() async throws(ClientError) -> HelloResult {
        try ResultDecoding.hello(try await call(.hello))
    }

    /// `ping`: returns when the server answered `"pong"`.
    public func ping() async throws(ClientError) {
        let result = try await call(.ping)
        guard result == .string("pong") else { throw .protocolViolation("ping result \(result)") }
    }

    /// `list`: the items (in the order they were added) and the revision they were read at.
    public func list(_ filter: ListFilter = .all) async throws(ClientError) -> (revision: Revision, items: [Item]) {
        try ResultDecoding.list(try await call(.list(filter)))
    }

    /// `get`: one item by id.
    public func get(_ id: UUID) async throws(ClientError) -> (revision: Revision, item: Item) {
        try ResultDecoding.item(try await call(.get(id)))
    }

    /// Any mutation (`add`, `mark`, `toggle`, `rename`, `remove`), optionally conditional on `expect`.
    /// - Returns: the new revision, and the item (`nil` for `remove`).
    public func apply(_ mutation: Mutation, expect: Revision? = nil) async throws(ClientError) -> (revision: Revision, item: Item?) {
        try ResultDecoding.mutation(try await call(.mutate(mutation, expect: expect)), of: mutation)
    }
}
