import Glibc

/// Splits a byte stream into LF-terminated lines, handing over only each line's first bytes: enough to tell an
/// error or a notification apart, without copying a multi-megabyte reply.
///
/// A pure state machine: feed it whatever `read` returned, in order.
struct LineReplyFramer {
    /// How many bytes of each line are kept for inspection.
    static let prefixLimit = 160

    /// The start of a line that began in an earlier chunk and has not ended yet.
    private var pending: [UInt8] = []
    /// Whether the current line began in an earlier chunk (it may have been empty there: a lone CR is not).
    private var inLine = false

    init() {
        pending.reserveCapacity(Self.prefixLimit)
    }

    /// Finds the complete lines in `chunk`; calls `onLine` with the first bytes of each (without the LF).
    mutating func consume(_ chunk: UnsafeBufferPointer<UInt8>, onLine: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let base = chunk.baseAddress else { return }
        var position = 0
        while position < chunk.count {
            guard let found = memchr(base + position, 0x0A, chunk.count - position) else {
                keep(UnsafeBufferPointer(rebasing: chunk[position...]))
                return
            }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let piece = UnsafeBufferPointer(rebasing: chunk[position..<end])
            if inLine {
                keep(piece)
                pending.withUnsafeBufferPointer { onLine($0) }
                pending.removeAll(keepingCapacity: true)
                inLine = false
            } else {
                onLine(UnsafeBufferPointer(rebasing: piece.prefix(Self.prefixLimit)))
            }
            position = end + 1
        }
    }

    /// Counts the lines in `chunk`: how many, and how many of them are error replies.
    mutating func count(_ chunk: UnsafeBufferPointer<UInt8>) -> ReplyCount {
        var counted = ReplyCount()
        consume(chunk) { line in
            counted.replies += 1
            if ReplyLine.isError(line) { counted.errors += 1 }
        }
        return counted
    }

    private mutating func keep(_ piece: UnsafeBufferPointer<UInt8>) {
        inLine = true
        let room = Self.prefixLimit - pending.count
        if room > 0 { pending.append(contentsOf: piece.prefix(room)) }
    }
}

/// Replies found in one chunk.
struct ReplyCount: Equatable {
    var replies = 0
    var errors = 0
}
