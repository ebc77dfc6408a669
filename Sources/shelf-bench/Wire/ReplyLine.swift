/// Questions asked about the first bytes of one reply line (at most `LineReplyFramer.prefixLimit` of them, CR
/// not removed). Checking only the start keeps a 10 MB `list` reply as cheap as a `pong`.
enum ReplyLine {
    /// True for a JSON-RPC error reply (`"error":` within the first bytes, where it sits right after the id) or a
    /// Redis error line (`-ERR …`).
    static func isError(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = line.first else { return false }
        return first == UInt8(ascii: "-") || find(errorMember, in: line) != nil
    }

    /// True for a shelfd `changed` notification.
    static func isChangedNotification(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        find(changedMethod, in: line) != nil
    }

    /// The number after the first `"revision":`, e.g. 7 in `{"jsonrpc":"2.0","method":"changed","params":
    /// {"revision":7,…` or in a `watch` reply `{…,"result":{"revision":7}}`; `nil` if there is none.
    static func revision(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let end = find(revisionMember, in: line) else { return nil }
        var value = 0
        var index = end
        var digits = 0
        while index < line.count, line[index] >= 0x30, line[index] <= 0x39, digits < 19 {
            value = value * 10 + Int(line[index] - 0x30)
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    private static let errorMember = Array(#""error":"#.utf8)
    private static let changedMethod = Array(#""method":"changed""#.utf8)
    private static let revisionMember = Array(#""revision":"#.utf8)

    /// The index just past the first occurrence of `needle` in `line`, or `nil`.
    private static func find(_ needle: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> Int? {
        guard line.count >= needle.count else { return nil }
        var start = 0
        while start + needle.count <= line.count {
            if line[start] == needle[0] {
                var matched = 1
                while matched < needle.count, line[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return start + needle.count }
            }
            start += 1
        }
        return nil
    }
}
