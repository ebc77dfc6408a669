import Synchronization

/// Thrown by `value(of: _:within:)` when a task did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "task did not finish within \(limit)" }
}

/// A continuation that is resumed at most once, by whichever caller comes first.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}

/// Waits for `task`, but at most `limit`: a request that is never answered fails the test instead of hanging the
/// run. The deadline is only a safety net; tests never wait on time to order events.
func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration = .seconds(10)) async throws -> T {
    let value: T? = await withCheckedContinuation { continuation in
        let answer = FirstAnswer<T?>(continuation)
        Task { answer.resume(returning: await task.value) }
        Task {
            try? await Task.sleep(for: limit)
            answer.resume(returning: nil)
        }
    }
    guard let value else { throw DeadlineExceeded(limit: limit) }
    return value
}
