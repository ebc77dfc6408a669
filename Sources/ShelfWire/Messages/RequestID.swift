import ShelfJSON

/// A JSON-RPC request id (JSON-RPC 2.0 §4: a string, a number or null), echoed back exactly as sent: numbers keep
/// their source text, so `18446744073709551616` comes back as `18446744073709551616`.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    /// `"id":"…"`.
    case string(String)
    /// `"id":123`, kept as its source text.
    case number(JSONNumber)
    /// `"id":null`.
    case null

    /// The id as a JSON value.
    public var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .null: .null
        }
    }

    /// Reads an id; `nil` for a value that may not be an id (object, array, boolean).
    public init?(json: JSONValue) {
        switch json {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .null: self = .null
        default: return nil
        }
    }

    public var description: String { String(decoding: JSONWriter.encode(json), as: UTF8.self) }
}
