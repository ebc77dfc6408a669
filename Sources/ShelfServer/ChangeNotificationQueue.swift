import ShelfCore

/// The `changed` notifications a watching connection has not been sent yet, in revision order and bounded in bytes
/// (protocol/PROTOCOL.md §6): a live change is appended; a watch's backlog goes in by revision, before live changes
/// queued meanwhile. Past `maxBytes` the queue overflows: it is emptied for good and the connection is cut off as a
/// slow consumer. A pure state machine: no I/O, no locks.
struct ChangeNotificationQueue {
    private var lines: [(revision: Revision, line: [UInt8])] = []
    private var head = 0
    /// The most bytes queued at once.
    let maxBytes: Int
    /// Bytes queued now.
    private(set) var bytes = 0
    /// The highest revision ever queued (0 before any): every change up to it that this connection watched for
    /// was handed to it, so a backlog that starts below it would send a change twice.
    private(set) var lastQueuedRevision: Revision = 0
    /// True once it overflowed; it takes nothing after.
    private(set) var overflowed = false

    /// The most lines' room an emptied queue keeps.
    static let keptCapacity = 64

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    var isEmpty: Bool { head == lines.count }

    /// How many more bytes of backlog may be queued now: up to half of `maxBytes` in all, so that the changes made
    /// while a backlog goes out still have room.
    var backlogRoom: Int { overflowed ? 0 : max(0, maxBytes / 2 - bytes) }

    /// Queues a live change's line.
    /// - Returns: false when it would pass `maxBytes` (or `admitted` is false: the server's memory ceiling refused
    ///   it): the queue has overflowed, and what it held is dropped (`bytes` is then 0).
    mutating func append(revision: Revision, line: [UInt8], admitted: Bool = true) -> Bool {
        guard !overflowed else { return false }
        guard admitted, bytes + line.count <= maxBytes else {
            overflowed = true
            lines = []
            head = 0
            bytes = 0
            return false
        }
        lines.append((revision, line))
        bytes += line.count
        lastQueuedRevision = max(lastQueuedRevision, revision)
        return true
    }

    /// Queues a watch's backlog (in revision order) ahead of the live changes queued after it began. The caller
    /// checks it against `backlogRoom` first, by a low estimate made before it is encoded; this checks it encoded.
    /// - Returns: false, queuing nothing, when it does not fit in `backlogRoom` (protocol/PROTOCOL.md §6: half of
    ///   `maxBytes` with what is queued).
    mutating func insertBacklog(_ backlog: [(revision: Revision, line: [UInt8])]) -> Bool {
        let size = backlog.reduce(0) { $0 + $1.line.count }
        guard !overflowed, size <= backlogRoom else { return false }
        guard let first = backlog.first else { return true }
        var at = head
        while at < lines.count, lines[at].revision < first.revision { at += 1 }
        lines.insert(contentsOf: backlog, at: at)
        bytes += size
        lastQueuedRevision = max(lastQueuedRevision, backlog.last?.revision ?? 0)
        return true
    }

    /// Appends to `out` and removes the queued lines with revision up to `revision` (all of them for `nil`,
    /// meaning no reply waits: nothing can be overtaken).
    mutating func take(upTo revision: Revision?, into out: inout [UInt8]) {
        while head < lines.count, revision.map({ lines[head].revision <= $0 }) ?? true {
            out.append(contentsOf: lines[head].line)
            bytes -= lines[head].line.count
            lines[head].line = []
            head += 1
        }
        if head == lines.count {
            lines.removeAll(keepingCapacity: lines.capacity <= Self.keptCapacity)
            head = 0
        } else if head > 64, head * 2 > lines.count {
            lines.removeFirst(head)
            head = 0
        }
    }
}
