import ShelfWire

extension RepositoryError {
    /// The view's terms for a refusal on the wire (protocol/PROTOCOL.md §8): a conflict keeps the item's revision.
    init(_ error: RPCError) {
        switch error.knownCode {
        case .conflict:
            self = .conflict(message: error.message, itemRevision: error.data["itemRevision"]?.numberValue?.uint64)
        case .compacted:
            self = .compacted(error.message)
        default:
            self = .refused(error.message)
        }
    }
}
