import Foundation

/// Files of this repository that tests check claims against (README.md, Package.swift, scripts/), found by walking
/// up from this source file to the directory holding Package.swift.
enum RepositoryFiles {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The repository's root directory.
    static func root() throws -> URL {
        var directory = URL(filePath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appending(path: "Package.swift").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        throw Missing(description: "no Package.swift above \(#filePath)")
    }

    /// The text of `path`, relative to the root.
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root().appending(path: path), encoding: .utf8)
    }

    /// The lines of the fenced code block that follows the first line of README.md starting with `marker` (the
    /// fence lines themselves left out).
    static func readmeBlock(after marker: String) throws -> [String] {
        let lines = try text("README.md").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(marker) }),
            let open = lines[start...].firstIndex(where: { $0.hasPrefix("```") }),
            let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") })
        else { throw Missing(description: "README.md has no code block after a line starting with \"\(marker)\"") }
        return Array(lines[(open + 1)..<close])
    }
}
