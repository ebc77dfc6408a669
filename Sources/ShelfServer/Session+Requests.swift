import ShelfCore
import ShelfWire

extension Session {
    /// Turns one framed line into the job that answers it. Mutations are submitted to the list here, in arrival
    /// order; everything else runs later in the writer.
    func replyJob(for event: LineFramer.Event) async -> ReplyJob {
        switch event {
        case .tooLong(let limit):
            let error = RPCError(.invalidRequest, "Invalid request: line longer than \(limit) bytes; it was discarded")
            return { Self.encode(RPCResponse(id: .null, outcome: .failure(error)).json) }
        case .line(let bytes):
            switch IncomingMessage.decode(line: bytes) {
            case .single(let element):
                let answer = await prepare(element)
                return { await answer().map { Self.encode($0.json) } }
            case .batch(let elements):
                var answers: [@Sendable () async -> RPCResponse?] = []
                for element in elements { answers.append(await prepare(element)) }
                return { [answers] in
                    var replies: [JSONValue] = []
                    for answer in answers {
                        if let reply = await answer() { replies.append(reply.json) }
                    }
                    // JSON-RPC 2.0 §6: a batch of notifications gets no reply at all.
                    return replies.isEmpty ? nil : Self.encode(.array(replies))
                }
            }
        }
    }

    /// Prepares one request: returns the closure that produces its response (`nil` for a notification).
    private func prepare(_ element: IncomingMessage.IncomingRequest) async -> @Sendable () async -> RPCResponse? {
        let request: RPCRequest
        switch element {
        case .invalid(let error, let id):
            return { id.map { RPCResponse(id: $0, outcome: .failure(error)) } }
        case .request(let valid):
            request = valid
        }
        let id = request.id
        let call: MethodCall
        switch MethodCall.decode(request) {
        case .failure(let error):
            return { id.map { RPCResponse(id: $0, outcome: .failure(error)) } }
        case .success(let decoded):
            call = decoded
        }
        let list = self.list
        switch call {
        case .mutate(let mutation, let expect):
            let submission = await list.submit(mutation, expect: expect)
            return {
                let outcome: Result<MutationResult, ReadingListError> =
                    switch submission {
                    case .answered(let outcome): outcome
                    case .pending(let ticket): await list.answer(ticket)
                    }
                return id.map { RPCResponse(id: $0, outcome: Self.result(of: outcome)) }
            }
        case .hello, .ping, .list, .get:
            return {
                let outcome = await Self.read(call, from: list)
                return id.map { RPCResponse(id: $0, outcome: outcome) }
            }
        }
    }

    private static func read(_ call: MethodCall, from list: ReadingList) async -> Result<JSONValue, RPCError> {
        switch call {
        case .hello:
            return .success(MethodResult.hello(revision: await list.revision).json)
        case .ping:
            return .success(MethodResult.pong.json)
        case .list(let filter):
            let snapshot = await list.snapshot()
            let items = snapshot.items.items.filter { item in
                switch filter {
                case .all: true
                case .read: item.isRead
                case .unread: !item.isRead
                }
            }
            return .success(MethodResult.list(revision: snapshot.revision, items: items).json)
        case .get(let id):
            do {
                let (item, revision) = try await list.item(id)
                return .success(MethodResult.item(revision: revision, item: item).json)
            } catch {
                return .failure(RPCError(error))
            }
        case .mutate:
            return .failure(RPCError(.internalError, "Internal error: a mutation reached the read path"))
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
