import Foundation

extension UUID {
    /// The id as sent on the wire: lowercase, hyphenated (protocol/PROTOCOL.md, `Item`).
    public var wireString: String { uuidString.lowercased() }
}
