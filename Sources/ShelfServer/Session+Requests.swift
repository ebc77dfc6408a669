import ShelfCore
import ShelfWire

extension Session {
    typealias Answer = @Sendable () async -> (response: RPCResponse, revision: Revision?)?

    /// Queues the reply job for one framed line, then carries the request out, in arrival order: a mutation is
    /// submitted to the list (its answer is collected by the writer); any other request first waits until this
    /// connection's earlier mutations are answered, then runs — so it sees exactly the connection's earlier
    /// changes, never a later one.
    func handle(_ event: LineFramer.Event, progress: inout ReadProgress) async {
        switch event {
        case .tooLong(let limit):
            let error = RPCError(.invalidRequest, "Invalid request: line longer than \(limit) bytes; it was discarded")
            outbox.push { Outbox.Reply(line: Self.encode(RPCResponse(id: .null, outcome: .failure(error)).json), revision: nil) }
        case .line(let bytes):
            switch IncomingMessage.decode(line: bytes) {
            case .single(let element):
                let answer = ReplyPromise<Answer>()
                outbox.push {
                    let answer = await answer.value
                    guard let reply = await answer() else { return nil }
                    return Outbox.Reply(line: Self.encode(reply.response.json), revision: reply.revision)
                }
                answer.fulfil(await prepare(element, progress: &progress))
            case .batch(let elements):
                let answers = ReplyPromise<[Answer]>()
                outbox.push {
                    var replies: [JSONValue] = []
                    var revision: Revision?
                    for answer in await answers.value {
                        guard let reply = await answer() else { continue }
                        replies.append(reply.response.json)
                        revision = max(revision ?? 0, reply.revision ?? 0)
                    }
                    // JSON-RPC 2.0 §6: a batch of notifications gets no reply at all.
                    return replies.isEmpty ? nil : Outbox.Reply(line: Self.encode(.array(replies)), revision: revision)
                }
                var prepared: [Answer] = []
                for element in elements { prepared.append(await prepare(element, progress: &progress)) }
                answers.fulfil(prepared)
            }
        }
    }

    /// Carries out one request: returns the closure that produces its response (`nil` for a notification).
    private func prepare(_ element: IncomingMessage.IncomingRequest, progress: inout ReadProgress) async -> Answer {
        let request: RPCRequest
        switch element {
        case .invalid(let error, let id):
            return { id.map { (RPCResponse(id: $0, outcome: .failure(error)), nil) } }
        case .request(let valid):
            request = valid
        }
        let id = request.id
        switch MethodCall.decode(request) {
        case .failure(let error):
            return { id.map { (RPCResponse(id: $0, outcome: .failure(error)), nil) } }
        case .success(.mutate(let mutation, let expect)):
            let submission = await list.submit(mutation, expect: expect)
            if case .pending(let ticket) = submission { progress.lastPendingTicket = ticket }
            let list = self.list
            return {
                let outcome: Result<MutationResult, ReadingListError> =
                    switch submission {
                    case .answered(let outcome): outcome
                    case .pending(let ticket): await list.answer(ticket)
                    }
                return id.map { (RPCResponse(id: $0, outcome: Self.result(of: outcome)), try? outcome.get().revision) }
            }
        case .success(let call):
            if let ticket = progress.lastPendingTicket {
                await list.settle(ticket)
                progress.lastPendingTicket = nil
            }
            let (outcome, revision) = await run(call)
            return { id.map { (RPCResponse(id: $0, outcome: outcome), revision) } }
        }
    }

    /// Runs a request that is not a mutation.
    private func run(_ call: MethodCall) async -> (Result<JSONValue, RPCError>, Revision?) {
        switch call {
        case .hello:
            let revision = await list.revision
            return (.success(MethodResult.hello(revision: revision).json), revision)
        case .ping:
            return (.success(MethodResult.pong.json), nil)
        case .list(let filter):
            let snapshot = await list.snapshot()
            let items = snapshot.items.items.filter { item in
                switch filter {
                case .all: true
                case .read: item.isRead
                case .unread: !item.isRead
                }
            }
            return (.success(MethodResult.list(revision: snapshot.revision, items: items).json), snapshot.revision)
        case .get(let id):
            do {
                let (item, revision) = try await list.item(id)
                return (.success(MethodResult.item(revision: revision, item: item).json), revision)
            } catch {
                return (.failure(RPCError(error)), nil)
            }
        case .watch(let since):
            return await watch(since: since)
        case .unwatch:
            feed.remove(connection.id)
            let revision = await list.revision
            return (.success(MethodResult.revision(revision).json), revision)
        case .mutate:
            return (.failure(RPCError(.internalError, "Internal error: a mutation reached the read path")), nil)
        }
    }

    private func watch(since: Revision?) async -> (Result<JSONValue, RPCError>, Revision?) {
        let connection = self.connection
        // The writer may be stuck in a write to a peer that stopped reading: close it after a grace second anyway.
        let watcher = ChangeFeed.Watcher(outbox: outbox) {
            Task {
                try? await Task.sleep(for: .seconds(1))
                connection.close()
            }
        }
        let feed = self.feed
        let id = connection.id
        do {
            let revision = try await list.watch(since: since) { backlog, _ in
                feed.add(id, watcher, backlog: backlog)
            }
            return (.success(MethodResult.revision(revision).json), revision)
        } catch {
            return (.failure(RPCError(error)), nil)
        }
    }

    private static func result(of outcome: Result<MutationResult, ReadingListError>) -> Result<JSONValue, RPCError> {
        switch outcome {
        case .success(let result):
            if let item = result.item {
                .success(MethodResult.item(revision: result.revision, item: item).json)
            } else {
                .success(MethodResult.removed(revision: result.revision, id: result.id).json)
            }
        case .failure(let error):
            .failure(RPCError(error))
        }
    }

    static func encode(_ value: JSONValue) -> [UInt8] {
        var line = JSONWriter.encode(value)
        line.append(0x0A)
        return line
    }
}
