import ShelfCore
import ShelfJSON
import ShelfWire

extension Session {
    /// Queues the reply job for a batch (one line with every element's response), then carries the elements out.
    @inline(never)
    nonisolated(nonsending) func answerBatch(_ elements: [IncomingMessage.IncomingRequest], context: inout ReaderContext) async {
        guard elements.count <= Self.maxBatchElements else {
            let error = RPCError(
                .invalidRequest,
                "Invalid request: a batch of \(elements.count) requests; the limit is \(Self.maxBatchElements)")
            let line = Self.line(Self.encode(RPCResponse(id: .null, outcome: .failure(error))).json)
            outbox.push { Outbox.Reply(line: line, revision: nil, held: 0) }
            return
        }
        let promise = ReplyPromise<([Answer], Int)>()
        outbox.push {
            let (answers, held) = await promise.value
            var replies: [Encoded] = []
            for answer in answers {
                if let reply = await answer() { replies.append(reply) }
            }
            // JSON-RPC 2.0 §6: a batch of notifications gets no reply at all.
            return replies.isEmpty ? nil : Self.batchLine(replies, held: held)
        }
        var answers: [Answer] = []
        var encodedBytes = 0
        // Charged to the memory account as the replies were made (large `list`s), taken over by the hold below.
        var charged = 0
        // A batch that made a change is sent whatever the memory ceiling: the changes are made.
        var madeChanges = false
        // The memory ceiling refused one of its replies.
        var refused = false
        await outbox.waitForRoom()
        for element in elements where context.keepReading && outbox.writeFailure == nil {
            // The batch's line is written whole, so its replies cannot wait for room: past the budget (after at
            // least one reply, however large) the rest are refused, not carried out. A batch of 1000 `list`s of a
            // 2 MB list held 4.4 GB before this. A notification is carried out regardless: it adds no reply.
            let prepared = element.id != nil && encodedBytes > 0 && encodedBytes >= outbox.maxBytes
                ? Self.answer(element.id, .failure(Self.batchOverBudget(outbox.maxBytes)))
                : await prepare(element, context: &context)
            if prepared.overCeiling {
                // Nothing of the batch goes out, unless it made changes: then the refused request is answered
                // with an error and the batch's line is sent before the connection closes.
                refused = true
                refuseForMemory(context: &context)
                guard madeChanges, let id = element.id else { break }
                let refusal = Self.answer(id, .failure(Self.overMemoryCeiling(memory?.ceiling ?? 0)))
                answers.append(makeAnswer(for: refusal))
                encodedBytes += refusal.encodedBytes
                break
            }
            answers.append(makeAnswer(for: prepared))
            encodedBytes += prepared.encodedBytes
            charged += prepared.charged
            if prepared.mutation != nil { madeChanges = true }
            // A mutation's reply is made later, by the writer, but counts now: it repeats the item, whose title
            // may be 32 KiB (1000 `mark`s of one such item made a 31 MB line).
            if let (submission, id) = prepared.mutation, let id {
                // A watching connection gets a `changed` line for each of its own changes too, queued behind this
                // batch's line until it is written: counted with the reply, so they stay under the notification
                // limit (a watcher reading promptly was cut off as a slow consumer by its own batch of toggles).
                // Asked per element: a `watch` earlier in the batch starts it.
                let perChange = feed.isWatching(connection.id) ? 2 : 1
                // The notification carries the item, not the id.
                let estimate = Self.estimatedReplyBytes(await list.decidedOutcome(of: submission))
                encodedBytes += estimate * perChange + Self.heldIDBytes(id)
            }
        }
        // Held once for the whole batch: its line is written only when every element is ready.
        let sends = !refused || madeChanges
        guard sends, await outbox.holdReplyBytes(encodedBytes, precharged: charged, refusable: !madeChanges) else {
            if sends {
                refuseForMemory(context: &context)
            } else {
                // Refused while the batch was carried out: what its replies had charged is given back with them.
                memory?.refund(charged)
            }
            return promise.fulfil(([], 0))
        }
        promise.fulfil((answers, encodedBytes))
    }

    /// The error for a request of a batch that the server's memory ceiling refused its reply (`--max-memory-bytes`,
    /// protocol/PROTOCOL.md §10): the request was not carried out, and the connection closes after the batch's line.
    static func overMemoryCeiling(_ ceiling: Int) -> RPCError {
        RPCError(
            .invalidRequest,
            "Invalid request: the server holds as much memory for its connections as it may (\(ceiling) bytes, --max-memory-bytes); not carried out")
    }

    /// The most requests one batch may hold; a larger batch gets one -32600 (protocol/PROTOCOL.md §10).
    static let maxBatchElements = 1000

    /// The error for a request of a batch whose earlier replies already hold the reply budget (`maxBytes`,
    /// `--max-outbound-bytes`); the request is not carried out (protocol/PROTOCOL.md §10).
    static func batchOverBudget(_ maxBytes: Int) -> RPCError {
        RPCError(
            .invalidRequest,
            "Invalid request: this batch's replies passed \(maxBytes) bytes before this request, which was not carried out; send it again on its own")
    }

    /// `[a,b,…]` + LF, carrying the highest revision among the replies.
    static func batchLine(_ replies: [Encoded], held: Int) -> Outbox.Reply {
        var line: [UInt8] = []
        line.append(UInt8(ascii: "["))
        for (index, reply) in replies.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line.append(contentsOf: reply.json)
        }
        line.append(contentsOf: [UInt8(ascii: "]"), 0x0A])
        return Outbox.Reply(line: line, revision: replies.compactMap(\.revision).max(), held: held)
    }
}
