import ShelfCore
import ShelfJSON
import ShelfWire
import Synchronization

extension Session {
    /// One response, encoded: a JSON-RPC response object (no LF) and the list revision it carries, if any.
    struct Encoded: Sendable {
        var json: [UInt8]
        var revision: Revision?
        /// Whole lines to write just before the response: a `watch`'s backlog of `changed` notifications.
        var before: [UInt8] = []

        /// `before`, then the response and its LF, for the writer; `held` bytes of the reply budget go with it. Made
        /// in the buffer of `before` (or of `json`), not a new one.
        consuming func reply(held: Int) -> Outbox.Reply {
            var line: [UInt8] = []
            if before.isEmpty {
                swap(&line, &json)
            } else {
                swap(&line, &before)
                line.append(contentsOf: json)
            }
            line.append(0x0A)
            return Outbox.Reply(line: line, revision: revision, held: held)
        }
    }

    /// Produces one response when the writer gets to it; `nil` for a notification.
    typealias Answer = nonisolated(nonsending) @Sendable () async -> Encoded?

    /// Queues the reply job for one framed line, then carries the request out, in arrival order: a mutation is
    /// submitted to the list (its answer is collected by the writer); any other request first waits until this
    /// connection's earlier mutations are answered, then runs and is encoded at once — so it sees exactly the
    /// connection's earlier changes, never a later one.
    /// The reader holds one `window` slot for the request; whoever answers it gives the slot back.
    nonisolated(nonsending) func handle(_ event: LineFramer.Event, context: inout ReaderContext, window: RequestWindow) async {
        switch event {
        case .tooLong(let limit):
            let error = RPCError(.invalidRequest, "Invalid request: line longer than \(limit) bytes; it was discarded")
            let line = Self.line(Self.encode(RPCResponse(id: .null, outcome: .failure(error))).json)
            outbox.push { Outbox.Reply(line: line, revision: nil, held: 0) }
        case .line(let bytes):
            switch IncomingMessage.decodeCall(line: bytes) {
            case .single(let element):
                if outbox.beginDirectWrite() {
                    await answerDirectly(element, context: &context, window: window)
                } else {
                    await answerQueued(element, context: &context)
                }
            case .batch(let elements):
                await answerBatch(elements, context: &context)
            }
        }
    }

    // The two paths below are functions of their own, never inlined into `handle`: an async function's frame
    // holds every path's values, and a session keeps the deepest frame stack it ever had for as long as it lives.

    /// Queues the reply job for one request behind the replies owed before it, then carries it out.
    @inline(never)
    private nonisolated(nonsending) func answerQueued(_ element: IncomingMessage.IncomingRequest, context: inout ReaderContext) async {
        let promise = ReplyPromise<(Answer, Int)>()
        outbox.push {
            let (answer, held) = await promise.value
            return await answer()?.reply(held: held)
        }
        await outbox.waitForRoom()
        let idBytes = Self.heldIDBytes(element.id)
        if idBytes > 0 { await outbox.holdReplyBytes(idBytes) }
        // The client may have vanished while the reader waited: its requests are dropped, not run for nobody
        // (protocol/PROTOCOL.md §1).
        guard outbox.writeFailure == nil else {
            outbox.releaseReplyBytes(idBytes)
            return promise.fulfil(({ nil }, 0))
        }
        let prepared = await prepare(element, context: &context)
        // A peer that sends requests without reading the replies must not make the server buffer without
        // bound: past the budget the reader waits for the writer (and TCP pushes back on the peer). A read's
        // encoded reply includes the id held above: only the rest is added.
        let more = max(0, prepared.encodedBytes - idBytes)
        await outbox.holdReplyBytes(more, alreadyHeld: idBytes)
        promise.fulfil((makeAnswer(for: prepared), idBytes + more))
    }

