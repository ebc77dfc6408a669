import Foundation
import ShelfJSON

extension RevisionedChange {
    /// The shape shared by the `changed` notification's params (protocol/PROTOCOL.md §6) and a journal record
    /// (protocol/STORAGE.md): `{"revision":N,"change":{"kind":"added"|"updated","item":Item}}` or
    /// `{"revision":N,"change":{"kind":"removed","id":ID}}`.
    public var json: JSONValue {
        .object(JSONObject([("revision", .number(JSONNumber(revision))), ("change", change.json)]))
    }

    /// Appends the same JSON as `JSONWriter.append(json)` directly, without building a `JSONValue`: every journal
    /// record and every `changed` notification is this shape.
    public func appendJSON(to bytes: inout [UInt8]) {
        JSONWriter.appendRaw(#"{"revision":"#, to: &bytes)
        JSONWriter.appendInteger(revision, to: &bytes)
        JSONWriter.appendRaw(#","change":"#, to: &bytes)
        change.appendJSON(to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Reads that shape back; `nil` when a member is missing, of the wrong type, or the kind is unknown.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, let revision = object["revision"]?.numberValue?.uint64,
              let changeValue = object["change"], let change = ListChange(json: changeValue)
        else { return nil }
        self.init(revision: revision, change: change)
    }
}

extension ListChange {
    /// `{"kind":"added"|"updated","item":Item}` or `{"kind":"removed","id":ID}`.
    public var json: JSONValue {
        switch self {
        case .added(let item): .object(JSONObject([("kind", "added"), ("item", item.json)]))
        case .updated(let item): .object(JSONObject([("kind", "updated"), ("item", item.json)]))
        case .removed(let id): .object(JSONObject([("kind", "removed"), ("id", .string(id.wireString))]))
        }
    }

    /// Appends the same JSON as `JSONWriter.append(json)` directly.
    public func appendJSON(to bytes: inout [UInt8]) {
        switch self {
        case .added(let item), .updated(let item):
            JSONWriter.appendRaw(self.isAdded ? #"{"kind":"added","item":"# : #"{"kind":"updated","item":"#, to: &bytes)
            item.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .removed(let id):
            JSONWriter.appendRaw(#"{"kind":"removed","id":""#, to: &bytes)
            id.appendWireText(to: &bytes)
            JSONWriter.appendRaw(#""}"#, to: &bytes)
        }
    }

    private var isAdded: Bool {
        if case .added = self { true } else { false }
    }

    /// Reads that shape back; `nil` when it is malformed.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, let kind = object["kind"]?.stringValue else { return nil }
        switch kind {
        case "added", "updated":
            guard let value = object["item"], let item = Item(json: value) else { return nil }
            self = kind == "added" ? .added(item) : .updated(item)
        case "removed":
            guard let text = object["id"]?.stringValue, let id = UUID(wireText: text) else { return nil }
            self = .removed(id)
        default:
            return nil
        }
    }
}
