import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// One response, encoded: a JSON-RPC response object (no LF) and the list revision it carries, if any.
    struct Encoded: Sendable {
        var json: [UInt8]
        var revision: Revision?
        /// Bytes of it charged to the server's memory account as it was made (a large `list`, `listReply`), so that
        /// replies made at once on several threads cannot all pass the ceiling; the session takes the charge over.
        var charged = 0
    }

    /// Appends the response to a mutation, `{"revision","item"}` or `{"revision","id"}` or its error (no LF), to
    /// `bytes`, with no buffer of its own.
    nonisolated static func appendResponse(id: RequestID, mutation outcome: Result<MutationResult, ReadingListError>, to bytes: inout [UInt8]) {
        switch outcome {
        case .success(let result):
            if let item = result.item {
                MethodResult.appendItemResponse(id: id, revision: result.revision, item: item, to: &bytes)
            } else {
                MethodResult.removed(revision: result.revision, id: result.id).appendResponse(id: id, to: &bytes)
            }
        case .failure(let error):
            JSONWriter.append(RPCResponse(id: id, outcome: .failure(RPCError(error))).json, to: &bytes)
        }
    }

    /// The list revision a mutation's response carries: the one reached, or for a conflict the list's (`data.revision`).
    /// Like a success reply, a conflict follows the connection's notifications up to it (protocol/PROTOCOL.md §6).
    nonisolated static func revision(of outcome: Result<MutationResult, ReadingListError>) -> Revision? {
        switch outcome {
        case .success(let result): result.revision
        case .failure(.conflict(let current, _)): current
        case .failure: nil
        }
    }

    nonisolated static func encode(_ response: RPCResponse, revision: Revision? = nil) -> Encoded {
        Encoded(json: JSONWriter.encode(response.json), revision: revision)
    }
}
