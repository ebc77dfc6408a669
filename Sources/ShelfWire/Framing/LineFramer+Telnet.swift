import Glibc

// Telnet commands in the byte stream (RFC 854, RFC 855): what `telnet` sends besides the typed text, for example
// `IAC IP IAC DO TIMING-MARK` (ff f4 ff fd 06) for Ctrl-C, after which it waits for the answer to the DO.

extension LineFramer {
    /// Where the framer is in a telnet command. 0xFF (IAC) never occurs in UTF-8, so in this UTF-8 protocol it
    /// can only start one.
    enum TelnetState: Sendable, Equatable {
        /// Ordinary bytes.
        case data
        /// After IAC: the command byte is next.
        case command
        /// After IAC and WILL, WONT, DO or DONT (the byte given): the option byte is next.
        case option(verb: UInt8)
        /// Inside IAC SB … IAC SE (a subnegotiation), which is dropped whole.
        case subnegotiation
        /// After an IAC inside a subnegotiation: SE ends it, anything else stays in it.
        case subnegotiationCommand
    }

    /// Telnet command bytes (RFC 854, "TELNET COMMAND STRUCTURE").
    enum Telnet {
        static let iac: UInt8 = 0xFF
        static let dont: UInt8 = 0xFE
        static let `do`: UInt8 = 0xFD
        static let wont: UInt8 = 0xFC
        static let will: UInt8 = 0xFB
        static let subnegotiationBegin: UInt8 = 0xFA
        static let subnegotiationEnd: UInt8 = 0xF0
        /// SE through GA (0xF0–0xF9): two-byte commands, dropped with their IAC.
        static let twoByteCommands: ClosedRange<UInt8> = 0xF0...0xF9
        /// An IAC that starts no command is kept as data (the line it is in is then invalid UTF-8).
        static let literal: [UInt8] = [0xFF]
    }

    /// True when `bytes` holds an IAC or a command left unfinished by the last push: only then does a push take
    /// the path below.
    func hasTelnetWork(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        telnet != .data || nextIAC(in: bytes, from: 0) != nil
    }

    /// `consume` with the telnet commands taken out of `bytes` (all of `chunk`): the data between them goes on to
    /// the line rules in stream order, and each refusal (`DO x` gets `WONT x`, `WILL x` gets `DONT x`: RFC 854
    /// "TELNET OPTION CODES", RFC 855) is an ``Event/telnetReply(_:)`` in its place; refusals with no line between
    /// them make one event.
    mutating func consumeTelnet(_ bytes: UnsafeBufferPointer<UInt8>, of chunk: [UInt8], into events: inout [Event]) {
        var i = 0
        while i < bytes.count {
            if case .data = telnet {
                let end = nextIAC(in: bytes, from: i) ?? bytes.count
                consume(bytes, i..<end, of: chunk, into: &events)
                guard end < bytes.count else { return }
                telnet = .command
                i = end + 1
                continue
            }
            let byte = bytes[i]
            i += 1
            switch telnet {
            case .data:
                break
            case .command:
                telnet = .data
                switch byte {
                case Telnet.iac:
                    // IAC IAC is a data byte 0xFF (RFC 854), never valid UTF-8: its line gets -32700.
                    keepLiteralIAC(into: &events)
                case Telnet.subnegotiationBegin:
                    telnet = .subnegotiation
                case Telnet.will, Telnet.wont, Telnet.do, Telnet.dont:
                    telnet = .option(verb: byte)
                case Telnet.twoByteCommands:
                    break
                default:
                    // Not a command: the IAC stays as data, and this byte is read again as data.
                    keepLiteralIAC(into: &events)
                    i -= 1
                }
            case .option(let verb):
                telnet = .data
                // WONT and DONT confirm the state every option is already in: they get no answer (RFC 854).
                if verb == Telnet.do {
                    appendTelnetReply([Telnet.iac, Telnet.wont, byte], to: &events)
                } else if verb == Telnet.will {
                    appendTelnetReply([Telnet.iac, Telnet.dont, byte], to: &events)
                }
            case .subnegotiation:
                if byte == Telnet.iac { telnet = .subnegotiationCommand }
            case .subnegotiationCommand:
                telnet = byte == Telnet.subnegotiationEnd ? .data : .subnegotiation
            }
        }
    }

    /// At the end of the stream: an IAC still waiting for its command byte is data; the rest of an unfinished
    /// command is dropped.
    mutating func finishTelnet(into events: inout [Event]) {
        if telnet == .command { keepLiteralIAC(into: &events) }
        telnet = .data
    }

    /// An IAC held back while its command byte was awaited, released as a data byte.
    private mutating func keepLiteralIAC(into events: inout [Event]) {
        Telnet.literal.withUnsafeBufferPointer { consume($0, 0..<1, of: Telnet.literal, into: &events) }
    }

    private func appendTelnetReply(_ reply: [UInt8], to events: inout [Event]) {
        if case .telnetReply(let earlier)? = events.last {
            events[events.count - 1] = .telnetReply(earlier + reply)
        } else {
            events.append(.telnetReply(reply))
        }
    }

    private func nextIAC(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(Telnet.iac), bytes.count - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}
