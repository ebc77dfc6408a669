import Foundation
import ShelfCore
import ShelfJSON
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

    /// `list`: the items `query` selects (by default all, in the order they were added) and the revision they were
    /// read at; one page when the query has a `limit` (`listPage` also gives the next cursor).
    public func list(_ query: ItemQuery = .all) async throws(ClientError) -> (revision: Revision, items: [Item]) {
        try ResultDecoding.list(try await call(.list(query)))
    }

    /// `list` with the reply's `next`: the cursor for the following page, `nil` on the last one.
    public func listPage(_ query: ItemQuery) async throws(ClientError) -> (revision: Revision, items: [Item], next: UUID?) {
        let result = try await call(.list(query))
        let (revision, items) = try ResultDecoding.list(result)
        return (revision, items, result.objectValue?["next"]?.stringValue.flatMap(UUID.init(wireText:)))
    }

    /// `get`: one item by id.
    public func get(_ id: UUID) async throws(ClientError) -> (revision: Revision, item: Item) {
        try ResultDecoding.item(try await call(.get(id)))
    }

    /// Any mutation (`add`, `mark`, `toggle`, `rename`, `update`, `remove`), optionally conditional on `expect`
    /// (the list's revision) or `expectItem` (the item's; protocol/PROTOCOL.md §7).
    /// - Returns: the new revision, and the item (`nil` for `remove`).
    public func apply(
        _ mutation: Mutation, expect: Revision? = nil, expectItem: Revision? = nil
    ) async throws(ClientError) -> (revision: Revision, item: Item?) {
        try ResultDecoding.mutation(try await call(.mutate(mutation, expect: expect, expectItem: expectItem)), of: mutation)
    }

    /// Sends every call of `calls` at once, in order, without waiting for a reply between them (the server answers
    /// in request order, protocol/PROTOCOL.md §3), and waits for all the replies.
    /// - Returns: each call's result or error, in the order of `calls`.
    public func pipelined(_ calls: [MethodCall]) async -> [Result<JSONValue, ClientError>] {
        await withTaskGroup(of: (Int, Result<JSONValue, ClientError>).self) { group in
            for (index, call) in calls.enumerated() {
                let (method, params) = call.request
                // The next request is queued only once this one is, so they leave in the order given.
                await withCheckedContinuation { (queued: CheckedContinuation<Void, Never>) in
                    group.addTask {
                        do throws(ClientError) {
                            return (index, .success(try await self.send(method: method, params: params, whenSent: { queued.resume() })))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
            }
            var results = [Result<JSONValue, ClientError>?](repeating: nil, count: calls.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(.connectionLost("no reply")) }
        }
    }
}
