import ShelfJSON

/// Reads the request lines clients send most — one flat JSON-RPC request object of printable ASCII, such as
/// `{"jsonrpc":"2.0","id":7,"method":"add","params":{"title":"Dune"}}` — straight into an `RPCRequest`, without
/// building a JSON tree first (the tree costs more than the rest of decoding such a line).
///
/// It accepts a narrow subset of JSON and answers `nil` for anything else, so the general path
/// (`JSONParser`, then JSON-RPC 2.0 §4 validation) still decides every other line, errors included. For a line it
/// accepts it gives exactly the request the general path gives (`PlainRequestLineTests` checks both on the same
/// inputs). The subset: the members `jsonrpc` (only `"2.0"`), `id` (an integer, a string or `null`), `method` (a
/// string) and `params` (an object whose values are strings, integers, `true`, `false` or `null`), each at most
/// once, in any order, with spaces allowed between tokens; strings of printable ASCII without escapes; integers
/// without fraction or exponent.
enum PlainRequestLine {
    /// The request on `line`, or `nil` when the line is outside the subset (decode it the general way).
    static func decode(_ line: UnsafeBufferPointer<UInt8>) -> RPCRequest? {
        var scanner = Scanner(bytes: line)
        return scanner.request()
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func request() -> RPCRequest? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var id: RequestID?
            var method: String?
            var params: JSONObject?
            var sawVersion = false
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
                switch key {
                case "jsonrpc":
                    guard !sawVersion, string() == "2.0" else { return nil }
                    sawVersion = true
                case "id":
                    guard id == nil, let value = scalar(), let parsed = RequestID(json: value) else { return nil }
                    id = parsed
                case "method":
                    guard method == nil, let name = string() else { return nil }
                    method = name
                case "params":
                    guard params == nil, let object = flatObject() else { return nil }
                    params = object
                default:
                    return nil
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), let method else { return nil }
            skipSpaces()
            guard index == bytes.count else { return nil }
            return RPCRequest(id: id, method: method, params: params ?? JSONObject())
        }

        /// `{}` or `{"k":scalar,…}` with distinct keys.
        mutating func flatObject() -> JSONObject? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var object = JSONObject()
            if take(UInt8(ascii: "}")) { return object }
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")), let value = scalar(),
                      !object.members.contains(where: { $0.key == key })
                else { return nil }
                object.append(key, value)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? object : nil
        }

        /// A string, an integer, `true`, `false` or `null`.
        mutating func scalar() -> JSONValue? {
            skipSpaces()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(JSONValue.number)
            case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return word("null") ? .null : nil
            default: return nil
            }
        }

        /// `"…"` of printable ASCII (0x20–0x7E) without `\`.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// `-?(0|[1-9][0-9]*)`, not followed by a fraction or exponent.
        mutating func integer() -> JSONNumber? {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits, index - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                return nil
            }
            return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }

        mutating func word(_ literal: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            guard bytes.count - index >= expected.count,
                  bytes[index..<index + expected.count].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        /// Skips spaces, then consumes `byte` if it is next.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpaces()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        }
    }
}
