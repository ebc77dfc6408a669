import Foundation

/// Finds the built `shelfd` and `shelf` executables: they sit in the SwiftPM products directory, next to the test
/// bundle (`swift build --build-tests` builds them, since this target depends on both).
enum Executables {
    struct NotFound: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        var description: String {
            "cannot find the built \(name) executable; looked in: \(searched.joined(separator: ", ")) — run `swift build --build-tests` first"
        }
    }

    /// The products directory holding both executables.
    static let directory: Result<URL, NotFound> = {
        let candidates = candidateDirectories()
        for directory in candidates
        where isExecutable(directory.appending(path: "shelfd")) && isExecutable(directory.appending(path: "shelf")) {
            return .success(directory)
        }
        return .failure(NotFound(name: "shelfd and shelf", searched: candidates.map(\.path)))
    }()

    /// The executable named `name` (`shelfd` or `shelf`).
    static func url(_ name: String) throws -> URL {
        try directory.get().appending(path: name)
    }

    /// Where to look, best first:
    /// 1. the directory of the running test binary: on Linux `Bundle.main.bundleURL` is the directory holding
    ///    `<Package>PackageTests.xctest` (an executable there), which is the products directory;
    /// 2. the same found from `/proc/self/exe` or `argv[0]`;
    /// 3. on macOS the `.xctest` bundle is a directory inside the products directory, so its parent;
    /// 4. walking up from this source file to the package root, then `.build/debug`.
    private static func candidateDirectories() -> [URL] {
        var found: [URL] = []
        let bundle = Bundle.main.bundleURL.standardizedFileURL
        found.append(bundle)
        found.append(bundle.deletingLastPathComponent())
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            found.append(URL(filePath: exe).deletingLastPathComponent())
        }
        if let argv0 = CommandLine.arguments.first, argv0.contains("/") {
            let url = URL(filePath: argv0, relativeTo: URL(filePath: FileManager.default.currentDirectoryPath))
            found.append(url.standardizedFileURL.deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            found.append(bundle.bundleURL.standardizedFileURL.deletingLastPathComponent())
        }
        if let root = try? RepositoryFiles.root() { found.append(root.appending(path: ".build/debug")) }
        var seen = Set<String>()
        return found.filter { seen.insert($0.path).inserted }
    }

    private static func isExecutable(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: url.path)
    }
}
