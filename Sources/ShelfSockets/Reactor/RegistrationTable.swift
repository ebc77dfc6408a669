import CEpoll
import Synchronization

/// The reactor's id -> registration map, shared between registering tasks and the reactor thread.
final class RegistrationTable: Sendable {
    private struct State {
        var entries: [UInt64: Registration] = [:]
        var stopping = false
        var failure: SocketError?
    }

    private let state = Mutex(State())

    /// - Throws: the error that stopped the reactor loop, if it died.
    func insert(_ registration: Registration) throws(SocketError) {
        try state.withLock { state throws(SocketError) in
            if let failure = state.failure { throw failure }
            state.entries[registration.id] = registration
        }
    }

    func remove(id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Asks the reactor thread to exit at its next wakeup.
    func requestStop() {
        state.withLock { $0.stopping = true }
    }

    /// Reactor thread: looks up a batch of events under one lock.
    /// - Returns: whether the reactor should stop; `batch` receives the live registrations and their masks
    ///   (events for ids already removed are dropped).
    func collect(
        _ events: UnsafeMutableBufferPointer<epoll_event>,
        into batch: inout [(Registration, UInt32)]
    ) -> Bool {
        state.withLock { state in
            for event in events {
                let id = event.data.u64
                if let registration = state.entries[id] { batch.append((registration, event.events)) }
            }
            return state.stopping
        }
    }

    /// The reactor loop died with `failure`: closes every registration so pending operations throw
    /// `SocketError.closed` instead of hanging, and makes later registrations throw `failure`.
    func fail(_ failure: SocketError) {
        let all = state.withLock { state in
            state.failure = failure
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for registration in all { registration.close() }
    }
}
