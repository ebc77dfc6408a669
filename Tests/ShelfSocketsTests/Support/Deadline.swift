import Testing

/// Thrown (after recording an issue) when an operation misses its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "operation did not finish within \(seconds) s" }
}

/// Runs `operation`, racing it against a timeout; on timeout records a test issue, cancels the operation and throws.
@discardableResult
func withDeadline<T: Sendable>(
    seconds: Int = 10,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            Issue.record("timed out after \(seconds) s", sourceLocation: sourceLocation)
            throw DeadlineExceeded(seconds: seconds)
        }
        return value
    }
}

/// Yields until `condition` holds (an in-memory state change made by another task); call inside `withDeadline`.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    while !condition() {
        try Task.checkCancellation()
        await Task.yield()
    }
}
