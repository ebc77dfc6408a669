/// The reactor's timers: a min-heap of deadlines whose earliest sets the `epoll_wait` timeout (as SwiftNIO's event
/// loops schedule tasks). A pure structure with no I/O or locking; `ReactorJobQueue` guards it.
///
/// Cancelling removes a timer's action at once (so what it captured is freed) and leaves its heap entry to be
/// skipped when it comes up.
struct ReactorTimers {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: @Sendable () -> Void] = [:]
    private var lastID: UInt64 = 0

    /// Timers scheduled and neither fired nor cancelled.
    var count: Int { actions.count }

    /// Schedules `action` for `deadline`.
    /// - Returns: the timer's id, for `cancel(_:)`.
    mutating func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        lastID += 1
        actions[lastID] = action
        heap.append(Entry(deadline: deadline, id: lastID))
        siftUp(heap.count - 1)
        return lastID
    }

    /// Drops the timer `id` if it has not fired. Returns whether it was still pending.
    @discardableResult
    mutating func cancel(_ id: UInt64) -> Bool {
        guard actions.removeValue(forKey: id) != nil else { return false }
        // Cancelled entries wait in the heap for their deadline (a write timeout's is 60 s away): once they
        // outnumber the live ones by far, the heap is rebuilt from the live ones, so it stays O(live timers).
        if heap.count > 2 * actions.count + 1024 { rebuild() }
        return true
    }

    /// The heap of the pending timers only (Floyd's bottom-up construction, O(n)).
    private mutating func rebuild() {
        heap.removeAll { actions[$0.id] == nil }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// Entries in the heap, skipped ones included (for tests).
    var heapCount: Int { heap.count }

    /// The earliest deadline of a pending timer, if any (skipped entries of cancelled timers are dropped on the way).
    mutating func earliest() -> ContinuousClock.Instant? {
        while let top = heap.first {
            if actions[top.id] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns, in deadline order, the actions of the timers due at `now`.
    mutating func takeDue(at now: ContinuousClock.Instant) -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        // A heap emptied after a burst of timers does not keep its storage.
        if heap.isEmpty, heap.capacity > 1024 { heap = [] }
        return due
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].deadline < heap[left].deadline { smallest = left + 1 }
            guard heap[smallest].deadline < heap[parent].deadline else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
