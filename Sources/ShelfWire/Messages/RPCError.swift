import ShelfCore
import ShelfJSON

/// A JSON-RPC error object (JSON-RPC 2.0 §5.1): `{"code", "message", "data": {"reason", ...}}`.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The numeric code; unknown codes from a newer server are kept as received.
    public let code: Int
    /// A sentence for people.
    public let message: String
    /// Extra members: always `reason`, plus `id` (not_found) or `revision` (conflict).
    public let data: JSONObject

    /// An error with a known code; `data.reason` is filled in from it, then `extra` members follow.
    public init(_ code: RPCErrorCode, _ message: String, extra: [(String, JSONValue)] = []) {
        self.code = code.rawValue
        self.message = message
        self.data = JSONObject([("reason", .string(code.reason))] + extra)
    }

    /// An error as received, for clients.
    public init(code: Int, message: String, data: JSONObject) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The known code, if this is one.
    public var knownCode: RPCErrorCode? { RPCErrorCode(rawValue: code) }

    /// `data.reason`, if present.
    public var reason: String? { data["reason"]?.stringValue }

    /// The error as a JSON object.
    public var json: JSONValue {
        .object(JSONObject([("code", .number(JSONNumber(code))), ("message", .string(message)), ("data", .object(data))]))
    }

    public var description: String { message }

    /// `text` as an error message quotes a name the client sent (a method, a param): at most 64 characters, then
    /// `…`, so that an error never echoes a megabyte back.
    static func quotable(_ text: String) -> String {
        text.count > 64 ? text.prefix(64) + "…" : text
    }
}

extension RPCError {
    /// The wire form of a model error: codes 1–4, 6 and 8–12 with the model's message and context in `data`
    /// (protocol/PROTOCOL.md §8): `id` for not_found and id_taken, `revision` (and `itemRevision` for `expectItem`) for conflict.
    public init(_ error: ReadingListError) {
        switch error {
        case .invalidTitle:
            self.init(.invalidTitle, error.description)
        case .notFound(let id):
            self.init(.notFound, error.description, extra: [("id", .string(id.wireString))])
        case .idTaken(let id):
            self.init(.idTaken, error.description, extra: [("id", .string(id.wireString))])
        case .invalidField(let problem):
            let code: RPCErrorCode = switch problem.field {
            case "author": .invalidAuthor
            case "url": .invalidURL
            case "tags": .invalidTags
            default: .invalidNote
            }
            self.init(code, error.description)
        case .conflict(let current, let itemRevision):
            var extra: [(String, JSONValue)] = [("revision", .number(JSONNumber(current)))]
            if let itemRevision { extra.append(("itemRevision", .number(JSONNumber(itemRevision)))) }
            self.init(.conflict, error.description, extra: extra)
        case .storageFailed:
            self.init(.storageFailed, error.description)
        case .compacted(_, let current):
            self.init(.compacted, error.description, extra: [("revision", .number(JSONNumber(current)))])
        }
    }
}
