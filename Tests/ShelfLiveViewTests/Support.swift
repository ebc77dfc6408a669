import Foundation
import ShelfCore
import ShelfLiveView
import ShelfTestSupport
import Synchronization
import Testing

/// Ids 00000000-0000-4000-8000-00000000000N, in order.
final class CountingIDs: Sendable {
    private let next = Mutex(0)

    static func id(_ n: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n)) ?? UUID()
    }

    func callAsFunction() -> UUID {
        Self.id(next.withLock { $0 += 1; return $0 })
    }
}

/// The injected clock: always 2026-12-01T12:00:00Z.
let fixedDate = Date(timeIntervalSince1970: 1_796_126_400)

/// An item made directly, for the pure model tests.
func item(_ n: Int, _ title: String, revision: Revision, isRead: Bool = false, tags: [String] = []) -> Item {
    Item(id: CountingIDs.id(n), title: title, isRead: isRead, addedAt: fixedDate, revision: revision, tags: tags)
}

/// A driver over an in-process list whose published models a test can wait on.
struct Rig {
    let store: MemoryListStore
    let list: ReadingList
    let repository: InProcessListRepository
    let driver: LiveViewDriver
    let states: AsyncStream<ListViewModel>
    let running: Task<Void, Never>

    static func make(initial titles: [String] = []) async throws -> Rig {
        let store = MemoryListStore()
        let ids = CountingIDs()
        let list = try await ReadingList(store: store, now: { fixedDate }, newID: { ids() })
        for title in titles { _ = try await list.apply(.add(title: title)) }
        let repository = InProcessListRepository(list)
        let (states, sink) = AsyncStream.makeStream(of: ListViewModel.self)
        let driver = LiveViewDriver(repository: repository) { sink.yield($0) }
        let running = Task { await driver.run() }
        return Rig(store: store, list: list, repository: repository, driver: driver, states: states, running: running)
    }

    /// The first published model (from now on) that passes `condition`, within a deadline.
    @discardableResult
    func until(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (ListViewModel) -> Bool
    ) async throws -> ListViewModel {
        let current = await driver.state
        if condition(current) { return current }
        let states = states
        return try await withDeadline(seconds: 10, sourceLocation: sourceLocation) {
            for await state in states where condition(state) { return state }
            throw DeadlineExceeded(limit: .seconds(0))
        }
    }

    /// Types `text` one character at a time.
    func type(_ text: String) async {
        for character in text { await driver.press(.character(character)) }
    }

    func stop() {
        running.cancel()
    }
}
