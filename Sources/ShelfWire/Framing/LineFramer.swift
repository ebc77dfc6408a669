import Glibc

/// Splits a byte stream into LF-terminated lines; a pure state machine with no I/O.
///
/// Rules, in order:
/// - A UTF-8 byte order mark (`EF BB BF`) at the very start of the stream is skipped, even when split across
///   chunks; a BOM anywhere later is ordinary data.
/// - A line ends at LF (0x0A). One CR (0x0D) immediately before the LF is dropped, even when the CR and the LF
///   arrive in different chunks. A CR anywhere else is part of the line.
/// - Lines that are empty or only spaces and tabs (after the CR drop) produce no event: people press Enter
///   in netcat.
/// - A line longer than `maxLineBytes` (not counting the LF and the dropped CR) produces exactly one
///   ``Event/tooLong(limit:)`` as soon as more than `maxLineBytes` of it have arrived, without waiting for its
///   LF; everything up to and including the next LF is then discarded and framing resumes. A line of exactly
///   `maxLineBytes` is delivered.
///
/// - With `answersTelnet`, telnet commands (RFC 854: IAC 0xFF and a command byte; IAC WILL/WONT/DO/DONT and an
///   option byte; IAC SB … IAC SE) are taken out of the stream wherever they occur, before the rules above, and
///   each `DO x` is refused with `WONT x` and each `WILL x` with `DONT x` (RFC 855), as a ``Event/telnetReply(_:)``
///   in stream order. IAC IAC, and an IAC before a byte that starts no command, stay a data byte 0xFF (so that
///   line is invalid UTF-8). 0xFF never occurs in UTF-8, so no valid line is changed (protocol/PROTOCOL.md §1).
///
/// Each byte is scanned once for LF (and, with `answersTelnet`, once more for IAC, by `memchr`), however the stream
/// is chunked, and at most `maxLineBytes + 1` bytes of an unfinished line are buffered (plus the caller's chunk
/// while it is being processed).
public struct LineFramer: Sendable {
    /// The default line limit: 1 MiB (1,048,576 bytes).
    public static let defaultMaxLineBytes = 1_048_576

    /// Something the framer found in the stream.
    public enum Event: Sendable, Equatable {
        /// A complete line: without its LF and without a CR just before the LF. Never empty, never only
        /// spaces and tabs. A line that arrived whole in one pushed array is a slice of that array (sharing its
        /// storage, no copy; its indices are that array's, so they need not start at 0); one that spanned pushes
        /// is a slice of its own array.
        /// - Important: a line kept keeps the whole pushed array alive (up to a socket read, 64 KiB): copy what
        ///   must outlive its handling.
        case line(ArraySlice<UInt8>)
        /// A line exceeded `limit` bytes; its bytes up to the next LF are discarded.
        case tooLong(limit: Int)
        /// Bytes to send back as they are: telnet refusals, `FF FC x` (WONT) for `DO x` and `FF FE x` (DONT) for
        /// `WILL x`, three bytes each (RFC 854, RFC 855). Only with `answersTelnet`.
        case telnetReply([UInt8])
    }

    /// The most bytes a line may have, excluding its LF and a dropped CR. It may be raised between reads (a
    /// server lets a connection send longer lines once it has authenticated); the unfinished line keeps counting.
    public var maxLineBytes: Int {
        didSet { maxLineBytes = max(0, maxLineBytes) }
    }
    /// Whether telnet commands are taken out of the stream and answered (a server's side); otherwise 0xFF is data.
    public let answersTelnet: Bool

    /// The start of an unfinished line (never contains an LF; at most `maxLineBytes + 1` bytes, the extra
    /// one being a CR that may yet be dropped).
    private var buffer: [UInt8] = []
    /// True after a `.tooLong` until the LF that ends the offending line.
    private var discarding = false
    /// True until the stream has shown whether it starts with a BOM.
    private var atStreamStart = true
    /// How many bytes of a possible leading BOM have been seen (and held back) so far.
    private var bomBytesMatched = 0

    /// Where the stream is in a telnet command (only with `answersTelnet`).
    var telnet = TelnetState.data

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Creates a framer.
    /// - Parameters:
    ///   - maxLineBytes: the longest line delivered, in bytes (excluding the LF and a dropped CR); values below 0
    ///     are treated as 0.
    ///   - answersTelnet: take telnet commands out of the stream and refuse every option (a server reading
    ///     people's `telnet`); a client reading a server leaves it off.
    public init(maxLineBytes: Int = LineFramer.defaultMaxLineBytes, answersTelnet: Bool = false) {
        self.maxLineBytes = max(0, maxLineBytes)
        self.answersTelnet = answersTelnet
    }

    /// Bytes currently held for an unfinished line (including held-back BOM bytes), for memory accounting.
    public var bufferedByteCount: Int {
        buffer.count + bomBytesMatched
    }

    /// Feeds bytes read from the socket.
    /// - Parameter chunk: the next bytes of the stream, any size (empty is fine).
    /// - Returns: the events completed by these bytes, in stream order.
    public mutating func push(_ chunk: some Collection<UInt8>) -> [Event] {
        var events: [Event] = []
        push(chunk, into: &events)
        return events
    }

