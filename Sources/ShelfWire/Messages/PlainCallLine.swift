import Foundation
import ShelfCore
import ShelfJSON

/// Reads the request lines clients send most straight into a typed call — for example
/// `{"jsonrpc":"2.0","id":7,"method":"add","params":{"title":"Dune"}}` into id 7 and `.mutate(.add(title: "Dune"))`
/// — skipping the `RPCRequest`, its params object and the method-name look-ups `MethodCall.decode` makes (on a
/// pipelined `add`, decoding cost more than saving the item).
///
/// It takes only lines inside `PlainRequestLine`'s subset (`PlainLineScanner`) that name one of the methods below
/// with exactly the params that method accepts, of the right types, and answers `nil` for everything else, errors
/// included: the general path (`IncomingMessage.decode`, then `MethodCall.decode`) decides those, with their error
/// messages. For a line it takes it gives exactly the id and call the general path gives (`PlainCallLineTests`).
///
/// Methods and params (protocol/PROTOCOL.md, "Methods"): `hello` and `ping` (no params); `get` (`id`); `add`
/// (`title`, `expect`); `mark` (`id`, `read`, `expect`); `toggle` and `remove` (`id`, `expect`); `rename` (`id`,
/// `title`, `expect`). `expect` is optional and may be `null`; every other param listed is required.
enum PlainCallLine {
    /// The id and call on `line` (without its LF), or `nil` when the general path must decode it.
    static func decode(_ line: UnsafeBufferPointer<UInt8>) -> (id: RequestID?, call: MethodCall)? {
        var scanner = PlainLineScanner(bytes: line)
        return scanner.call()
    }

    /// The params of the subset, as read.
    struct Params {
        var title: String?
        var id: UUID?
        var read: Bool?
        /// `.some(nil)` for `"expect":null`.
        var expect: Revision??

        /// The params present.
        var present: Names = []

        struct Names: OptionSet {
            let rawValue: UInt8
            static let title = Names(rawValue: 1)
            static let id = Names(rawValue: 2)
            static let read = Names(rawValue: 4)
            static let expect = Names(rawValue: 8)
        }

        /// True when the params present are exactly `required`, plus `expect` when `expectAllowed`.
        func are(_ required: Names, expectAllowed: Bool = true) -> Bool {
            present.subtracting(.expect) == required && (expectAllowed || !present.contains(.expect))
        }
    }
}

extension PlainLineScanner {
    fileprivate mutating func call() -> (id: RequestID?, call: MethodCall)? {
        guard let (id, method, params) = requestObject(id: { $0.requestID() }, params: { $0.callParams() }),
              let call = Self.call(method, params ?? PlainCallLine.Params())
        else { return nil }
        return (id, call)
    }

    /// The call `method` makes with `params`, when they are exactly what it takes.
    private static func call(_ method: UnsafeBufferPointer<UInt8>, _ params: PlainCallLine.Params) -> MethodCall? {
        let expect = params.expect ?? nil
        if method.isExactly("add") {
            guard params.are([.title]), let title = params.title else { return nil }
            return .mutate(.add(title: title), expect: expect)
        }
        if method.isExactly("mark") {
            guard params.are([.id, .read]), let id = params.id, let read = params.read else { return nil }
            return .mutate(.setRead(id: id, isRead: read), expect: expect)
        }
        if method.isExactly("toggle") {
            guard params.are([.id]), let id = params.id else { return nil }
            return .mutate(.toggle(id: id), expect: expect)
        }
        if method.isExactly("remove") {
            guard params.are([.id]), let id = params.id else { return nil }
            return .mutate(.remove(id: id), expect: expect)
        }
        if method.isExactly("rename") {
            guard params.are([.id, .title]), let id = params.id, let title = params.title else { return nil }
            return .mutate(.rename(id: id, title: title), expect: expect)
        }
        if method.isExactly("get") {
            guard params.are([.id], expectAllowed: false), let id = params.id else { return nil }
            return .get(id)
        }
        if method.isExactly("ping") {
            return params.are([], expectAllowed: false) ? .ping : nil
        }
        if method.isExactly("hello") {
            return params.are([], expectAllowed: false) ? .hello : nil
        }
        return nil
    }

    /// A string, an integer or `null` (JSON-RPC 2.0 §4).
    private mutating func requestID() -> RequestID? {
        skipSpaces()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(RequestID.string)
        case UInt8(ascii: "n"): return word("null") ? .null : nil
        default: return integer().map(RequestID.number)
        }
    }

    /// `{}` or an object of the subset's params, each at most once and of its type.
    private mutating func callParams() -> PlainCallLine.Params? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var params = PlainCallLine.Params()
        if take(UInt8(ascii: "}")) { return params }
        repeat {
            guard let key = stringBytes(), take(UInt8(ascii: ":")) else { return nil }
            let name: PlainCallLine.Params.Names
            if key.isExactly("title") {
                guard let title = string() else { return nil }
                name = .title
                params.title = title
            } else if key.isExactly("id") {
                guard let text = stringBytes(), let id = UUID(wireBytes: text) else { return nil }
                name = .id
                params.id = id
            } else if key.isExactly("read") {
                if word("true") { params.read = true } else if word("false") { params.read = false } else { return nil }
                name = .read
            } else if key.isExactly("expect") {
                if word("null") { params.expect = .some(nil) } else {
                    guard let revision = revision() else { return nil }
                    params.expect = revision
                }
                name = .expect
            } else {
                return nil
            }
            guard !params.present.contains(name) else { return nil }
            params.present.insert(name)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? params : nil
    }

    /// A whole number from 0 to 2^64-1, as the subset writes it (no sign, no leading zero).
    private mutating func revision() -> Revision? {
        guard let digits = integerBytes(), digits.first != UInt8(ascii: "-") else { return nil }
        var value: Revision = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Revision(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
