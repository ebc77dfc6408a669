/// Work to run on the loop thread when the current round of the event loop is over
/// (`ReactorExecutor.afterRound(_:)`): for instance, one connection's replies of that round, written together.
public protocol RoundEndWork: Sendable {
    /// Runs the work, on the loop thread, after the round's jobs. Must not block.
    func roundEnded()
}
