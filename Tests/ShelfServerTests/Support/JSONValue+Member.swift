import ShelfJSON
import ShelfWire

extension JSONValue {
    /// The value at a path of object member names, e.g. `reply.member("result", "item", "title")`; `nil` when a
    /// step is missing or not an object.
    func member(_ path: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in path {
            current = current?.objectValue?[key]
        }
        return current
    }

    /// The whole number at `path`, if there is one.
    func integer(_ path: String...) -> Int? {
        var current: JSONValue? = self
        for key in path {
            current = current?.objectValue?[key]
        }
        return current?.numberValue?.int64.map { Int($0) }
    }
}
