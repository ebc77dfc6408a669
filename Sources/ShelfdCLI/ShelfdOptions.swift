import ShelfCommandLine
import ShelfServer

/// What `shelfd` serves and how.
public struct ShelfdOptions: Equatable, Sendable {
    /// Listening address and limits.
    public var configuration: ServerConfiguration
    /// The store to serve.
    public var store: StoreChoice
    /// `--token-file`: where the shared token is read from at start-up (`configuration.token` is set from it).
    public var tokenFile: String?
}
