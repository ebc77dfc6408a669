import ShelfCommandLine
import ShelfServer

/// What `shelfd` serves and how.
public struct ShelfdOptions: Equatable, Sendable {
    /// Listening address and limits.
    public var configuration: ServerConfiguration
    /// The store to serve.
    public var store: StoreChoice
    /// Where the shared token is read from at start-up (`configuration.token` is set from it): `--token-file`, else
    /// the default token file (`ConfigDirectory.tokenFile`), unless `--insecure-no-auth`.
    public var tokenFile: String?
    /// Whether `tokenFile` is the default path, not given: then a missing file means no token, not an error.
    public var tokenFileIsDefault = false
}
