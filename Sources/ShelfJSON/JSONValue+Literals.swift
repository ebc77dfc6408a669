// Literal conformances so tests and hand-built replies read like JSON:
// `let v: JSONValue = ["jsonrpc": "2.0", "id": 7, "params": [true, .null]]`.

extension JSONValue: ExpressibleByStringLiteral {
    /// A `.string` value.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A `.number` value with the literal's decimal text.
    public init(integerLiteral value: Int) {
        self = .number(JSONNumber(value))
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A `.bool` value.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An `.array` value with the elements in order.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An `.object` value with the members in literal order (duplicates kept).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the members in literal order (duplicates kept).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
