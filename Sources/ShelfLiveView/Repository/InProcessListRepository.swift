import Foundation
import ShelfCore
import ShelfWire
import Synchronization

/// A `ListRepository` over a `ReadingList` in this process (tests: a memory store that fails on demand, injected
/// ids and clock). `goAway()` plays a server that went away, `comeBack(identity:)` one that is back.
public final class InProcessListRepository: ListRepository {
    private struct State {
        var identity: String?
        var available = true
        /// The watch's stream and its subscription, while one runs.
        var watch: (sink: AsyncStream<RepositoryEvent>.Continuation, token: UInt64)?
    }

    private let list: ReadingList
    private let state: Mutex<State>

    /// A repository over `list`, whose run is `identity`.
    public init(_ list: ReadingList, identity: String? = "in-process") {
        self.list = list
        state = Mutex(State(identity: identity))
    }

    /// `ListRepository.connect()`.
    public func connect() async throws(RepositoryError) -> String? {
        try state.withLock { state throws(RepositoryError) in
            guard state.available else { throw .unavailable("the list is away") }
            return state.identity
        }
    }

    /// `ListRepository.list()`.
    public func list() async throws(RepositoryError) -> (revision: Revision, items: [Item]) {
        try checkAvailable()
        let snapshot = await list.snapshot()
        return (snapshot.revision, snapshot.items.items)
    }

    /// `ListRepository.watch(since:)`.
    public func watch(since: Revision) async throws(RepositoryError) -> AsyncStream<RepositoryEvent> {
        try checkAvailable()
        let (stream, sink) = AsyncStream.makeStream(of: RepositoryEvent.self)
        // Changes published before `watch` registers are in its backlog: the handler forwards only after it.
        let registered = Mutex(false)
        let token = await list.subscribe { change in
            if registered.withLock({ $0 }) { sink.yield(.changed(change)) }
        }
        do {
            try await list.watch(since: since) { backlog, _ in
                for change in backlog { sink.yield(.changed(change)) }
                registered.withLock { $0 = true }
            }
        } catch {
            await list.unsubscribe(token)
            throw .compacted(error.description)
        }
        let earlier = state.withLock { state in
            defer { state.watch = (sink, token) }
            return state.watch
        }
        if let earlier { await end(earlier) }
        return stream
    }

    /// `ListRepository.apply(_:expectItem:)`.
    public func apply(_ mutation: Mutation, expectItem: Revision?) async throws(RepositoryError) -> SaveResult {
        try checkAvailable()
        do {
            let result = try await list.apply(mutation, expectItem: expectItem)
            return SaveResult(revision: result.revision, itemID: result.item?.id)
        } catch {
            throw RepositoryError(RPCError(error))
        }
    }

    /// `ListRepository.disconnect()`.
    public func disconnect() async {
        if let watch = state.withLock({ state in defer { state.watch = nil }; return state.watch }) { await end(watch) }
    }

    /// Plays a server gone away: the watch ends and every call fails until `comeBack(identity:)`.
    public func goAway() async {
        state.withLock { $0.available = false }
        await disconnect()
    }

    /// Plays the server back, as the run `identity` (another one: a restart; the list may differ).
    public func comeBack(identity: String?) {
        state.withLock { state in
            state.available = true
            state.identity = identity
        }
    }

    private func checkAvailable() throws(RepositoryError) {
        guard state.withLock({ $0.available }) else { throw .unavailable("the list is away") }
    }

    private func end(_ watch: (sink: AsyncStream<RepositoryEvent>.Continuation, token: UInt64)) async {
        await list.unsubscribe(watch.token)
        watch.sink.finish()
    }
}
