import Foundation
import ShelfCore
import ShelfJSON

/// A request's method with its params checked and typed (protocol/PROTOCOL.md, "Methods").
public enum MethodCall: Sendable, Equatable {
    /// `hello`: server name, versions, revision, whether auth is required.
    case hello
    /// `ping`: `"pong"`.
    case ping
    /// `list`: the items passing the filter.
    case list(ListFilter)
    /// `get`: one item by id.
    case get(UUID)
    /// `add`, `mark`, `toggle`, `rename` and `remove`, with their optional `expect` revision.
    case mutate(Mutation, expect: Revision?)
    /// `watch`: send `changed` notifications from `since` (or from now) on.
    case watch(since: Revision?)
    /// `unwatch`: stop them.
    case unwatch
    /// `auth`: present the server's token (protocol/PROTOCOL.md, "Authentication").
    case auth(token: String)

    /// Every method name the server answers, in the order the protocol document lists them.
    public static let methodNames = [
        "hello", "ping", "auth", "list", "get", "add", "mark", "toggle", "rename", "remove", "watch", "unwatch",
    ]

    /// The methods that change the list (protocol/PROTOCOL.md §5).
    public static let changeMethods: Set<String> = ["add", "mark", "toggle", "rename", "remove"]

    /// Types `request`'s method and params.
    /// - Returns: the call, or -32601 for an unknown method and -32602 for params that are missing, of the wrong
    ///   type, unknown to the method, a malformed UUID or an unknown filter.
    public static func decode(_ request: RPCRequest) -> Result<MethodCall, RPCError> {
        let reader = ParamsReader(method: request.method, params: request.params)
        // Arrays, not sets: at most three names, looked up on every request.
        let allowed: [String]
        switch request.method {
        case "hello", "ping", "unwatch": allowed = []
        case "watch": allowed = ["since"]
        case "auth": allowed = ["token"]
        case "list": allowed = ["filter"]
        case "get": allowed = ["id"]
        case "add": allowed = ["title", "expect"]
        case "mark": allowed = ["id", "read", "expect"]
        case "toggle", "remove": allowed = ["id", "expect"]
        case "rename": allowed = ["id", "title", "expect"]
        default:
            return .failure(methodNotFound(request.method))
        }
        if let error = reader.allowOnly(allowed) { return .failure(error) }
        return call(request.method, reader)
    }

    /// The -32601 error for a method the server does not answer (JSON-RPC 2.0 §5.1), naming the ones it does.
    /// - Returns: `nil` when `method` is one of ``methodNames``.
    static func unknownMethodError(_ method: String) -> RPCError? {
        methodNames.contains(method) ? nil : methodNotFound(method)
    }

    private static func methodNotFound(_ method: String) -> RPCError {
        let known = methodNames.joined(separator: ", ")
        return RPCError(.methodNotFound, "Method not found: \"\(RPCError.quotable(method))\" (methods: \(known))")
    }

    private static func call(_ method: String, _ reader: ParamsReader) -> Result<MethodCall, RPCError> {
        switch method {
        case "hello": return .success(.hello)
        case "ping": return .success(.ping)
        case "list": return filter(reader).map { .list($0) }
        case "get": return reader.id().map { .get($0) }
        case "watch": return reader.revision("since").map { .watch(since: $0) }
        case "unwatch": return .success(.unwatch)
        case "auth": return reader.string("token").map { .auth(token: $0) }
        default: break
        }
        return reader.revision("expect").flatMap { expect in
            mutation(method, reader).map { .mutate($0, expect: expect) }
        }
    }

    private static func mutation(_ method: String, _ reader: ParamsReader) -> Result<Mutation, RPCError> {
        switch method {
        case "add":
            reader.string("title").map { .add(title: $0) }
        case "mark":
            reader.id().flatMap { id in reader.bool("read").map { .setRead(id: id, isRead: $0) } }
        case "toggle":
            reader.id().map { .toggle(id: $0) }
        case "rename":
            reader.id().flatMap { id in reader.string("title").map { .rename(id: id, title: $0) } }
        default:
            reader.id().map { .remove(id: $0) }
        }
    }

    private static func filter(_ reader: ParamsReader) -> Result<ListFilter, RPCError> {
        guard reader.params["filter"] != nil else { return .success(.all) }
        return reader.string("filter").flatMap { text in
            guard let filter = ListFilter(rawValue: text) else {
                return .failure(reader.invalid("param \"filter\" must be \"all\", \"read\" or \"unread\""))
            }
            return .success(filter)
        }
    }

    /// The method's name on the wire, e.g. `mark` for `.mutate(.setRead…)`.
    public var methodName: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .list: "list"
        case .get: "get"
        case .watch: "watch"
        case .unwatch: "unwatch"
        case .auth: "auth"
        case .mutate(.add, _): "add"
        case .mutate(.setRead, _): "mark"
        case .mutate(.toggle, _): "toggle"
        case .mutate(.rename, _): "rename"
        case .mutate(.remove, _): "remove"
        }
    }

    /// The method name and params to send for this call (for clients).
    public var request: (method: String, params: JSONObject) {
        switch self {
        case .hello: ("hello", JSONObject())
        case .ping: ("ping", JSONObject())
        case .list(let filter): ("list", filter == .all ? JSONObject() : JSONObject([("filter", .string(filter.rawValue))]))
        case .get(let id): ("get", JSONObject([("id", .string(id.wireString))]))
        case .mutate(let mutation, let expect):
            Self.request(for: mutation, expect: expect)
        case .watch(let since):
            ("watch", since.map { JSONObject([("since", .number(JSONNumber($0)))]) } ?? JSONObject())
        case .unwatch: ("unwatch", JSONObject())
        case .auth(let token): ("auth", JSONObject([("token", .string(token))]))
        }
    }

    private static func request(for mutation: Mutation, expect: Revision?) -> (method: String, params: JSONObject) {
        var result: (method: String, params: JSONObject)
        switch mutation {
        case .add(let title): result = ("add", JSONObject([("title", .string(title))]))
        case .setRead(let id, let isRead): result = ("mark", JSONObject([("id", .string(id.wireString)), ("read", .bool(isRead))]))
        case .toggle(let id): result = ("toggle", JSONObject([("id", .string(id.wireString))]))
        case .rename(let id, let title): result = ("rename", JSONObject([("id", .string(id.wireString)), ("title", .string(title))]))
        case .remove(let id): result = ("remove", JSONObject([("id", .string(id.wireString))]))
        }
        if let expect { result.params.append("expect", .number(JSONNumber(expect))) }
        return result
    }
}
