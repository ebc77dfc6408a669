/// What `ReadingList.submit(_:expect:)` returns: the answer at once (nothing to save, or refused), or a ticket to
/// collect it with `ReadingList.answer(_:)`.
public enum Submission: Sendable {
    case answered(Result<MutationResult, ReadingListError>)
    case pending(ticket: UInt64)
}
