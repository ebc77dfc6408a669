/// Where the file store lives when `shelfd` is not told (issue #2): `$SHELF_DATA_DIR/reading-list.json`, else
/// `$XDG_DATA_HOME/shelf/reading-list.json`, else `~/.local/share/shelf/reading-list.json`.
public enum StoreLocation {
    /// The snapshot's file name inside the data directory.
    public static let fileName = "reading-list.json"

    /// The default snapshot path for `environment` (empty variables count as unset); `nil` when none of
    /// `SHELF_DATA_DIR`, `XDG_DATA_HOME` and `HOME` is set.
    public static func defaultPath(environment: [String: String]) -> String? {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let dir = value("SHELF_DATA_DIR") { return join(dir, fileName) }
        if let dir = value("XDG_DATA_HOME") { return join(join(dir, "shelf"), fileName) }
        if let home = value("HOME") { return join(join(home, ".local/share/shelf"), fileName) }
        return nil
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