    /// Queues the reply job for a batch (one line with every element's response), then carries the elements out.
    @inline(never)
    private nonisolated(nonsending) func answerBatch(_ elements: [IncomingMessage.IncomingRequest], context: inout ReaderContext) async {
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
        // A watching connection gets a `changed` line for each of its own changes too, queued behind this batch's
        // line until it is written: counted with the reply, so they stay under the notification limit (a watcher
        // reading promptly was cut off as a slow consumer by its own batch of toggles).
        let perChange = feed.isWatching(connection.id) ? 2 : 1
        await outbox.waitForRoom()
        for element in elements where context.keepReading && outbox.writeFailure == nil {
            // The batch's line is written whole, so its replies cannot wait for room: past the budget (after at
            // least one reply, however large) the rest are refused, not carried out. A batch of 1000 `list`s of a
            // 2 MB list held 4.4 GB before this. A notification is carried out regardless: it adds no reply.
            let prepared = element.id != nil && encodedBytes > 0 && encodedBytes >= outbox.maxBytes
                ? Self.answer(element.id, .failure(Self.batchOverBudget(outbox.maxBytes)))
                : await prepare(element, context: &context)
            answers.append(makeAnswer(for: prepared))
            encodedBytes += prepared.encodedBytes
            // A mutation's reply is made later, by the writer, but counts now: it repeats the item, whose title
            // may be 32 KiB (1000 `mark`s of one such item made a 31 MB line).
            if let (submission, id) = prepared.mutation, let id {
                // The notification carries the item, not the id.
                let estimate = Self.estimatedReplyBytes(await list.decidedOutcome(of: submission))
                encodedBytes += estimate * perChange + Self.heldIDBytes(id)
            }
        }
        // Held once for the whole batch: its line is written only when every element is ready.
        await outbox.holdReplyBytes(encodedBytes)
        promise.fulfil((answers, encodedBytes))
    }

    /// The most requests one batch may hold; a larger batch gets one -32600 (protocol/PROTOCOL.md §10).
    static let maxBatchElements = 1000

    /// About how many bytes the reply to a mutation with `outcome` takes, before it is made: its item's title as
    /// JSON (UTF-8 as is, two bytes for each `"` and `\`) and about 256 bytes for the rest (the request's id, which
    /// is echoed too, is bounded by the line it came in).
    static func estimatedReplyBytes(_ outcome: Result<MutationResult, ReadingListError>?) -> Int {
        guard case .success(let result)? = outcome, let item = result.item else { return 256 }
        var bytes = 256
        for byte in item.title.utf8 { bytes += byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1 }
        return bytes
    }

    /// The bytes a request's id takes in its reply when it is 1 KiB or more, and so counts against the reply budget
    /// on its own; 0 for a smaller one (bounded by the request window). A reply waiting for the writer keeps its id:
    /// a client that pipelined a thousand changes with 1 MB ids without reading held a gigabyte.
    static func heldIDBytes(_ id: RequestID?) -> Int {
        let bytes: Int
        switch id {
        case .string(let text)?: bytes = text.utf8.count + 2
        case .number(let number)?: bytes = number.text.utf8.count
        case .null?, nil: return 0
        }
        return bytes >= 1024 ? bytes : 0
    }

    /// The error for a request of a batch whose earlier replies already hold the reply budget (`maxBytes`,
    /// `--max-outbound-bytes`); the request is not carried out (protocol/PROTOCOL.md §10).
    static func batchOverBudget(_ maxBytes: Int) -> RPCError {
        RPCError(
            .invalidRequest,
            "Invalid request: this batch's replies passed \(maxBytes) bytes before this request, which was not carried out; send it again on its own")
    }

    /// One carried-out request: the closure that produces its response (`nil` for a notification), and how many
    /// bytes of it are already encoded (held against the reply budget until written).
    struct Prepared {
        /// The closure, read only through `makeAnswer(for:)`; for a mutation `Session.madeLater`, as
        /// `makeAnswer(for:)` makes its closure from `mutation` only when the writer needs one: a reply written
        /// directly needs none, and that saves it an allocation.
        fileprivate var answer: Answer
        var encodedBytes = 0
        /// A mutation's submission, and the id its reply carries (`nil` for a notification).
        var mutation: (submission: Submission, id: RequestID?)?
    }

    /// A mutation's `Prepared.answer`, never called (`makeAnswer(for:)` does not return it for a mutation): a
    /// closure without context, so storing it allocates nothing.
    private static let madeLater: Answer = { nil }

    /// The closure that produces `prepared`'s response: its own, or for a mutation one that waits for the list's
    /// answer to it and encodes that.
    func makeAnswer(for prepared: Prepared) -> Answer {
        guard let (submission, id) = prepared.mutation else { return prepared.answer }
        let list = self.list
        return {
            let outcome = await list.outcome(of: submission)
            guard let id else { return nil }
            return Self.encode(id: id, mutation: outcome)
        }
    }

