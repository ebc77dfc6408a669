/// Where both programs look for the owner's set-up without flags (README, "Sharing on a LAN"): the XDG Base
/// Directory's config home, `$XDG_CONFIG_HOME/shelf`, else `$HOME/.config/shelf`.
package enum ConfigDirectory {
    /// The directory, or `nil` when neither `XDG_CONFIG_HOME` nor `HOME` is set (or both are empty).
    package static func path(environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty { return base + "/shelf" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/shelf" }
        return nil
    }

    /// The default token file, `…/shelf/token`: used by `shelfd` and `shelf` when no token is given otherwise.
    package static func tokenFile(environment: [String: String]) -> String? {
        path(environment: environment).map { $0 + "/token" }
    }

    /// `shelf`'s config file, `…/shelf/config` (`ShelfConfig`).
    package static func configFile(environment: [String: String]) -> String? {
        path(environment: environment).map { $0 + "/config" }
    }
}
