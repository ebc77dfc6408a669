/// What `ReadingList.submit(_:expect:)` returns: the answer at once (nothing to save, or refused), or a ticket to
/// collect it with `ReadingList.answer(_:)`.
public enum Submission: Sendable {
    /// The answer is known now.
    case answered(Result<MutationResult, ReadingListError>)
    /// The change is being saved: collect the answer with `ReadingList.answer(ticket)`.
    case pending(ticket: UInt64)
}
