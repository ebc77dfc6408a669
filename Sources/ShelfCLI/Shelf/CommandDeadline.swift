import Synchronization

/// Bounds one `shelf` command (`--timeout`): its status, or `nil` once `limit` passed first. The command is then
/// left running — a call waiting for a reply that never comes cannot be cancelled — and `shelf` exits without it.
enum CommandDeadline {
    static func status(
        within limit: Duration?, of command: @escaping @Sendable () async -> Int32
    ) async -> Int32? {
        guard let limit else { return await command() }
        let decided = Mutex(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            // Whichever finishes first answers; the other finds the answer given.
            let answer: @Sendable (Int32?) -> Void = { status in
                let first = decided.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: status) }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { answer(nil) }
            }
            Task {
                let status = await command()
                timer.cancel()
                answer(status)
            }
        }
    }
}
