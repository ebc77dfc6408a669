/// A parsed JSON value (RFC 8259 §3).
///
/// Numbers keep their source text (``JSONNumber``) and objects keep their members in order, duplicates
/// included (``JSONObject``), so a value written back with ``JSONWriter`` says exactly what was read.
///
/// - Important: Equality, hashing, encoding and deallocation recurse once per level of nesting. Values from
///   ``JSONParser`` are bounded by its `maxDepth`; keep hand-built values similarly shallow.
public enum JSONValue: Sendable, Equatable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its exact source text.
    case number(JSONNumber)
    /// A string, with escapes decoded.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, members in order, duplicates kept.
    case object(JSONObject)

    /// The string if this is `.string`, else `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number if this is `.number`, else `nil`.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The Boolean if this is `.bool`, else `nil`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements if this is `.array`, else `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object if this is `.object`, else `nil`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}
