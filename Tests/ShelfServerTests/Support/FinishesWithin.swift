/// Whether `operation` finishes within `seconds`. Unlike `withDeadline`, this returns even when `operation` awaits
/// something that ignores cancellation (a continuation nobody resumes): the operation's task is then left behind.
/// Use it only where a hang is the failure being tested for; the bound is a failure detector, not synchronisation.
func finishesWithin(seconds: Int, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    let (outcomes, continuation) = AsyncStream.makeStream(of: Bool.self)
    let work = Task {
        await operation()
        continuation.yield(true)
    }
    let timer = Task {
        try? await Task.sleep(for: .seconds(seconds))
        continuation.yield(false)
    }
    var iterator = outcomes.makeAsyncIterator()
    let finished = await iterator.next() ?? false
    timer.cancel()
    continuation.finish()
    if !finished { work.cancel() }
    return finished
}
