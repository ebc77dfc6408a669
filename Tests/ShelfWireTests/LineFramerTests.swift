import ShelfTestSupport
import Testing
import ShelfWire

private typealias Event = LineFramer.Event

private func line(_ text: String) -> Event {
    .line(Array(text.utf8)[...])
}

private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

/// Feeds `chunks` one after another, then finishes.
private func frame(_ chunks: [[UInt8]], maxLineBytes: Int = LineFramer.defaultMaxLineBytes) -> [Event] {
    var framer = LineFramer(maxLineBytes: maxLineBytes)
    var events: [Event] = []
    for chunk in chunks {
        events += framer.push(chunk)
    }
    return events + framer.finish()
}

/// The framing rules applied to a whole stream at once, written as plainly as possible.
private func referenceFrame(_ stream: [UInt8], maxLineBytes: Int) -> [Event] {
    var bytes = stream[...]
    if bytes.starts(with: bom) { bytes = bytes.dropFirst(3) }
    var events: [Event] = []
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if bytes.last == 0x0A || bytes.isEmpty { lines.removeLast() }
    for var content in lines {
        if content.last == 0x0D { content = content.dropLast() }
        if content.count > maxLineBytes {
            events.append(.tooLong(limit: maxLineBytes))
        } else if content.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
            events.append(.line(Array(content)[...]))
        }
    }
    return events
}

/// A stream exercising every rule with an 8-byte limit: BOM, CRLF, blank lines, a lone CR, an over-long line,
/// a line of exactly the limit (also with CRLF), a later BOM and a final line without LF.
private let mixedStream: [UInt8] = bom + Array("""
    {"a":1}\r
    \r
      \t
    x\ry
    this line is far too long\r
    12345678
    12345678\r
    ok

    """.utf8) + bom + Array("z\n \t\r\nlast\r".utf8)

