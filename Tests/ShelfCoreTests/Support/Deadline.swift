import ShelfTestSupport

/// Waits for `task`, but at most `limit`: a request that is never answered fails the test instead of hanging the
/// run. The deadline is only a safety net; tests never wait on time to order events.
/// - Throws: `DeadlineExceeded` when `limit` passed first.
func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration = .seconds(10)) async throws -> T {
    guard let value = try await result(within: limit, of: { await task.value }) else {
        throw DeadlineExceeded(limit: limit)
    }
    return value
}
