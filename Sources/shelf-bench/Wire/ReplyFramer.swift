/// Counts replies in a byte stream, in the framing the command line chose.
struct ReplyFramer {
    private let framing: BenchOptions.Framing
    private var lines = LineReplyFramer()
    private var frames = RespReplyFramer()

    init(_ framing: BenchOptions.Framing) {
        self.framing = framing
    }

    /// The replies completed by `chunk` (in order after everything fed before).
    /// - Throws: `RespReplyFramer.MalformedReply` when RESP framing cannot follow the stream.
    mutating func count(_ chunk: [UInt8]) throws(RespReplyFramer.MalformedReply) -> ReplyCount {
        switch framing {
        case .line:
            return chunk.withUnsafeBufferPointer { lines.count($0) }
        case .resp:
            return try chunk.withUnsafeBufferPointer { chunk throws(RespReplyFramer.MalformedReply) in
                try frames.count(chunk)
            }
        }
    }
}
