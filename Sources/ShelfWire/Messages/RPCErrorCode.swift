/// Error codes on the wire (protocol/PROTOCOL.md, "Errors"). Negative codes are JSON-RPC 2.0 §5.1's; the small
/// positive ones are Shelf's application errors. Each has a `reason`, sent as `error.data.reason`.
public enum RPCErrorCode: Int, Sendable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case invalidTitle = 1
    case notFound = 2
    case conflict = 3
    case storageFailed = 4
    case unauthorized = 5
    case compacted = 6
    case tooManyConnections = 7
    case invalidAuthor = 8
    case invalidURL = 9
    case invalidTags = 10
    case invalidNote = 11
    case idTaken = 12

    /// The machine-readable name sent as `data.reason`, e.g. `invalid_title`.
    public var reason: String {
        switch self {
        case .parseError: "parse_error"
        case .invalidRequest: "invalid_request"
        case .methodNotFound: "method_not_found"
        case .invalidParams: "invalid_params"
        case .internalError: "internal_error"
        case .invalidTitle: "invalid_title"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .storageFailed: "storage_failed"
        case .unauthorized: "unauthorized"
        case .compacted: "compacted"
        case .tooManyConnections: "too_many_connections"
        case .invalidAuthor: "invalid_author"
        case .invalidURL: "invalid_url"
        case .invalidTags: "invalid_tags"
        case .invalidNote: "invalid_note"
        case .idTaken: "id_taken"
        }
    }
}
