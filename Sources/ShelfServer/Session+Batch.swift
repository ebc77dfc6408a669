import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// Carries out a batch's elements in order into one slot (JSON-RPC 2.0 §6): its line, with every element's
    /// response, is written once all are in.
    func answerBatch(_ requests: [Request]) async {
        await waitForRoom()
        guard requests.count <= Self.maxBatchElements else {
            let error = RPCError(
                .invalidRequest,
                "Invalid request: a batch of \(requests.count) requests; the limit is \(Self.maxBatchElements)")
            replies.append(Self.reply(.null, .failure(error)))
            return scheduleFlush()
        }
        let slot = replies.appendBatch(count: requests.count)
        var encodedBytes = 0
        // A batch that made a change is sent whatever the memory ceiling: the changes are made.
        var madeChanges = false
        var carriedOut = 0
        for (part, request) in requests.enumerated() where canServe {
            carriedOut = part + 1
            // The batch's line is written whole, so its replies cannot wait for room: past the budget (after at
            // least one reply, however large) the rest are refused, not carried out. A notification is carried out
            // regardless: it adds no reply.
            if request.id != nil, encodedBytes > 0, encodedBytes >= configuration.maxOutboundBytes {
                let refusal = Self.reply(request.id, .failure(Self.batchOverBudget(configuration.maxOutboundBytes)))
                encodedBytes += refusal.heldBytes
                fill(slot, part: part, with: refusal)
                continue
            }
            let carried = await carryOut(request, slot: slot, part: part)
            if carried.overCeiling {
                // Nothing of the batch goes out, unless it made changes: then the refused request is answered with
                // an error and the batch's line is sent before the connection closes.
                refuseForMemory()
                guard madeChanges else {
                    replies.discard(slot)
                    return
                }
                fill(slot, part: part, with: Self.reply(request.id, .failure(Self.overMemoryCeiling(memory?.ceiling ?? 0))))
                break
            }
            encodedBytes += carried.encodedBytes
            guard let submission = carried.submission else { continue }
            madeChanges = true
            // A mutation's reply is made later but counts now: it repeats the item, whose title may be 32 KiB.
            if request.id != nil {
                // A watcher gets a `changed` line for each of its own changes too, written before this batch's line
                // (which carries the highest revision of its parts, protocol/PROTOCOL.md §6).
                let perChange = feed.isWatching(connection.id) ? 2 : 1
                let estimate = Self.estimatedReplyBytes(await list.decidedOutcome(of: submission))
                encodedBytes += estimate * perChange + Self.heldIDBytes(request.id)
            }
        }
        replies.seal(slot, leavingOutFrom: carriedOut)
        scheduleFlush()
    }

    /// The error for a request of a batch that the server's memory ceiling refused its reply (`--max-memory-bytes`,
    /// protocol/PROTOCOL.md §10): the request was not carried out, and the connection closes after the batch's line.
    nonisolated static func overMemoryCeiling(_ ceiling: Int) -> RPCError {
        RPCError(
            .invalidRequest,
            "Invalid request: the server holds as much memory for its connections as it may (\(ceiling) bytes, --max-memory-bytes); not carried out")
    }

    /// The most requests one batch may hold; a larger batch gets one -32600 (protocol/PROTOCOL.md §10).
    nonisolated static let maxBatchElements = 1000

    /// The error for a request of a batch whose earlier replies already hold the reply budget (`maxBytes`,
    /// `--max-outbound-bytes`); the request is not carried out (protocol/PROTOCOL.md §10).
    nonisolated static func batchOverBudget(_ maxBytes: Int) -> RPCError {
        RPCError(
            .invalidRequest,
            "Invalid request: this batch's replies passed \(maxBytes) bytes before this request, which was not carried out; send it again on its own")
    }
}