private let mixedStreamEvents: [Event] = [
    line(#"{"a":1}"#), line("x\ry"), .tooLong(limit: 8), line("12345678"), line("12345678"), line("ok"),
    .line((bom + Array("z".utf8))[...]), line("last"),
]

struct LineFramerTests {
    @Test func theMixedStreamFramesAsExpectedInOnePush() {
        #expect(frame([mixedStream], maxLineBytes: 8) == mixedStreamEvents)
        #expect(referenceFrame(mixedStream, maxLineBytes: 8) == mixedStreamEvents)
    }

    @Test func splittingAtAnyTwoByteBoundariesGivesTheSameEvents() {
        let bytes = mixedStream
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let chunks = [Array(bytes[..<first]), Array(bytes[first..<second]), Array(bytes[second...])]
                let events = frame(chunks, maxLineBytes: 8)
                #expect(events == mixedStreamEvents, "split at \(first) and \(second)")
                if events != mixedStreamEvents { return }
            }
        }
    }

    @Test func feedingOneByteAtATimeGivesTheSameEvents() {
        #expect(frame(mixedStream.map { [$0] }, maxLineBytes: 8) == mixedStreamEvents)
    }

    @Test(arguments: 1...40)
    func randomStreamsAndChunkingsMatchTheReferenceRules(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let alphabet: [UInt8] = [0x61, 0x62, 0x20, 0x09, 0x0D, 0x0A, 0x0A, 0xEF, 0xBB, 0xBF]
        let limit = Int.random(in: 0...6, using: &random)
        let length = Int.random(in: 0...60, using: &random)
        var stream = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0x61 }
        if Bool.random(using: &random) { stream = Array(bom.prefix(Int.random(in: 1...3, using: &random))) + stream }
        var chunks: [[UInt8]] = []
        var rest = stream[...]
        while !rest.isEmpty {
            let size = Int.random(in: 0...5, using: &random)
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        #expect(frame(chunks, maxLineBytes: limit) == referenceFrame(stream, maxLineBytes: limit),
                "stream \(stream), limit \(limit)")
    }

    @Test func severalLinesInOneChunkComeOutInOrder() {
        var framer = LineFramer()
        #expect(framer.push(Array("a\nbb\nccc\n".utf8)) == [line("a"), line("bb"), line("ccc")])
        #expect(framer.finish() == [])
    }

    @Test func pushingIntoAnArrayAppendsAfterWhatItHolds() {
        var framer = LineFramer()
        var events: [LineFramer.Event] = [line("kept")]
        framer.push(Array("a\nb".utf8), into: &events)
        framer.push(Array("b\n".utf8), into: &events)
        #expect(events == [line("kept"), line("a"), line("bb")])
    }

    @Test func aLineWholeInOnePushIsASliceOfThatArrayNotACopy() throws {
        var framer = LineFramer()
        let chunk = Array("ab\r\ncd\nef".utf8)
        var events: [Event] = []
        framer.push(chunk, into: &events)
        framer.push(Array("g\n".utf8), into: &events)
        #expect(events == [line("ab"), line("cd"), line("efg")])
        let chunkBase = chunk.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let starts = events.map { event -> UInt in
            guard case .line(let bytes) = event else { return 0 }
            return bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        }
        // The first two point into the pushed array (at offsets 0 and 4); the third, which spanned two pushes, lies
        // outside it.
        #expect(starts[0] == chunkBase)
        #expect(starts[1] == chunkBase + 4)
        #expect(!(chunkBase..<chunkBase + UInt(chunk.count)).contains(starts[2]))
    }

    @Test func aLineIsDeliveredAsSoonAsItsLineFeedArrives() {
        var framer = LineFramer()
        #expect(framer.push(Array("{\"id\"".utf8)) == [])
        #expect(framer.push(Array(":1}".utf8)) == [])
        #expect(framer.push(Array("\n{".utf8)) == [line(#"{"id":1}"#)])
        #expect(framer.bufferedByteCount == 1)
    }

    @Test func crlfEndsALineWithoutTheCR() {
        #expect(frame([Array("a\r\nb\r\n".utf8)]) == [line("a"), line("b")])
    }

    @Test func crAndLFInSeparateChunksStillDropTheCR() {
        var framer = LineFramer()
        #expect(framer.push(Array("abc\r".utf8)) == [])
        #expect(framer.push([0x0A]) == [line("abc")])
        #expect(framer.push(Array("\r".utf8)) == [])
        #expect(framer.push(Array("\nx\r".utf8)) == [])
        #expect(framer.push(Array("\n".utf8)) == [line("x")])
    }

    @Test func onlyOneCRIsDropped() {
        #expect(frame([Array("a\r\r\n".utf8)]) == [line("a\r")])
        #expect(frame([Array("\r\r\n".utf8)]) == [line("\r")])
    }

    @Test func aLoneCRInTheMiddleStaysPartOfTheLine() {
        #expect(frame([Array("a\rb\n\rc\n".utf8)]) == [line("a\rb"), line("\rc")])
    }

    @Test func blankAndWhitespaceOnlyLinesAreIgnored() {
        let stream = Array("\n\r\n   \n\t\t\n \t \r\n{}\n\n".utf8)
        #expect(frame([stream]) == [line("{}")])
    }

    @Test func surroundingWhitespaceIsKeptOnNonBlankLines() {
        #expect(frame([Array("  {} \t\n".utf8)]) == [line("  {} \t")])
    }

    @Test func finishReturnsTheLastLineWithoutALineFeed() {
        var framer = LineFramer()
        #expect(framer.push(Array("one\ntwo".utf8)) == [line("one")])
        #expect(framer.finish() == [line("two")])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func finishDropsATrailingCRAndIgnoresABlankLastLine() {
        #expect(frame([Array("last\r".utf8)]) == [line("last")])
        #expect(frame([Array("a\n \t".utf8)]) == [line("a")])
    }

    @Test func finishWithAnEmptyBufferReturnsNothing() {
        var fresh = LineFramer()
        #expect(fresh.finish() == [])
        var drained = LineFramer()
        #expect(drained.push(Array("x\n".utf8)) == [line("x")])
        #expect(drained.finish() == [])
        #expect(drained.finish() == [])
    }

    @Test func anOverlongLineGivesOneTooLongAndTheNextLineWorks() {
        var framer = LineFramer(maxLineBytes: 4)
        #expect(framer.push(Array("abcd".utf8)) == [])
        #expect(framer.push(Array("e".utf8)) == [.tooLong(limit: 4)])
        #expect(framer.push(Array("fghijkl".utf8)) == [])
        #expect(framer.bufferedByteCount == 0)
        #expect(framer.push(Array("mn\nok\n".utf8)) == [line("ok")])
    }

    @Test func anOverlongLineInsideOneChunkGivesOneTooLong() {
        #expect(frame([Array("a\n123456\nb\n".utf8)], maxLineBytes: 5) == [line("a"), .tooLong(limit: 5), line("b")])
    }

    @Test func anOverlongLastLineWithoutLineFeedIsReportedOnce() {
        var framer = LineFramer(maxLineBytes: 3)
        #expect(framer.push(Array("abcdef".utf8)) == [.tooLong(limit: 3)])
        #expect(framer.finish() == [])
        #expect(framer.push(Array("ok\n".utf8)) == [line("ok")])
    }

    @Test func aLineOfExactlyTheLimitIsDelivered() {
        #expect(frame([Array("abcd\n".utf8)], maxLineBytes: 4) == [line("abcd")])
        #expect(frame([Array("abcd\r\n".utf8)], maxLineBytes: 4) == [line("abcd")])
        #expect(frame([Array("abcd".utf8), Array("\r".utf8), Array("\n".utf8)], maxLineBytes: 4) == [line("abcd")])
        #expect(frame([Array("abcd\r".utf8)], maxLineBytes: 4) == [line("abcd")])
        #expect(frame([Array("abcd\rx\n".utf8)], maxLineBytes: 4) == [.tooLong(limit: 4)])
        #expect(frame([Array("abcd\r".utf8), Array("x\n".utf8)], maxLineBytes: 4) == [.tooLong(limit: 4)])
    }

    @Test func aLimitOfZeroRejectsEveryNonEmptyLine() {
        #expect(frame([Array("\n\r\na\nb".utf8)], maxLineBytes: 0) == [.tooLong(limit: 0), .tooLong(limit: 0)])
    }

    @Test func theDefaultLimitIsOneMebibyte() {
        #expect(LineFramer.defaultMaxLineBytes == 1_048_576)
        #expect(LineFramer().maxLineBytes == 1_048_576)
    }

    @Test func twoMebibytesInOneBytePushesStayBoundedAndFrameCorrectly() {
        let limit = LineFramer.defaultMaxLineBytes
        let stream = [UInt8](repeating: 0x61, count: 2 * limit) + Array("\n{\"ok\":true}\n".utf8)
        var framer = LineFramer()
        var events: [Event] = []
        var maxBuffered = 0
        for i in stream.indices {
            events += framer.push(stream[i..<(i + 1)])
            maxBuffered = max(maxBuffered, framer.bufferedByteCount)
        }
        events += framer.finish()
        #expect(events == [.tooLong(limit: limit), line(#"{"ok":true}"#)])
        #expect(maxBuffered <= limit + 1)
    }

    @Test func aLineOfExactlyOneMebibyteInSmallChunksIsDelivered() throws {
        let limit = LineFramer.defaultMaxLineBytes
        let content = (0..<limit).map { UInt8(0x61 + $0 % 26) }
        let stream = content + [0x0D, 0x0A]
        var framer = LineFramer()
        var events: [Event] = []
        var start = 0
        while start < stream.count {
            let end = min(start + 7, stream.count)
            events += framer.push(stream[start..<end])
            start = end
        }
        try #require(events.count == 1)
        #expect(events[0] == .line(content[...]))
    }

    @Test func aBOMAtTheStartIsSkipped() {
        #expect(frame([bom + Array("{}\n".utf8)]) == [line("{}")])
        #expect(frame([bom + Array("\n".utf8)]) == [])
        #expect(frame([bom]) == [])
    }

    @Test(arguments: [[1, 2], [2, 1], [1, 1, 1], [0, 3], [0, 1, 0, 2]])
    func aBOMSplitAcrossChunksIsSkipped(sizes: [Int]) {
        var chunks: [[UInt8]] = []
        var offset = 0
        for size in sizes {
            chunks.append(Array(bom[offset..<(offset + size)]))
            offset += size
        }
        chunks.append(Array("{}\n".utf8))
        #expect(frame(chunks) == [line("{}")])
    }

    @Test func aPartialBOMIsOrdinaryData() {
        #expect(frame([[0xEF, 0xBB], Array("x\n".utf8)]) == [.line([0xEF, 0xBB] + Array("x".utf8))])
        #expect(frame([[0xEF], [0x0A]]) == [.line([0xEF])])
        #expect(frame([[0xEF, 0xBB]]) == [.line([0xEF, 0xBB])])
    }

    @Test func aBOMLaterInTheStreamIsKept() {
        let events = frame([Array("a\n".utf8) + bom + Array("b\n".utf8)])
        #expect(events == [line("a"), .line((bom + Array("b".utf8))[...])])
        #expect(frame([Array("x".utf8), bom, Array("\n".utf8)]) == [.line((Array("x".utf8) + bom)[...])])
    }

    @Test func onlyTheFirstBOMIsSkipped() {
        #expect(frame([bom + bom + Array("a\n".utf8)]) == [.line((bom + Array("a".utf8))[...])])
    }

    @Test func acceptsSlicesAndOtherCollections() {
        var framer = LineFramer()
        let bytes = Array("skip a\nb\n".utf8)
        #expect(framer.push(bytes[5...]) == [line("a"), line("b")])
        #expect(framer.push(Array("c\n".utf8).lazy.map { $0 }) == [line("c")])
        #expect(framer.push("d\n".utf8) == [line("d")])
    }
}
