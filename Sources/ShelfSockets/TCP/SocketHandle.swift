import Glibc
import Synchronization

/// Owns a file descriptor shared by concurrent tasks and guarantees it is closed exactly once, and never while a
/// syscall on it is in flight (so a concurrent `close()` cannot make a read hit a reused fd number).
final class SocketHandle: Sendable {
    private struct State {
        var fd: Int32
        var users = 0
        var closing = false
    }

    private let state: Mutex<State>

    /// Takes ownership of `fd`.
    init(fd: Int32) {
        state = Mutex(State(fd: fd))
    }

    /// Runs `body` with the descriptor, which stays open until `body` returns.
    /// - Throws: `SocketError.closed` once `close` has been called; otherwise whatever `body` throws.
    func withDescriptor<R>(_ body: (Int32) throws(SocketError) -> R) throws(SocketError) -> R {
        let fd = try state.withLock { state throws(SocketError) -> Int32 in
            guard !state.closing else { throw SocketError.closed }
            state.users += 1
            return state.fd
        }
        defer { release() }
        return try body(fd)
    }

    /// Starts closing (idempotent): later `withDescriptor` calls throw `.closed`; `beforeClose` runs once with the
    /// still-open descriptor (deregister it there); the fd is closed when the last in-flight syscall returns.
    func close(_ beforeClose: (Int32) -> Void) {
        let fd = state.withLock { state -> Int32? in
            guard !state.closing else { return nil }
            state.closing = true
            state.users += 1
            return state.fd
        }
        guard let fd else { return }
        beforeClose(fd)
        release()
    }

    private func release() {
        let fdToClose = state.withLock { state -> Int32? in
            state.users -= 1
            guard state.closing, state.users == 0, state.fd >= 0 else { return nil }
            defer { state.fd = -1 }
            return state.fd
        }
        if let fdToClose { _ = Glibc.close(fdToClose) }
    }
}
