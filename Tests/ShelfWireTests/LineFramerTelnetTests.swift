import Testing
import ShelfWire

/// `LineFramer` with `answersTelnet`: telnet commands are taken out of the stream and options refused
/// (RFC 854, RFC 855; protocol/PROTOCOL.md §1).
struct LineFramerTelnetTests {
    private typealias Event = LineFramer.Event

    private static func line(_ bytes: [UInt8]) -> Event { .line(bytes[...]) }
    private static func line(_ text: String) -> Event { line(Array(text.utf8)) }

    /// What `telnet` sends for Ctrl-C: IAC IP, IAC DO TIMING-MARK.
    private static let interrupt: [UInt8] = [0xFF, 0xF4, 0xFF, 0xFD, 0x06]
    private static let ping = Array(#"{"id":1,"method":"ping"}"#.utf8)

    /// Feeds `chunks` one after another, then finishes.
    private static func frame(_ chunks: [[UInt8]], answersTelnet: Bool = true) -> [Event] {
        var framer = LineFramer(answersTelnet: answersTelnet)
        var events: [Event] = []
        for chunk in chunks { events += framer.push(chunk) }
        return events + framer.finish()
    }

    @Test("Ctrl-C (ff f4 ff fd 06) is dropped and its DO TIMING-MARK refused with WONT (ff fc 06); the next line is whole")
    func interruptThenARequest() {
        #expect(Self.frame([Self.interrupt + Self.ping + [0x0A]]) == [.telnetReply([0xFF, 0xFC, 0x06]), Self.line(Self.ping)])
    }

    @Test("the same, split into two pushes at every byte")
    func interruptSplitAtEveryByte() {
        let stream = Self.interrupt + Self.ping + [0x0A]
        for cut in 0...stream.count {
            let events = Self.frame([Array(stream[..<cut]), Array(stream[cut...])])
            #expect(events == [.telnetReply([0xFF, 0xFC, 0x06]), Self.line(Self.ping)], "cut at \(cut)")
        }
    }

    @Test("a command in the middle of a line is taken out, and the line around it joined")
    func commandInsideALine() {
        let stream = Array(#"{"id":1,"#.utf8) + [0xFF, 0xF1] + Array(#""method":"ping"}"#.utf8) + [0x0A]
        #expect(Self.frame([stream]) == [Self.line(Self.ping)])
    }

    @Test("WILL x gets DONT x, DO x gets WONT x, WONT and DONT get nothing; refusals with no line between are one event")
    func negotiation() {
        let stream: [UInt8] = [0xFF, 0xFB, 0x01, 0xFF, 0xFD, 0x03, 0xFF, 0xFC, 0x18, 0xFF, 0xFE, 0x1F] + Array("a\n".utf8) + [0xFF, 0xFD, 0x06]
        #expect(Self.frame([stream]) == [
            .telnetReply([0xFF, 0xFE, 0x01, 0xFF, 0xFC, 0x03]), Self.line("a"), .telnetReply([0xFF, 0xFC, 0x06]),
        ])
    }

    @Test("a subnegotiation is dropped whole, an IAC IAC and an LF inside it included")
    func subnegotiation() {
        let stream: [UInt8] = Array("a".utf8) + [0xFF, 0xFA, 0x18, 0x00, 0xFF, 0xFF, 0x0A, 0x41, 0xFF, 0xF0] + Array("b\n".utf8)
        #expect(Self.frame([stream]) == [Self.line("ab")])
    }

    @Test("IAC IAC, and an IAC before a byte that starts no command, are a data 0xFF; so is an IAC at the end")
    func literalIAC() {
        #expect(Self.frame([[0x61, 0xFF, 0xFF, 0x62, 0x0A]]) == [Self.line([0x61, 0xFF, 0x62])])
        #expect(Self.frame([[0x61, 0xFF, 0x22, 0x0A]]) == [Self.line([0x61, 0xFF, 0x22])])
        #expect(Self.frame([[0x61, 0xFF], [0x0A]]) == [Self.line([0x61, 0xFF])])
        #expect(Self.frame([[0x61, 0xFF]]) == [Self.line([0x61, 0xFF])])
    }

    @Test("an option byte may be any byte, an LF too: it does not end a line")
    func optionByteIsNotData() {
        #expect(Self.frame([[0x61, 0xFF, 0xFD, 0x0A, 0x62, 0x0A]]) == [.telnetReply([0xFF, 0xFC, 0x0A]), Self.line("ab")])
    }

    @Test("without answersTelnet every byte is data")
    func offByDefault() {
        #expect(Self.frame([Self.interrupt + Self.ping + [0x0A]], answersTelnet: false) == [Self.line(Self.interrupt + Self.ping)])
    }
}
