import Foundation

/// A fresh directory under the system temp directory; call `remove()` at the end of the test.
struct TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-core-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
