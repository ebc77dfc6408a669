import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// What `shelf` says of an error and how it exits: a line after `shelf: `, or with `--json` one JSON object,
/// `{"code","reason","message","data"}` — the server's code, reason and data for an error it sent, `code` null and
/// a reason of `shelf`'s own (`not_found`, `ambiguous_id`, `invalid_id`, `cannot_connect`, …) for one found here.
struct ErrorReport: Equatable {
    /// What is said after `shelf: `.
    var message: String
    var exit: ExitCode
    /// The server's error code; `nil` for an error found by `shelf` itself.
    var code: Int?
    var reason: String
    /// The server's `data` (its `reason` included), or what `shelf` knows (an ambiguous id's candidates).
    var data: JSONObject

    /// The report of `error` met while running `command`.
    init(_ error: any Error, command: ShelfCommand) {
        switch error {
        case let error as ClientError:
            message = ShelfMain.message(for: error, command)
            exit = ShelfMain.exitCode(for: error)
            switch error {
            case .server(let rpc):
                code = rpc.code
                reason = rpc.reason ?? rpc.knownCode?.reason ?? "error"
                data = rpc.data
            case .cannotConnect: (code, reason, data) = (nil, "cannot_connect", JSONObject())
            case .connectionLost: (code, reason, data) = (nil, "connection_lost", JSONObject())
            case .noReply: (code, reason, data) = (nil, "no_reply", JSONObject())
            case .protocolViolation: (code, reason, data) = (nil, "protocol_violation", JSONObject())
            }
        case let error as IDPrefix.Failure:
            message = "\(error)"
            code = nil
            data = JSONObject()
            switch error {
            // Something that cannot be an id is a bad parameter (EX_USAGE); an id no item has is refused, as the
            // server refuses an unknown full id.
            case .malformed:
                (exit, reason) = (.usage, "invalid_id")
            case .noMatch, .noItem:
                (exit, reason) = (.failure, "not_found")
            case .ambiguous(_, let candidates):
                (exit, reason) = (.failure, "ambiguous_id")
                data = JSONObject([("candidates", .array(candidates.map { .string($0) }))])
            }
        case let error as TokenFile.Failure:
            (message, exit, code, reason, data) = ("\(error)", .usage, nil, "token_file", JSONObject())
        case let error as ExternalEditor.Failure:
            (message, exit, code, reason, data) = ("\(error)", .failure, nil, "editor_failed", JSONObject())
        default:
            (message, exit, code, reason, data) = ("\(error)", .failure, nil, "failed", JSONObject())
        }
    }

    /// A usage error (exit 64); as text it is followed by `pointer`, the line that says where the usage is.
    init(usage: UsageError, pointer: String) {
        (message, exit, code, reason, data) = (usage.message, .usage, nil, "usage", JSONObject())
        self.pointer = pointer
    }

    /// For a usage error: where the usage is, said after the message as text.
    var pointer: String?

    /// The `--json` form: one line.
    var jsonLine: String {
        let object = JSONObject([
            ("code", code.map { .number(JSONNumber($0)) } ?? .null), ("reason", .string(reason)),
            ("message", .string(message)), ("data", .object(data)),
        ])
        return TerminalText.json(.object(object))
    }

    /// Prints the report on standard error: `shelf: MESSAGE`, or the JSON line with `json`.
    func print(to output: Output, json: Bool) {
        if json { return output.err(jsonLine + "\n") }
        if let pointer { return output.error("shelf: error: \(message)\n\(pointer)") }
        output.error("shelf: \(message)")
    }
}