    /// Carries out one request.
    nonisolated(nonsending) func prepare(_ element: IncomingMessage.IncomingRequest, context: inout ReaderContext) async -> Prepared {
        switch element {
        case .invalid(let error, let id):
            return Self.answer(id, .failure(error))
        case .call(let id, let call):
            if !context.authenticated, !Self.allowedBeforeAuth.contains(call.methodName) {
                return Self.answer(id, .failure(Self.unauthorized))
            }
            return await prepare(call, id: id, context: &context)
        case .request(let request):
            if !context.authenticated, !Self.allowedBeforeAuth.contains(request.method) {
                return Self.answer(request.id, .failure(Self.unauthorized))
            }
            switch MethodCall.decode(request) {
            case .failure(let error):
                return Self.answer(request.id, .failure(error))
            case .success(let call):
                return await prepare(call, id: request.id, context: &context)
            }
        }
    }

    /// The methods a connection may call before `auth` when the server has a token.
    static let allowedBeforeAuth = ["hello", "ping", "auth"]

    /// The error for any other request before `auth` (protocol/PROTOCOL.md §12).
    static let unauthorized = RPCError(.unauthorized, "Unauthorized: authenticate first with {\"method\":\"auth\",\"params\":{\"token\":\"…\"}}")

    /// Carries out one typed request.
    private nonisolated(nonsending) func prepare(_ call: MethodCall, id: RequestID?, context: inout ReaderContext) async -> Prepared {
        switch call {
        case .mutate(let mutation, let expect):
            let submission = await list.submit(mutation, expect: expect)
            if case .pending(let ticket) = submission { context.lastPendingTicket = ticket }
            return Prepared(answer: Self.madeLater, mutation: (submission, id))
        case .auth(let token):
            return Self.answer(id, authenticate(token, context: &context))
        default:
            if let ticket = context.lastPendingTicket {
                await list.settle(ticket)
                context.lastPendingTicket = nil
            }
            // A read sent as a notification could only be thrown away: it does nothing (a `watch` needs an id to
            // deliver its backlog).
            guard let id else { return Prepared(answer: { nil }) }
            var encoded: Encoded
            if case .list(let filter) = call {
                encoded = await listReply(id: id, filter: filter)
            } else if case .watch(let since) = call {
                encoded = await watchReply(id: id, since: since)
            } else {
                let (outcome, revision) = await run(call)
                encoded = Self.encode(RPCResponse(id: id, outcome: outcome), revision: revision)
            }
            let bytes = encoded.json.count + encoded.before.count
            // Handed over, not copied: the line is then made in place, and once written nothing holds the bytes (a
            // copy held by this closure doubled what a connection holds for a large `list` or `watch` backlog).
            let once = EncodedOnce(encoded)
            return Prepared(answer: { once.take() }, encodedBytes: bytes)
        }
    }

    private func authenticate(_ token: String, context: inout ReaderContext) -> Result<JSONValue, RPCError> {
        guard let check = tokenCheck else { return .success(MethodResult.empty.json) }
        if check.matches(token) {
            context.authenticated = true
            context.failedAuthAttempts = 0
            return .success(MethodResult.empty.json)
        }
        context.failedAuthAttempts += 1
        let left = TokenCheck.maxFailures - context.failedAuthAttempts
        if left <= 0 {
            context.keepReading = false
            log("connection \(connection.id): \(TokenCheck.maxFailures) failed auth attempts; closing")
            return .failure(RPCError(.unauthorized, "Unauthorized: wrong token; closing after \(TokenCheck.maxFailures) failed attempts"))
        }
        return .failure(RPCError(.unauthorized, "Unauthorized: wrong token (\(left) attempt\(left == 1 ? "" : "s") left)"))
    }

