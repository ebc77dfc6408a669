/// A receiver that calls a closure (`ReadingList.whenAnswered(_:_:)` with a closure; `answer(_:)`'s continuation).
final class ClosureReceiver: AnswerReceiver {
    private let body: @Sendable (Result<MutationResult, ReadingListError>) -> Void

    init(_ body: @escaping @Sendable (Result<MutationResult, ReadingListError>) -> Void) {
        self.body = body
    }

    func receive(_ outcome: Result<MutationResult, ReadingListError>, ticket: UInt64) { body(outcome) }
}
