import Foundation
import ShelfCommandLine

/// `shelf`'s config file (`ConfigDirectory.configFile`: `$XDG_CONFIG_HOME/shelf/config`, else
/// `~/.config/shelf/config`; README, "Sharing on a LAN"): the defaults for one person's machine, below the command
/// line and the environment.
///
/// One setting a line, `key = value`; blank lines and lines starting with `#` are skipped, as in git's config.
/// Keys: `server` (HOST:PORT, as `--server`) and `token-file` (PATH, as `--token-file`; a leading `~/` is the home
/// directory). An unknown key or a line without `=` is an error naming the file and line, so a typo is not ignored.
public struct ShelfConfig: Equatable, Sendable {
    /// `server = HOST:PORT`, as written (checked where it is used, like `$SHELF_SERVER`).
    public var server: String?
    /// `token-file = PATH`.
    public var tokenFile: String?
    /// The file it came from, for messages.
    public var path: String?

    /// An empty config: no file, or nothing set.
    public init(server: String? = nil, tokenFile: String? = nil, path: String? = nil) {
        self.server = server
        self.tokenFile = tokenFile
        self.path = path
    }

    /// The keys a config file may set.
    static let keys = ["server", "token-file"]

    /// Parses the text of the file at `path`; `home` expands a leading `~/` in `token-file`.
    /// - Throws: `UsageError` naming `path` and the line for a line that is not `key = value`, an unknown key, or an
    ///   empty value.
    public static func parse(_ text: String, path: String, home: String?) throws(UsageError) -> ShelfConfig {
        var config = ShelfConfig(path: path)
        // By Character.isNewline: "\r\n" is one Character, so splitting on "\n" would leave a CRLF file one line.
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(path) line \(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError("\(place): expected key = value, not \"\(line)\"")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw UsageError("\(place): \(key) has no value") }
            switch key {
            case "server": config.server = value
            case "token-file":
                if value.hasPrefix("~/"), let home, !home.isEmpty {
                    config.tokenFile = home + value.dropFirst(1)
                } else {
                    config.tokenFile = value
                }
            default:
                throw UsageError("\(place): unknown setting \"\(key)\" (known: \(keys.joined(separator: ", ")))")
            }
        }
        return config
    }

    /// The config file for `environment`, read and parsed; an empty config when there is none.
    /// - Throws: `UsageError` when the file exists but cannot be read, is not UTF-8, or does not parse.
    static func load(environment: [String: String]) throws(UsageError) -> ShelfConfig {
        guard let path = ConfigDirectory.configFile(environment: environment), !TokenFile.isMissing(path) else {
            return ShelfConfig()
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read the config file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw UsageError("the config file \(path) is not UTF-8 text")
        }
        return try parse(text, path: path, home: environment["HOME"])
    }
}
