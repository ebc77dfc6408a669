/// Takes the answer to one submitted request when the `ReadingList` knows it (`ReadingList.whenAnswered`).
///
/// An object rather than a closure so that a receiver that lives longer than one request (a connection's session)
/// costs no allocation per request: a closure that carries the request's details allocates a context each time.
public protocol AnswerReceiver: AnyObject, Sendable {
    /// Called once with the answer: on the list's actor after the request's change (and every change submitted
    /// before it) was saved and published, or after a failed save rolled it back; at once, on the caller's thread,
    /// when `whenAnswered` is given a submission already answered. Must not block: it runs while the list publishes.
    /// - Parameter ticket: the request's ticket (`Submission.pending`), so one receiver can serve many requests.
    func receive(_ outcome: Result<MutationResult, ReadingListError>, ticket: UInt64)
}
