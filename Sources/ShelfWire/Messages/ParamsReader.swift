import Foundation
import ShelfCore
import ShelfJSON

/// Reads a method's `params` object strictly: known names only, each of the right type. Every failure is a
/// -32602 error whose message names the param and what was expected (protocol/PROTOCOL.md, "Errors").
struct ParamsReader {
    let method: String
    let params: JSONObject

    /// Fails on a param the method does not take (a typo such as `titel` should not be silently ignored).
    func allowOnly(_ names: [String]) -> RPCError? {
        guard let unknown = params.members.first(where: { !names.contains($0.key) })?.key else { return nil }
        let expected = names.isEmpty ? "none" : names.sorted().joined(separator: ", ")
        return invalid("unknown param \"\(RPCError.quotable(unknown))\" for \(method) (takes: \(expected))")
    }

    func string(_ name: String) -> Result<String, RPCError> {
        switch params[name] {
        case .string(let value)?: .success(value)
        case nil: .failure(invalid("missing param \"\(name)\" (a string)"))
        case .some: .failure(invalid("param \"\(name)\" must be a string"))
        }
    }

    func bool(_ name: String) -> Result<Bool, RPCError> {
        switch params[name] {
        case .bool(let value)?: .success(value)
        case nil: .failure(invalid("missing param \"\(name)\" (true or false)"))
        case .some: .failure(invalid("param \"\(name)\" must be true or false"))
        }
    }

    func id(_ name: String = "id") -> Result<UUID, RPCError> {
        string(name).flatMap { text in
            guard let id = UUID(wireText: text) else {
                return .failure(invalid("param \"\(name)\" must be a UUID like 3fa2b1c4-0000-4000-8000-000000000000"))
            }
            return .success(id)
        }
    }

    /// An optional revision: absent or null means none; otherwise a whole number from 0 to 2^64-1.
    func revision(_ name: String) -> Result<Revision?, RPCError> {
        switch params[name] {
        case nil, .null?: .success(nil)
        case .number(let number)?:
            if let value = number.uint64 { .success(value) }
            else { .failure(invalid("param \"\(name)\" must be a whole number from 0 to 18446744073709551615")) }
        case .some: .failure(invalid("param \"\(name)\" must be a revision number"))
        }
    }

    func invalid(_ detail: String) -> RPCError {
        RPCError(.invalidParams, "Invalid params: \(detail)")
    }
}
