/// A JSON object (RFC 8259 §4): its members in source order.
///
/// RFC 8259 §4 says names "SHOULD be unique" but leaves duplicates to the implementation. Duplicate keys are
/// kept in ``members`` (so nothing is lost and the writer reproduces them), and every lookup returns the
/// **last** value for a key, as ECMAScript `JSON.parse` does.
///
/// Equality and hashing compare ``members`` in order: `{"a":1,"b":2}` and `{"b":2,"a":1}` are different
/// values. Lookups scan the members linearly, which is the fast choice for the small objects of JSON-RPC.
public struct JSONObject: Sendable, Hashable {
    /// The members in source (or insertion) order, duplicates included.
    public var members: [(key: String, value: JSONValue)]

    /// An object with `members` in the given order; duplicate keys are kept.
    public init(_ members: [(String, JSONValue)] = []) {
        self.members = members.map { (key: $0.0, value: $0.1) }
    }

    /// An object with the given members, already labelled.
    init(labelled members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// The value of the last member named `key`, or `nil` if there is none.
    ///
    /// Setting a value replaces the last member named `key` (or appends a member if there is none);
    /// setting `nil` removes every member named `key`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = lastIndex(of: key) else { return nil }
            return members[index].value
        }
        set {
            if let newValue {
                if let index = lastIndex(of: key) {
                    members[index].value = newValue
                } else {
                    members.append((key: key, value: newValue))
                }
            } else {
                members.removeAll { $0.key == key }
            }
        }
    }

    /// The member names in order, duplicates included.
    public var keys: [String] { members.map(\.key) }

    /// The number of members, duplicates included.
    public var count: Int { members.count }

    /// True when the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Adds a member at the end, even if `key` is already present.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    /// True if `lhs` and `rhs` have the same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) where left.key != right.key || left.value != right.value {
            return false
        }
        return true
    }

    /// Hashes the members in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }

    private func lastIndex(of key: String) -> Int? {
        members.lastIndex { $0.key == key }
    }
}