    /// Feeds bytes read from the socket, appending the events they complete to `events` (a reader that keeps
    /// one array and empties it, keeping its capacity, allocates none for it per read). Any collection but an
    /// array is first copied into one, whose slices the lines are.
    public mutating func push(_ chunk: some Collection<UInt8>, into events: inout [Event]) {
        push(Array(chunk), into: &events)
    }

    /// `push(_:into:)` for an array, what a socket read returns: each line that lies whole in `chunk` is a slice of
    /// it, so a line costs no allocation and no copy.
    public mutating func push(_ chunk: [UInt8], into events: inout [Event]) {
        chunk.withUnsafeBufferPointer { bytes in
            if answersTelnet && hasTelnetWork(in: bytes) {
                consumeTelnet(bytes, of: chunk, into: &events)
            } else {
                consume(bytes, 0..<bytes.count, of: chunk, into: &events)
            }
        }
    }

    /// The peer closed its side.
    ///
    /// - Returns: the final line if it had no LF, processed like any line (a trailing CR is dropped, blank
    ///   lines produce nothing, and an over-long line was already reported); otherwise `[]`.
    ///   Afterwards the framer is empty; later pushes continue as a new line (without BOM detection).
    public mutating func finish() -> [Event] {
        var events: [Event] = []
        if answersTelnet { finishTelnet(into: &events) }
        if atStreamStart {
            atStreamStart = false
            releaseHeldBOMBytes(into: &events)
        }
        if discarding {
            discarding = false
            buffer = []
            return events
        }
        if !buffer.isEmpty {
            var line: [UInt8] = []
            swap(&line, &buffer)
            deliver(line[...], into: &events)
        }
        return events
    }

    // MARK: - Private

    /// Applies the line rules to `bytes[range]`. `bytes` is `chunk`'s storage: a line found whole in the range is
    /// delivered as a slice of `chunk`.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, of chunk: [UInt8], into events: inout [Event]) {
        var i = range.lowerBound
        let end = range.upperBound
        if atStreamStart {
            while i < end {
                if bytes[i] == Self.byteOrderMark[bomBytesMatched] {
                    bomBytesMatched += 1
                    i += 1
                    if bomBytesMatched == Self.byteOrderMark.count {
                        bomBytesMatched = 0
                        atStreamStart = false
                        break
                    }
                } else {
                    atStreamStart = false
                    releaseHeldBOMBytes(into: &events)
                    break
                }
            }
        }
        while i < end {
            let lineFeed = firstLineFeed(in: bytes, from: i, to: end)
            if discarding {
                guard let lineFeed else { return }
                discarding = false
                i = lineFeed + 1
                continue
            }
            guard let lineFeed else {
                appendPartial(UnsafeBufferPointer(rebasing: bytes[i..<end]), into: &events)
                return
            }
            let segment = UnsafeBufferPointer(rebasing: bytes[i..<lineFeed])
            let start = i
            i = lineFeed + 1
            if buffer.isEmpty {
                deliver(chunk[start..<lineFeed], into: &events)
            } else if exceedsLimit(buffer.count + segment.count, lastByte: segment.last ?? buffer.last) {
                buffer = []
                events.append(.tooLong(limit: maxLineBytes))
            } else {
                buffer.append(contentsOf: segment)
                var line: [UInt8] = []
                swap(&line, &buffer)
                deliver(line[...], into: &events)
            }
        }
    }

    /// Buffers the LF-free tail of a chunk, reporting `.tooLong` (and discarding) once the line is too long.
    private mutating func appendPartial(_ bytes: UnsafeBufferPointer<UInt8>, into events: inout [Event]) {
        guard !bytes.isEmpty else { return }
        let total = buffer.count + bytes.count
        // A CR just past the limit may still be dropped by the LF that follows, so wait for one more byte.
        if total > maxLineBytes + 1 || (total == maxLineBytes + 1 && bytes.last != 0x0D) {
            buffer = []
            discarding = true
            events.append(.tooLong(limit: maxLineBytes))
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Puts BOM bytes that turned out not to be a BOM back into the stream as line data.
    private mutating func releaseHeldBOMBytes(into events: inout [Event]) {
        let held = bomBytesMatched
        bomBytesMatched = 0
        guard held > 0 else { return }
        Self.byteOrderMark.withUnsafeBufferPointer { bom in
            appendPartial(UnsafeBufferPointer(rebasing: bom[..<held]), into: &events)
        }
    }

    /// Emits a line that ended (at an LF or at the end of the stream), applying the CR, blank and length rules.
    private func deliver(_ line: ArraySlice<UInt8>, into events: inout [Event]) {
        var content = line
        if content.last == 0x0D { content = content.dropLast() }
        if content.count > maxLineBytes {
            events.append(.tooLong(limit: maxLineBytes))
            return
        }
        guard content.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        events.append(.line(content))
    }

    /// True if a line of `length` bytes ending in `lastByte` is over the limit once a trailing CR is dropped.
    private func exceedsLimit(_ length: Int, lastByte: UInt8?) -> Bool {
        (lastByte == 0x0D ? length - 1 : length) > maxLineBytes
    }

    private func firstLineFeed(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        // memchr scans a word or a vector at a time; every request line is searched once.
        guard start < end, let base = bytes.baseAddress,
              let found = memchr(base + start, 0x0A, end - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}
