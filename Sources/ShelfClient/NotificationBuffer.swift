import ShelfWire

/// Notifications the server sent that the consumer has not taken yet, oldest first, with the bytes of their lines:
/// the reader stops reading the socket while `bytes` is over its limit (`ShelfClient.maxBufferedNotificationBytes`).
struct NotificationBuffer {
    private var entries: [(notification: RPCRequest, bytes: Int)] = []
    private var head = 0
    /// The bytes of the lines of the notifications held.
    private(set) var bytes = 0

    /// True when nothing is held.
    var isEmpty: Bool { head == entries.count }

    /// Holds `notification`, whose line had `bytes` bytes.
    mutating func append(_ notification: RPCRequest, bytes: Int) {
        entries.append((notification, bytes))
        self.bytes += bytes
    }

    /// Takes the oldest notification, if any.
    mutating func removeFirst() -> RPCRequest? {
        guard head < entries.count else { return nil }
        let (notification, count) = entries[head]
        head += 1
        bytes -= count
        // Taken ones are dropped once they are half the array: a consumer that never quite catches up must not
        // keep every notification it ever took.
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return notification
    }

    /// How many are held (for tests).
    var count: Int { entries.count - head }

    /// The room the array keeps, taken ones included (for tests).
    var storedCount: Int { entries.count }
}
