import Glibc

/// Counts complete RESP replies (Redis serialization protocol) in a byte stream: `+`, `-`, `:` lines, `$len` bulk
/// strings (payload skipped without scanning), `*count` arrays nested to any depth, and the RESP3 one-line types.
///
/// A pure state machine: feed it whatever `read` returned, in order.
struct RespReplyFramer {
    /// A frame this framer does not understand (the stream cannot be followed any further).
    struct MalformedReply: Error, CustomStringConvertible {
        let description: String
    }

    /// The longest header line accepted (`*100000`, `$12`, `-ERR …`).
    static let headerLimit = 64 * 1024

    /// Bytes of the current header line seen so far.
    private var header: [UInt8] = []
    /// Bulk-string bytes (payload plus CR LF) still to skip.
    private var skipping = 0
    /// Elements still owed by each open array, innermost last.
    private var owed: [Int] = []
    /// Whether the reply being read is (or contains) an error.
    private var replyHasError = false
    private var counted = ReplyCount()

    /// Counts the replies completed by `chunk`.
    /// - Throws: `MalformedReply` for an unknown type byte, a bad length or an over-long header.
    mutating func count(_ chunk: UnsafeBufferPointer<UInt8>) throws(MalformedReply) -> ReplyCount {
        counted = ReplyCount()
        guard let base = chunk.baseAddress else { return counted }
        var position = 0
        while position < chunk.count {
            if skipping > 0 {
                let taken = min(skipping, chunk.count - position)
                skipping -= taken
                position += taken
                if skipping == 0 { finishElement() }
                continue
            }
            guard let found = memchr(base + position, 0x0A, chunk.count - position) else {
                header.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[position...]))
                guard header.count <= Self.headerLimit else { throw MalformedReply(description: "header line too long") }
                return counted
            }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if header.isEmpty {
                try handleHeader(UnsafeBufferPointer(rebasing: chunk[position..<end]))
            } else {
                header.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[position..<end]))
                let line = header
                header.removeAll(keepingCapacity: true)
                try line.withUnsafeBufferPointer { line throws(MalformedReply) in try handleHeader(line) }
            }
            position = end + 1
        }
        return counted
    }

    /// One header line, LF removed (a CR before it is ignored).
    private mutating func handleHeader(_ line: UnsafeBufferPointer<UInt8>) throws(MalformedReply) {
        guard let type = line.first else { throw MalformedReply(description: "empty line where a RESP type was expected") }
        switch type {
        case UInt8(ascii: "+"), UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: ","), UInt8(ascii: "#"),
             UInt8(ascii: "("):
            finishElement()
        case UInt8(ascii: "-"):
            replyHasError = true
            finishElement()
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            let length = try Self.number(line)
            if length < 0 {
                finishElement()
            } else {
                skipping = length + 2
            }
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"), UInt8(ascii: "%"), UInt8(ascii: "|"):
            var count = try Self.number(line)
            if type == UInt8(ascii: "%") || type == UInt8(ascii: "|") { count *= 2 }
            if count <= 0 {
                finishElement()
            } else {
                owed.append(count)
            }
        default:
            throw MalformedReply(description: "unknown RESP type byte 0x\(String(type, radix: 16))")
        }
    }

    /// An element ended: it completes the innermost array's next slot, or the whole reply.
    private mutating func finishElement() {
        while let last = owed.indices.last {
            owed[last] -= 1
            if owed[last] > 0 { return }
            owed.removeLast()
        }
        counted.replies += 1
        if replyHasError { counted.errors += 1 }
        replyHasError = false
    }

    /// The signed decimal after the type byte, a trailing CR ignored.
    private static func number(_ line: UnsafeBufferPointer<UInt8>) throws(MalformedReply) -> Int {
        var index = 1
        var end = line.count
        if end > 1, line[end - 1] == 0x0D { end -= 1 }
        var negative = false
        if index < end, line[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < end, end - index <= 18 else { throw MalformedReply(description: "bad RESP length") }
        var value = 0
        while index < end {
            let digit = line[index]
            guard digit >= 0x30, digit <= 0x39 else { throw MalformedReply(description: "bad RESP length") }
            value = value * 10 + Int(digit - 0x30)
            index += 1
        }
        return negative ? -value : value
    }
}
