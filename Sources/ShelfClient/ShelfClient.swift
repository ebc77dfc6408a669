import Glibc
import ShelfCore
import ShelfJSON
import ShelfSockets
import ShelfWire
import Synchronization

/// A connection to `shelfd`. Calls may be made concurrently; they are pipelined on the one connection and each
/// answer is matched to its call by JSON-RPC id.
///
/// A reader task routes responses to callers; a writer task sends request lines one at a time in call order.
/// Notifications from the server are handed to `notifications`; while more than `maxBufferedNotificationBytes` of
/// them wait there, the reader stops reading the socket, so a consumer that falls behind holds the server back
/// (whose slow-consumer limit then applies, protocol/PROTOCOL.md §6) instead of growing this process.
public actor ShelfClient {
    private let connection: TCPConnection
    private let address: HostPort
    /// How long a call waits for its reply (`connect(to:token:timeout:)`); `nil`: for ever.
    private let replyTimeout: Duration?
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var waiters: [Int64: CheckedContinuation<RPCResponse, any Error>] = [:]
    /// One per call waiting under `replyTimeout`, cancelled when its reply comes.
    private var timers: [Int64: Task<Void, Never>] = [:]
    /// When bytes last came from the server: a call fails only after `replyTimeout` with nothing heard, so a large
    /// reply crossing a slow link, or a reply queued behind a watch's notifications, is not taken for silence.
    private var lastHeard = ContinuousClock.now
    private var nextID: Int64 = 1
    private var failure: ClientError?
    /// Notifications not yet taken by `notifications`.
    private var pending = NotificationBuffer()
    /// The consumer waiting in `nextNotification()`, and the reader waiting for room.
    private var consumer: CheckedContinuation<RPCRequest?, Never>?
    private var roomWaiter: CheckedContinuation<Void, Never>?
    /// The reader waits for room: the server's silence then is ours, and no reply can time out for it.
    private var readerHeld = false
    private var notificationsEnded = false

    /// The longest reply line accepted, in bytes (1 GiB).
    public static let maxReplyBytes = 1 << 30

    /// The most bytes (of their lines) of notifications waiting to be taken before the reader stops reading the
    /// socket: 256 KiB. One larger notification is taken alone.
    public static let maxBufferedNotificationBytes = 256 * 1024

    /// Requests the server sent without an id (notifications), in arrival order, for one consumer; it ends when the
    /// connection does.
    public nonisolated var notifications: Notifications { Notifications(client: self) }

    /// The notifications of one client as an async sequence (`notifications`).
    public struct Notifications: AsyncSequence, Sendable {
        let client: ShelfClient

        /// Takes notifications from the client, one at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let client: ShelfClient

            /// The next notification, or `nil` once the connection ended and every one was taken.
            public mutating func next() async -> RPCRequest? {
                await client.nextNotification()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(client: client)
        }
    }

    /// Connects to `address` and, with a `token`, authenticates (`auth`) before returning.
    /// - Parameter timeout: how long connecting may take, and then how long a call waits with nothing at all heard
    ///   from the server (bytes still arriving count as life; time the reader spends held by unread
    ///   `notifications` does not count, since the server's bytes then wait on our side); `nil` waits for ever. A
    ///   call past it fails with `.noReply`, and so does every other call waiting then: the connection is closed,
    ///   since a reply that comes later could no longer be told apart.
    /// - Throws: `ClientError.cannotConnect` with the socket error (e.g. connection refused; `ETIMEDOUT` past
    ///   `timeout`); `.server` with code 5 when the token is refused.
    public static func connect(
        to address: HostPort, token: String? = nil, timeout: Duration? = nil
    ) async throws(ClientError) -> ShelfClient {
        let client: ShelfClient
        do {
            client = ShelfClient(connection: try await open(address, within: timeout), address: address, replyTimeout: timeout)
        } catch let error as SocketError {
            throw .cannotConnect(address, error)
        } catch {
            throw .cannotConnect(address, .closed)
        }
        if let token {
            do {
                _ = try await client.call(.auth(token: token))
            } catch {
                await client.close()
                throw error
            }
        }
        return client
    }

    /// A TCP connection to `address`, given up (`ETIMEDOUT`) once `limit` has passed. Not a task group: a group
    /// waits for its cancelled child, and a name lookup (`getaddrinfo`, on a thread of its own) cannot be
    /// cancelled. The attempt left behind closes what it connects, if anything.
    private static func open(_ address: HostPort, within limit: Duration?) async throws -> TCPConnection {
        guard let limit else { return try await TCPConnection.connect(to: address) }
        let race = ConnectRace()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TCPConnection, any Error>) in
            let attempt = Task {
                do {
                    let connection = try await TCPConnection.connect(to: address)
                    if race.decide() { continuation.resume(returning: connection) } else { connection.close() }
                } catch {
                    if race.decide() { continuation.resume(throwing: error) }
                }
                race.stopTimer()
            }
            race.startTimer(Task {
                try? await Task.sleep(for: limit)
                guard race.decide() else { return }
                continuation.resume(throwing: SocketError.failed(call: "connect", errno: ETIMEDOUT))
                // A connect in progress closes its half-open socket; a name lookup notices once it returns.
                attempt.cancel()
            })
        }
    }

    /// Who of a connect and its timer finished first (`open(_:within:)`): only that one answers.
    private final class ConnectRace: Sendable {
        private let state = Mutex<(decided: Bool, timer: Task<Void, Never>?)>((false, nil))

        /// True for the first caller only.
        func decide() -> Bool {
            state.withLock { state in
                defer { state.decided = true }
                return !state.decided
            }
        }

        func startTimer(_ timer: Task<Void, Never>) {
            let late = state.withLock { state in
                state.timer = timer
                return state.decided
            }
            if late { timer.cancel() }
        }

        func stopTimer() {
            state.withLock { $0.timer }?.cancel()
        }
    }

    private init(connection: TCPConnection, address: HostPort, replyTimeout: Duration?) {
        self.connection = connection
        self.address = address
        self.replyTimeout = replyTimeout
        let (lines, outbox) = AsyncStream.makeStream(of: [UInt8].self)
        self.outbox = outbox
        Task { [connection] in
            for await line in lines {
                do { try await connection.write(line) } catch { connection.close() }
            }
        }
        Task { await self.readLoop() }
    }

    /// Sends `call` and waits for its result.
    /// - Returns: the `result` value of the response.
    /// - Throws: `ClientError.server` for an error response, `.connectionLost` when the connection ends first.
    public func call(_ call: MethodCall) async throws(ClientError) -> JSONValue {
        let (method, params) = call.request
        return try await send(method: method, params: params)
    }

    /// Sends any method with `params` (for tools and tests that speak raw JSON-RPC).
    public func send(method: String, params: JSONObject = JSONObject()) async throws(ClientError) -> JSONValue {
        try await send(method: method, params: params, whenSent: {})
    }

    /// `send(method:params:)`, calling `whenSent` once the request is queued to be written (or has failed before
    /// that), so that a caller can queue the next one behind it: requests leave in the order queued.
    func send(
        method: String, params: JSONObject, whenSent: @Sendable () -> Void
    ) async throws(ClientError) -> JSONValue {
        if let failure {
            whenSent()
            throw failure
        }
        let id = nextID
        nextID += 1
        var line = JSONWriter.encode(RPCRequest(id: .number(JSONNumber(Int(id))), method: method, params: params).json)
        line.append(0x0A)
        let response: RPCResponse
        do {
            response = try await withCheckedThrowingContinuation { continuation in
                waiters[id] = continuation
                if let replyTimeout { armTimer(for: id, method: method, after: replyTimeout, limit: replyTimeout) }
                outbox.yield(line)
                whenSent()
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .connectionLost("\(error)")
        }
        switch response.outcome {
        case .success(let result): return result
        case .failure(let error): throw .server(error)
        }
    }

    /// Checks on call `id` after `delay`.
    private func armTimer(for id: Int64, method: String, after delay: Duration, limit: Duration) {
        timers[id] = Task { [weak self] in
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { await self?.expire(id, method: method, limit: limit) }
        }
    }

    /// Call `id` is still waiting: if nothing was heard from the server for `limit`, that call and every other one
    /// fail; otherwise it waits until `limit` after the last bytes heard.
    private func expire(_ id: Int64, method: String, limit: Duration) {
        guard waiters[id] != nil else { return }
        if readerHeld { return armTimer(for: id, method: method, after: limit, limit: limit) }
        let silence = ContinuousClock.now - lastHeard
        guard silence >= limit else { return armTimer(for: id, method: method, after: limit - silence, limit: limit) }
        fail(.noReply(address, limit, method: method))
    }

    /// Closes the connection; pending calls fail with `connectionLost`.
    public func close() {
        outbox.finish()
        connection.close()
    }

    private func readLoop() async {
        // Replies have no size limit (a `list` of a large list): only a sanity bound.
        var framer = LineFramer(maxLineBytes: Self.maxReplyBytes)
        var reason = "the server closed the connection"
        reading: while true {
            let bytes: [UInt8]
            do {
                bytes = try await connection.read()
            } catch {
                reason = "\(error)"
                break
            }
            lastHeard = .now
            let events = bytes.isEmpty ? framer.finish() : framer.push(bytes)
            for event in events {
                guard case .line(let line) = event else {
                    reason = "an answer was longer than \(Self.maxReplyBytes) bytes"
                    break reading
                }
                handle(line)
            }
            if bytes.isEmpty || failure != nil { break }
            if pending.bytes > Self.maxBufferedNotificationBytes { await waitForRoom() }
        }
        fail(.connectionLost(reason))
    }

    /// Waits (the reader) until the consumer has taken notifications down to the limit, or the client failed.
    private func waitForRoom() async {
        readerHeld = true
        await withCheckedContinuation { roomWaiter = $0 }
        readerHeld = false
        lastHeard = .now
    }

    /// Hands over the oldest notification, waiting for one; `nil` once the connection has ended and none is left.
    /// One consumer at a time.
    private func nextNotification() async -> RPCRequest? {
        guard let notification = pending.removeFirst() else {
            if notificationsEnded { return nil }
            return await withCheckedContinuation { consumer = $0 }
        }
        if pending.bytes <= Self.maxBufferedNotificationBytes, let waiter = roomWaiter {
            roomWaiter = nil
            waiter.resume()
        }
        return notification
    }

    private func deliver(_ notification: RPCRequest, bytes: Int) {
        if let consumer {
            self.consumer = nil
            return consumer.resume(returning: notification)
        }
        pending.append(notification, bytes: bytes)
    }

    private func handle(_ line: ArraySlice<UInt8>) {
        // Whatever is not a JSON-RPC response or notification means the peer is not shelfd (an HTTP server, an SSH
        // banner): fail now rather than wait for an answer that will never come.
        guard let value = try? JSONParser.parse(line) else {
            fail(.protocolViolation("not JSON: \(Self.excerpt(line)) — is this a shelfd server?"))
            return
        }
        if case .object(let object) = value, object["id"] == nil, case .string(let method)? = object["method"] {
            deliver(RPCRequest(id: nil, method: method, params: object["params"]?.objectValue ?? JSONObject()), bytes: line.count)
            return
        }
        guard let response = RPCResponse(json: value) else {
            fail(.protocolViolation("not a JSON-RPC response: \(Self.excerpt(line))"))
            return
        }
        if response.id == .null, let oldest = waiters.keys.min(), let waiter = waiters.removeValue(forKey: oldest) {
            // An error the server could not tie to an id (a line it could not read) answers the oldest call:
            // replies come in request order.
            timers.removeValue(forKey: oldest)?.cancel()
            waiter.resume(returning: response)
            return
        }
        guard case .number(let number) = response.id, let id = number.int64, let waiter = waiters.removeValue(forKey: id)
        else {
            if response.id == .null, case .failure(let error) = response.outcome {
                // An error before any call, e.g. `7 too_many_connections` as the server closes the connection.
                fail(.server(error))
            } else {
                fail(.protocolViolation("a response to no request of ours (id \(response.id))"))
            }
            return
        }
        timers.removeValue(forKey: id)?.cancel()
        waiter.resume(returning: response)
    }

    /// The start of `line`, printable, for an error message.
    private static func excerpt(_ line: ArraySlice<UInt8>) -> String {
        let text = String(decoding: line.prefix(60), as: UTF8.self)
        let printable = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return "\"" + printable + (line.count > 60 ? "…" : "") + "\""
    }

    private func fail(_ error: ClientError) {
        failure = failure ?? error
        let waiting = waiters
        waiters.removeAll()
        for timer in timers.values { timer.cancel() }
        timers.removeAll()
        for waiter in waiting.values { waiter.resume(throwing: error) }
        notificationsEnded = true
        if let consumer {
            self.consumer = nil
            consumer.resume(returning: nil)
        }
        if let roomWaiter {
            self.roomWaiter = nil
            roomWaiter.resume()
        }
        outbox.finish()
        connection.close()
    }
}
