/// A strict RFC 8259 JSON parser working directly on UTF-8 bytes.
///
/// Strictness: no comments, trailing commas, single quotes, leading zeros, `+1`, `.5`, `NaN`/`Infinity`, or raw
/// U+0000–U+001F in strings; whitespace is space, tab, LF and CR only (RFC 8259 §2). Numbers keep their text
/// (``JSONNumber``); duplicate object keys are kept (``JSONObject``).
///
/// The parser is iterative: open arrays and objects live on a heap-allocated stack, so hostile nesting
/// (100,000 `[`) ends in ``JSONParseError/tooDeep(limit:)`` and can never overflow the call stack.
public struct JSONParser {
    /// The input, already checked to be valid UTF-8.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index: Int = 0
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []
    /// Open containers, innermost last.
    private var frames: [Frame] = []
    /// The entries of all open containers, innermost last: array elements, or object keys (as `.string`)
    /// alternating with their values.
    private var entries: [JSONValue] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON text (RFC 8259 §2: any value, surrounded by optional whitespace) from UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - bytes: the complete text, e.g. one request line without its LF. Contiguous collections (`[UInt8]`,
    ///     `ArraySlice<UInt8>`, `UnsafeBufferPointer<UInt8>`) are read in place; others are copied first.
    ///   - maxDepth: the most arrays and objects that may be open at once; `[[1]]` has depth 2, a scalar 0.
    ///     Values are recursive types (equality, encoding and deallocation recurse per level), so keep this
    ///     modest; the default of 64 is far beyond any JSON-RPC request. Values below 0 act as 0.
    /// - Returns: the value.
    /// - Throws: ``JSONParseError``, with byte offsets counted from the first byte of `bytes`: `.invalidUTF8` if
    ///   the input is not valid UTF-8 (checked before anything else), `.tooDeep` past `maxDepth`,
    ///   `.trailingData` if anything but whitespace follows the value.
    @inlinable
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try parseKeepingMembers(bytes, maxDepth: maxDepth).mapError(\.error).get()
    }

    /// Why a text was rejected, and what of it was read before.
    @usableFromInline
    package struct Failure: Error, Sendable {
        /// The error ``parse(_:maxDepth:)`` throws for the same text.
        @usableFromInline package let error: JSONParseError
        /// The members of the outermost value, when it is an object, that were complete (key and whole value)
        /// before the error, in source order, duplicates kept; empty for any other text and for invalid UTF-8.
        package let membersBefore: [(key: String, value: JSONValue)]
    }

    /// ``parse(_:maxDepth:)``, keeping on failure the outermost object's members read before the error: what
    /// lets a JSON-RPC server answer a request with its id when that id came before an error it cannot decode
    /// (protocol/PROTOCOL.md §8, -32700).
    @inlinable
    package static func parseKeepingMembers(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) -> Result<JSONValue, Failure> {
        bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer, maxDepth: maxDepth)
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            parseResult(buffer, maxDepth: maxDepth)
        }
    }

    /// The non-generic entry point behind ``parse(_:maxDepth:)``.
    @usableFromInline
    static func parseResult(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, Failure> {
        do throws(JSONParseError) {
            try validateUTF8(bytes)
        } catch {
            return .failure(Failure(error: error, membersBefore: []))
        }
        var parser = JSONParser(bytes: bytes)
        do throws(JSONParseError) {
            return .success(try parser.parseDocument(maxDepth: max(0, maxDepth)))
        } catch {
            return .failure(Failure(error: error, membersBefore: parser.outermostMembers()))
        }
    }

    /// The complete key-value pairs of the outermost container, when it is an open object.
    private func outermostMembers() -> [(key: String, value: JSONValue)] {
        guard let outer = frames.first, outer.isObject else { return [] }
        let end = frames.count > 1 ? frames[1].start : entries.count
        var members: [(key: String, value: JSONValue)] = []
        var i = outer.start
        while i + 1 < end {
            if case .string(let key) = entries[i] { members.append((key: key, value: entries[i + 1])) }
            i += 2
        }
        return members
    }

    /// One open array or object.
    private struct Frame {
        /// True for an object, false for an array.
        var isObject: Bool
        /// Where this container's entries start in the shared `entries` stack.
        var start: Int
    }

    /// Parses a whole document: one value, whitespace around it, nothing else.
    private mutating func parseDocument(maxDepth: Int) throws(JSONParseError) -> JSONValue {
        parsing: while true {
            // Expecting the start of a value.
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            var value: JSONValue
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard frames.count < maxDepth else { throw .tooDeep(limit: maxDepth) }
                let isObject = byte == UInt8(ascii: "{")
                index += 1
                skipWhitespace()
                if index < bytes.count && bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    if frames.capacity == 0 {
                        frames.reserveCapacity(8)
                        entries.reserveCapacity(32)
                    }
                    frames.append(Frame(isObject: isObject, start: entries.count))
                    if isObject {
                        entries.append(.string(try parseKeyAndColon()))
                    }
                    continue parsing
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw .unexpectedByte(byte, offset: index)
            }

            // A value is complete: attach it to the innermost container, closing containers as they end.
            while let frame = frames.last {
                entries.append(value)
                skipWhitespace()
                guard index < bytes.count else { throw .unexpectedEnd }
                let next = bytes[index]
                index += 1
                if next == UInt8(ascii: ",") {
                    if frame.isObject {
                        entries.append(.string(try parseKeyAndColon()))
                    }
                    continue parsing
                }
                if frame.isObject && next == UInt8(ascii: "}") {
                    value = .object(Self.makeObject(from: entries[frame.start...]))
                } else if !frame.isObject && next == UInt8(ascii: "]") {
                    value = .array(Array(entries[frame.start...]))
                } else {
                    throw .unexpectedByte(next, offset: index - 1)
                }
                entries.removeSubrange(frame.start...)
                frames.removeLast()
            }

            skipWhitespace()
            guard index == bytes.count else { throw .trailingData(offset: index) }
            return value
        }
    }

    /// Pairs up alternating key and value entries (keys are always `.string`).
    private static func makeObject(from entries: ArraySlice<JSONValue>) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(entries.count / 2)
        var i = entries.startIndex
        while i + 1 < entries.endIndex {
            if case .string(let key) = entries[i] {
                members.append((key: key, value: entries[i + 1]))
            }
            i += 2
        }
        return JSONObject(labelled: members)
    }

    /// Parses `"key"` `:` (with whitespace around), leaving `index` just past the colon.
    private mutating func parseKeyAndColon() throws(JSONParseError) -> String {
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        guard bytes[index] == UInt8(ascii: "\"") else { throw .unexpectedByte(bytes[index], offset: index) }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        guard bytes[index] == UInt8(ascii: ":") else { throw .unexpectedByte(bytes[index], offset: index) }
        index += 1
        return key
    }

    /// Skips RFC 8259 §2 whitespace: space, tab, LF, CR.
    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `literal` (`true`, `false` or `null`); what may follow is checked by the caller.
    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == byte else { throw .unexpectedByte(bytes[index], offset: index) }
            index += 1
        }
    }

    /// Parses a number starting at `index`.
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        guard let end = JSONNumber.scanEnd(in: bytes, from: start) else { throw .invalidNumber(offset: start) }
        index = end
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return JSONNumber(uncheckedText: text)
    }
}
