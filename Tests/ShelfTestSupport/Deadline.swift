import Testing

/// Thrown (after recording an issue) when an operation misses its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// The deadline that passed.
    public let limit: Duration

    /// An error for a deadline of `limit` that passed.
    public init(limit: Duration) {
        self.limit = limit
    }
    public var description: String { "operation did not finish within \(limit)" }
}

/// The value of `operation`, or `nil` when `limit` passes first; the operation is then cancelled and left behind,
/// so even one that ignores cancellation (a continuation nobody resumes) cannot hang the caller.
///
/// The one place the test suites race work against a clock: a deadline detects a failure (a reply that never
/// comes, a process that never exits); no test waits on time to order events.
/// - Throws: what `operation` throws.
public func result<T: Sendable>(
    within limit: Duration, of operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let (outcomes, continuation) = AsyncStream.makeStream(of: Result<T, any Error>?.self)
    let work = Task {
        do {
            continuation.yield(.success(try await operation()))
        } catch {
            continuation.yield(.failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: limit)
        continuation.yield(nil)
    }
    var iterator = outcomes.makeAsyncIterator()
    let first = await iterator.next() ?? nil
    timer.cancel()
    continuation.finish()
    guard let first else {
        work.cancel()
        return nil
    }
    return try first.get()
}

/// Runs `operation` within `seconds`; on timeout records a test issue, cancels the operation and throws
/// `DeadlineExceeded`. A guard against hangs, not a timing check: the default, 30 s, is wide because the whole suite
/// runs in parallel on 2 cores (with 10 s, an 8 MiB loopback transfer in a debug build failed on a loaded machine).
@discardableResult
public func withDeadline<T: Sendable>(
    seconds: Int = 30,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await result(within: .seconds(seconds), of: operation) else {
        Issue.record("timed out after \(seconds) s", sourceLocation: sourceLocation)
        throw DeadlineExceeded(limit: .seconds(seconds))
    }
    return value
}

/// Yields until `condition` holds (an in-memory state change made by another task); call inside `withDeadline`.
public func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    while !condition() {
        try Task.checkCancellation()
        await Task.yield()
    }
}
