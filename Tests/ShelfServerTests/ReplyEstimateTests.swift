import Foundation
import ShelfCore
@testable import ShelfServer
import Testing

/// `Session.estimatedReplyBytes`: what a change's reply is counted as in a batch, before the writer makes it.
@Suite struct ReplyEstimateTests {
    private static func outcome(title: String) -> Result<MutationResult, ReadingListError> {
        let item = Item(id: UUID(), title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1)
        return .success(MutationResult(revision: 1, item: item, id: item.id, change: nil))
    }

    /// Found by review: `"` and `\` are written as two bytes each, and were counted as one.
    @Test("the title counts as JSON: UTF-8 as is, two bytes for each quote and backslash; 256 bytes for the rest")
    func titleAsJSON() {
        #expect(Session.estimatedReplyBytes(Self.outcome(title: "Dune")) == 256 + 4)
        #expect(Session.estimatedReplyBytes(Self.outcome(title: #"a"b\c"#)) == 256 + 7)
        #expect(Session.estimatedReplyBytes(Self.outcome(title: "Café")) == 256 + 5)
        #expect(Session.estimatedReplyBytes(.failure(.conflict(current: 3))) == 256)
        #expect(Session.estimatedReplyBytes(nil) == 256)
    }
}
