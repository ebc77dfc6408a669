import ShelfServer

/// What `shelfd` serves and how.
public struct ShelfdOptions: Equatable, Sendable {
    /// Listening address and limits.
    public var configuration: ServerConfiguration
    /// The store to serve.
    public var store: StoreChoice
}
