import Foundation
import ShelfCore
import ShelfJSON

/// A request's method with its params checked and typed (protocol/PROTOCOL.md, "Methods").
public enum MethodCall: Sendable, Equatable {
    /// `hello`: server name, versions, revision, whether auth is required.
    case hello
    /// `ping`: `"pong"`.
    case ping
    /// `list`: the items the query selects, in its order, one page of them.
    case list(ItemQuery)
    /// `get`: one item by id.
    case get(UUID)
    /// `add`, `mark`, `toggle`, `rename`, `update` and `remove`, with their optional `expect` (the list's
    /// revision) and `expectItem` (the target item's revision; not for `add`) (protocol/PROTOCOL.md §7).
    case mutate(Mutation, expect: Revision?, expectItem: Revision? = nil)
    /// `watch`: send `changed` notifications from `since` (or from now) on.
    case watch(since: Revision?)
    /// `unwatch`: stop them.
    case unwatch
    /// `auth`: present the server's token (protocol/PROTOCOL.md, "Authentication").
    case auth(token: String)

    /// Every method name the server answers, in the order the protocol document lists them.
    public static let methodNames = [
        "hello", "ping", "auth", "list", "get", "add", "mark", "toggle", "rename", "update", "remove", "watch", "unwatch",
    ]

    /// The methods that change the list (protocol/PROTOCOL.md §5).
    public static let changeMethods: Set<String> = ["add", "mark", "toggle", "rename", "update", "remove"]

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
        case "list": allowed = ["filter", "query", "tag", "sort", "limit", "cursor"]
        case "get": allowed = ["id"]
        case "add": allowed = ["title", "expect", "author", "url", "tags", "note", "id", "addedAt", "isRead", "readAt"]
        case "mark": allowed = ["id", "read", "expect", "expectItem"]
        case "toggle", "remove": allowed = ["id", "expect", "expectItem"]
        case "rename": allowed = ["id", "title", "expect", "expectItem"]
        case "update":
            allowed = ["id", "title", "author", "url", "note", "tags", "addTags", "removeTags", "expect", "expectItem"]
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
        case "list": return query(reader).map { .list($0) }
        case "get": return reader.id().map { .get($0) }
        case "watch": return reader.revision("since").map { .watch(since: $0) }
        case "unwatch": return .success(.unwatch)
        case "auth": return reader.string("token").map { .auth(token: $0) }
        default: break
        }
        return reader.revision("expect").flatMap { expect in
            reader.revision("expectItem").flatMap { expectItem in
                mutation(method, reader).map { .mutate($0, expect: expect, expectItem: expectItem) }
            }
        }
    }

    private static func mutation(_ method: String, _ reader: ParamsReader) -> Result<Mutation, RPCError> {
        switch method {
        case "add":
            reader.string("title").flatMap { title in details(reader).map { .add(title: title, details: $0) } }
        case "update":
            reader.id().flatMap { id in edit(reader).map { .update(id: id, $0) } }
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

    /// `add`'s optional members: strings (`null` is none) and an array of tag strings.
    private static func details(_ reader: ParamsReader) -> Result<ItemDetails, RPCError> {
        reader.optionalString("author").flatMap { author in
            reader.optionalString("url").flatMap { url in
                reader.optionalString("note").flatMap { note in
                    reader.strings("tags").flatMap { tags in
                        origin(reader).map { ItemDetails(author: author, url: url, tags: tags ?? [], note: note, origin: $0) }
                    }
                }
            }
        }
    }

    /// `add`'s members kept from another list (protocol/PROTOCOL.md §5, "Adding an item as it was"): `id` (a
    /// UUID), `addedAt` and `readAt` (RFC 3339), `isRead` (a boolean); each may be absent or `null`. `readAt` with
    /// `"isRead":false` is refused.
    private static func origin(_ reader: ParamsReader) -> Result<ItemDetails.Origin, RPCError> {
        var origin = ItemDetails.Origin()
        if reader.params["id"] != nil, reader.params["id"] != .null {
            switch reader.id() {
            case .success(let id): origin.id = id
            case .failure(let error): return .failure(error)
            }
        }
        for (name, path) in [("addedAt", \ItemDetails.Origin.addedAt), ("readAt", \ItemDetails.Origin.readAt)] {
            switch reader.optionalString(name) {
            case .success(nil): break
            case .success(let text?):
                guard let date = Timestamp.parse(text) else {
                    return .failure(reader.invalid("param \"\(name)\" must be an RFC 3339 time like 2026-01-02T03:04:05.000Z"))
                }
                origin[keyPath: path] = date
            case .failure(let error): return .failure(error)
            }
        }
        switch reader.params["isRead"] {
        case nil, .null?: break
        case .bool(let isRead)?: origin.isRead = isRead
        case .some: return .failure(reader.invalid("param \"isRead\" must be true or false, or null"))
        }
        if origin.isRead == false, origin.readAt != nil {
            return .failure(reader.invalid("param \"readAt\" goes with an item that is read, not with \"isRead\":false"))
        }
        return .success(origin)
    }

    /// `update`'s changes: each text member absent (kept), `null` (cleared) or a string; `tags` (a whole set, `null`
    /// for none) or `addTags`/`removeTags` (`null` is the same as absent), not both; at least one change, so `addTags:
    /// []` alone is refused.
    private static func edit(_ reader: ParamsReader) -> Result<ItemEdit, RPCError> {
        let field: (String) -> Result<ItemEdit.Field, RPCError> = { name in
            switch reader.params[name] {
            case nil: .success(.keep)
            case .null?: .success(.clear)
            case .string(let text)?: .success(.set(text))
            case .some: .failure(reader.invalid("param \"\(name)\" must be a string, or null to clear it"))
            }
        }
        var edit = ItemEdit()
        switch reader.params["title"] {
        case nil: break
        case .string(let title)?: edit.title = title
        case .some: return .failure(reader.invalid("param \"title\" must be a string (a title cannot be cleared)"))
        }
        for (name, path) in [("author", \ItemEdit.author), ("url", \ItemEdit.url), ("note", \ItemEdit.note)] {
            switch field(name) {
            case .success(let change): edit[keyPath: path] = change
            case .failure(let error): return .failure(error)
            }
        }
        let whole: [String]?, added: [String]?, removed: [String]?
        switch (reader.strings("tags"), reader.strings("addTags"), reader.strings("removeTags")) {
        case (.success(let a), .success(let b), .success(let c)): (whole, added, removed) = (a, b, c)
        case (.failure(let error), _, _), (_, .failure(let error), _), (_, _, .failure(let error)): return .failure(error)
        }
        // `tags: null` clears the set, like `null` for the other members: it is a change, and cannot go with
        // addTags/removeTags either.
        if reader.params["tags"] != nil {
            guard added == nil, removed == nil else {
                return .failure(reader.invalid("send either \"tags\" (the whole set) or \"addTags\"/\"removeTags\", not both"))
            }
            edit.tags = .replace(whole ?? [])
        } else {
            edit.tags = .adjust(add: added ?? [], remove: removed ?? [])
        }
        if edit.isEmpty {
            return .failure(reader.invalid("update needs something to change: title, author, url, note, tags, addTags or removeTags"))
        }
        return .success(edit)
    }

    /// `list`'s params: `filter`, `query` (text), `tag` (a tag or an array of them), `sort`, `limit`, `cursor`;
    /// `null` is the same as leaving one out.
    private static func query(_ reader: ParamsReader) -> Result<ItemQuery, RPCError> {
        filter(reader).flatMap { filter in
            var query = ItemQuery(filter: filter)
            switch reader.optionalString("query") {
            case .success(let text?):
                // Bounded so that no search, however it is run, costs more than a few passes over the list.
                let bytes = text.utf8.count
                if bytes > ItemQuery.maxTextBytes {
                    return .failure(reader.invalid("param \"query\" is too long: \(bytes) bytes of UTF-8, the limit is \(ItemQuery.maxTextBytes)"))
                }
                if bytes > ItemQuery.maxTextLength, text.count > ItemQuery.maxTextLength {
                    return .failure(reader.invalid("param \"query\" is too long: \(text.count) characters, the limit is \(ItemQuery.maxTextLength)"))
                }
                query.text = text
            case .success(nil): break
            case .failure(let error): return .failure(error)
            }
            let raw: [String]
            switch reader.params["tag"] {
            case nil, .null?: raw = []
            case .string(let tag)?: raw = [tag]
            case .array?:
                switch reader.strings("tag") {
                case .success(let tags): raw = tags ?? []
                case .failure: return .failure(reader.invalid("param \"tag\" must be a tag or an array of tags"))
                }
            case .some: return .failure(reader.invalid("param \"tag\" must be a tag or an array of tags"))
            }
            // In the stored form, as the tags it is compared with (trimmed and folded). Not held to the byte limit:
            // a tag stored before it can still be listed.
            for tag in raw {
                switch ItemField.validateTag(tag, checkingBytes: false) {
                case .success(let tag): query.tags.append(tag)
                case .failure(let problem): return .failure(reader.invalid("param \"tag\": \(problem)"))
                }
            }
            switch reader.optionalString("sort") {
            case .success(let text?):
                guard let sort = ItemQuery.Sort(wire: text) else {
                    return .failure(reader.invalid("param \"sort\" must be added, title, author or readAt, with a leading - for descending"))
                }
                query.sort = sort
            case .success(nil): break
            case .failure(let error): return .failure(error)
            }
            switch reader.params["limit"] {
            case nil, .null?: break
            case .number(let number)?:
                guard let limit = number.uint64, limit >= 1, limit <= ItemQuery.maxLimit else { fallthrough }
                query.limit = Int(limit)
            case .some: return .failure(reader.invalid("param \"limit\" must be a whole number from 1 to \(ItemQuery.maxLimit)"))
            }
            if reader.params["cursor"] != nil, reader.params["cursor"] != .null {
                switch reader.id("cursor") {
                case .success(let cursor): query.cursor = cursor
                case .failure: return .failure(reader.invalid("param \"cursor\" must be the \"next\" of an earlier list reply"))
                }
            }
            return .success(query)
        }
    }

    private static func filter(_ reader: ParamsReader) -> Result<ListFilter, RPCError> {
        guard let value = reader.params["filter"], value != .null else { return .success(.all) }
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
        case .mutate(.add, _, _): "add"
        case .mutate(.setRead, _, _): "mark"
        case .mutate(.toggle, _, _): "toggle"
        case .mutate(.rename, _, _): "rename"
        case .mutate(.remove, _, _): "remove"
        case .mutate(.update, _, _): "update"
        }
    }

    /// The method name and params to send for this call (for clients).
    public var request: (method: String, params: JSONObject) {
        switch self {
        case .hello: ("hello", JSONObject())
        case .ping: ("ping", JSONObject())
        case .list(let query): ("list", Self.params(for: query))
        case .get(let id): ("get", JSONObject([("id", .string(id.wireString))]))
        case .mutate(let mutation, let expect, let expectItem):
            Self.request(for: mutation, expect: expect, expectItem: expectItem)
        case .watch(let since):
            ("watch", since.map { JSONObject([("since", .number(JSONNumber($0)))]) } ?? JSONObject())
        case .unwatch: ("unwatch", JSONObject())
        case .auth(let token): ("auth", JSONObject([("token", .string(token))]))
        }
    }

    private static func params(for query: ItemQuery) -> JSONObject {
        var params = JSONObject()
        if query.filter != .all { params.append("filter", .string(query.filter.rawValue)) }
        if let text = query.text { params.append("query", .string(text)) }
        if query.tags.count == 1 { params.append("tag", .string(query.tags[0])) }
        if query.tags.count > 1 { params.append("tag", .array(query.tags.map { .string($0) })) }
        if query.sort != .added { params.append("sort", .string(query.sort.wire)) }
        if let limit = query.limit { params.append("limit", .number(JSONNumber(limit))) }
        if let cursor = query.cursor { params.append("cursor", .string(cursor.wireString)) }
        return params
    }

    private static func request(
        for mutation: Mutation, expect: Revision?, expectItem: Revision?
    ) -> (method: String, params: JSONObject) {
        var result: (method: String, params: JSONObject)
        switch mutation {
        case .add(let title, let details):
            var params = JSONObject([("title", .string(title))])
            if let author = details.author { params.append("author", .string(author)) }
            if let url = details.url { params.append("url", .string(url)) }
            if !details.tags.isEmpty { params.append("tags", .array(details.tags.map { .string($0) })) }
            if let note = details.note { params.append("note", .string(note)) }
            let origin = details.origin
            if let id = origin.id { params.append("id", .string(id.wireString)) }
            if let addedAt = origin.addedAt { params.append("addedAt", .string(Timestamp.format(addedAt))) }
            if let isRead = origin.isRead { params.append("isRead", .bool(isRead)) }
            if let readAt = origin.readAt { params.append("readAt", .string(Timestamp.format(readAt))) }
            result = ("add", params)
        case .setRead(let id, let isRead): result = ("mark", JSONObject([("id", .string(id.wireString)), ("read", .bool(isRead))]))
        case .toggle(let id): result = ("toggle", JSONObject([("id", .string(id.wireString))]))
        case .rename(let id, let title): result = ("rename", JSONObject([("id", .string(id.wireString)), ("title", .string(title))]))
        case .remove(let id): result = ("remove", JSONObject([("id", .string(id.wireString))]))
        case .update(let id, let edit):
            var params = JSONObject([("id", .string(id.wireString))])
            if let title = edit.title { params.append("title", .string(title)) }
            for (name, field) in [("author", edit.author), ("url", edit.url), ("note", edit.note)] {
                switch field {
                case .keep: break
                case .clear: params.append(name, .null)
                case .set(let text): params.append(name, .string(text))
                }
            }
            switch edit.tags {
            case .replace(let tags): params.append("tags", .array(tags.map { .string($0) }))
            case .adjust(let add, let remove):
                if !add.isEmpty { params.append("addTags", .array(add.map { .string($0) })) }
                if !remove.isEmpty { params.append("removeTags", .array(remove.map { .string($0) })) }
            }
            result = ("update", params)
        }
        if let expect { result.params.append("expect", .number(JSONNumber(expect))) }
        if let expectItem { result.params.append("expectItem", .number(JSONNumber(expectItem))) }
        return result
    }
}
