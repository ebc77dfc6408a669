import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// One response, encoded: a JSON-RPC response object (no LF) and the list revision it carries, if any.
    struct Encoded: Sendable {
        var json: [UInt8]
        var revision: Revision?
        /// Bytes of it charged to the server's memory account as it was made (a large `list`, `listReply`), so that
        /// replies made at once on several threads cannot all pass the ceiling; whoever holds the reply next takes
        /// the charge over (`Outbox.holdReplyBytes(_:alreadyHeld:precharged:refusable:)`, `holdDirectWrite`).
        var charged = 0

        /// The response and its LF, for the writer; `held` bytes of the reply budget go with it. Made in the buffer
        /// of `json`, not a new one.
        consuming func reply(held: Int) -> Outbox.Reply {
            var line: [UInt8] = []
            swap(&line, &json)
            line.append(0x0A)
            return Outbox.Reply(line: line, revision: revision, held: held)
        }
    }

    /// The response to a mutation: `{"revision","item"}` or `{"revision","id"}` (written straight to bytes), or its
    /// error.
    static func encode(id: RequestID, mutation outcome: Result<MutationResult, ReadingListError>) -> Encoded {
        var json: [UInt8] = []
        json.reserveCapacity(256)
        appendResponse(id: id, mutation: outcome, to: &json)
        return Encoded(json: json, revision: revision(of: outcome))
    }

    /// Appends the response `encode(id:mutation:)` makes (no LF) to `bytes`, with no buffer of its own.
    static func appendResponse(id: RequestID, mutation outcome: Result<MutationResult, ReadingListError>, to bytes: inout [UInt8]) {
        switch outcome {
        case .success(let result):
            let method: MethodResult =
                if let item = result.item { .item(revision: result.revision, item: item) }
                else { .removed(revision: result.revision, id: result.id) }
            method.appendResponse(id: id, to: &bytes)
        case .failure(let error):
            JSONWriter.append(RPCResponse(id: id, outcome: .failure(RPCError(error))).json, to: &bytes)
        }
    }

    /// The list revision a mutation's response carries: the one reached, or for a conflict the list's (`data.revision`).
    /// Like a success reply, a conflict follows the connection's notifications up to it (protocol/PROTOCOL.md §6).
    static func revision(of outcome: Result<MutationResult, ReadingListError>) -> Revision? {
        switch outcome {
        case .success(let result): result.revision
        case .failure(.conflict(let current, _)): current
        case .failure: nil
        }
    }


    static func encode(_ response: RPCResponse, revision: Revision? = nil) -> Encoded {
        Encoded(json: JSONWriter.encode(response.json), revision: revision)
    }

    static func line(_ json: [UInt8]) -> [UInt8] {
        var line = json
        line.append(0x0A)
        return line
    }
}
