/// Compares a presented token with the server's in time that does not depend on where they differ, so response
/// timing reveals nothing about the token (protocol/PROTOCOL.md §12).
struct TokenCheck: Sendable {
    /// Failed `auth` attempts after which the connection is closed.
    static let maxFailures = 3

    private let expected: [UInt8]

    init(token: String) {
        expected = Array(token.utf8)
    }

    /// True when `presented` is the token, byte for byte. Every byte of the longer input is visited, and the
    /// lengths are compared whole: a presented token that is the real one plus padding never matches.
    func matches(_ presented: String) -> Bool {
        let given = Array(presented.utf8)
        var difference: UInt8 = 0
        let length = max(given.count, expected.count)
        for index in 0..<length {
            let a = index < given.count ? given[index] : 0
            let b = index < expected.count ? expected[index] : 0
            difference |= a ^ b
        }
        return difference == 0 && given.count == expected.count && !expected.isEmpty
    }
}