    /// Runs a request that is neither a mutation, `auth`, `list` nor `watch` (those have their own paths).
    private func run(_ call: MethodCall) async -> (Result<JSONValue, RPCError>, Revision?) {
        switch call {
        case .hello:
            let revision = await list.revision
            return (.success(MethodResult.hello(revision: revision, authRequired: tokenCheck != nil, run: runID).json), revision)
        case .ping:
            return (.success(MethodResult.pong.json), nil)
        case .get(let id):
            do {
                let (item, revision) = try await list.item(id)
                return (.success(MethodResult.item(revision: revision, item: item).json), revision)
            } catch {
                return (.failure(RPCError(error)), nil)
            }
        case .unwatch:
            // Removed on the actor, as `watch` adds: changes published between a removal here and a revision read
            // there were neither sent nor left out of the reply's revision.
            let feed = self.feed
            let id = connection.id
            let revision = await list.unwatch { feed.remove(id) }
            return (.success(MethodResult.revision(revision).json), revision)
        case .mutate, .auth, .list, .watch:
            return (.failure(RPCError(.internalError, "Internal error: request routed to the wrong handler")), nil)
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"result":{"revision":N,"items":[…]}}` written straight to bytes, with the items
    /// from the shared cache: a `list` of a large list is the heaviest reply there is.
    private func listReply(id: RequestID, filter: ListFilter) async -> Encoded {
        let snapshot = await list.snapshot()
        let listCache = self.listCache
        let encode: @Sendable () -> Encoded = {
            let items = listCache.items(filter, of: snapshot)
            var bytes: [UInt8] = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
            JSONWriter.append(id.json, to: &bytes)
            JSONWriter.appendRaw(#","result":{"revision":"#, to: &bytes)
            JSONWriter.appendInteger(snapshot.revision, to: &bytes)
            JSONWriter.appendRaw(#","items":"#, to: &bytes)
            // Room for the items, the closing braces and the LF the line gets, whatever the id's length: growing a
            // multi-megabyte buffer would copy it, and double it.
            bytes.reserveCapacity(bytes.count + items.count + 3)
            bytes.append(contentsOf: items)
            JSONWriter.appendRaw("}}", to: &bytes)
            return Encoded(json: bytes, revision: snapshot.revision)
        }
        guard snapshot.items.count > Self.largeListItems else { return encode() }
        // Milliseconds of work: on the global pool, so the event loop every connection shares keeps serving.
        return await withTaskExecutorPreference(globalConcurrentExecutor) { encode() }
    }

    /// Above this many items a `list` reply is encoded off the event loop.
    static let largeListItems = 2000

    /// Starts (or restarts) watching: the reply carries the retained changes after `since` as `changed` lines
    /// written just before it (protocol/PROTOCOL.md §6), and live changes follow through the outbox.
    private func watchReply(id: RequestID, since: Revision?) async -> Encoded {
        let (outcome, revision, backlog) = await watch(since: since)
        var encoded = Self.encode(RPCResponse(id: id, outcome: outcome), revision: revision)
        for change in backlog { encoded.before.append(contentsOf: ServerNotification.changed(change).line) }
        return encoded
    }

    private func watch(since: Revision?) async -> (Result<JSONValue, RPCError>, Revision?, [RevisionedChange]) {
        let connection = self.connection
        // The writer may be stuck in a write to a peer that stopped reading: close it after a grace second anyway.
        let watcher = ChangeFeed.Watcher(
            outbox: outbox, overflowed: { connection.close(after: .seconds(1)) },
            flush: { [self] in flushNotifications() })
        let feed = self.feed
        let id = connection.id
        let backlog = Mutex<[RevisionedChange]>([])
        do {
            let outbox = self.outbox
            let revision = try await list.watch(since: since) { changes, _ in
                backlog.withLock { $0 = changes }
                // Changes queued for an earlier watch are all at or below this revision: the backlog resends
                // what the client asked for, so they would arrive twice.
                outbox.dropNotifications()
                feed.add(id, watcher)
            }
            return (.success(MethodResult.revision(revision).json), revision, backlog.withLock { $0 })
        } catch {
            return (.failure(RPCError(error)), nil, [])
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
        case .failure(.conflict(let current)): current
        case .failure: nil
        }
    }

    /// An answer known now: encoded at once, or nothing for a notification.
    private static func answer(_ id: RequestID?, _ outcome: Result<JSONValue, RPCError>) -> Prepared {
        guard let id else { return Prepared(answer: { nil }) }
        let encoded = encode(RPCResponse(id: id, outcome: outcome))
        return Prepared(answer: { encoded }, encodedBytes: encoded.json.count)
    }

    static func encode(_ response: RPCResponse, revision: Revision? = nil) -> Encoded {
        Encoded(json: JSONWriter.encode(response.json), revision: revision)
    }

    static func line(_ json: [UInt8]) -> [UInt8] {
        var line = json
        line.append(0x0A)
        return line
    }

    /// `[a,b,…]` + LF, carrying the highest revision among the replies.
    private static func batchLine(_ replies: [Encoded], held: Int) -> Outbox.Reply {
        var line: [UInt8] = replies.flatMap(\.before)
        line.append(UInt8(ascii: "["))
        for (index, reply) in replies.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line.append(contentsOf: reply.json)
        }
        line.append(contentsOf: [UInt8(ascii: "]"), 0x0A])
        return Outbox.Reply(line: line, revision: replies.compactMap(\.revision).max(), held: held)
    }
}
