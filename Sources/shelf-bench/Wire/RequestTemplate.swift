/// A request line with holes: every `{n}` is replaced by a counter when the line is written.
struct RequestTemplate: Sendable {
    /// The bytes between the holes (`parts.count` is the number of holes plus one).
    private let parts: [[UInt8]]

    /// - Parameter text: the line without its LF, e.g. `{"id":{n},"method":"add","params":{"title":"Book {n}"}}`.
    init(_ text: String) {
        let bytes = Array(text.utf8)
        let hole = Array("{n}".utf8)
        var parts: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == hole[0], index + hole.count <= bytes.count,
               bytes[index..<(index + hole.count)].elementsEqual(hole) {
                parts.append(current)
                current = []
                index += hole.count
            } else {
                current.append(bytes[index])
                index += 1
            }
        }
        parts.append(current)
        self.parts = parts
    }

    /// Appends the line for `counter`, followed by LF, to `buffer`.
    func append(counter: Int, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: parts[0])
        for part in parts.dropFirst() {
            Self.appendDecimal(counter, to: &buffer)
            buffer.append(contentsOf: part)
        }
        buffer.append(0x0A)
    }

    /// The line for `counter` with its LF.
    func line(counter: Int) -> [UInt8] {
        var buffer: [UInt8] = []
        append(counter: counter, to: &buffer)
        return buffer
    }

    /// Appends the decimal digits of a non-negative `value` without building a `String`.
    private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(UInt8(0x30 + value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(0x30 + rest % 10)
                rest /= 10
                count += 1
            }
            for position in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[position]) }
        }
    }
}
