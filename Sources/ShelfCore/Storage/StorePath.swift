import Glibc

/// Where a store's files really are: the snapshot path with symbolic links followed as the kernel follows them
/// when it opens the file, also when the file does not exist yet (protocol/STORAGE.md, "Files").
///
/// `URL.resolvingSymlinksInPath()` is not enough: for a missing file it resolves nothing, and it simplifies `..` as
/// text, so `linkdir/../list.json` meant another directory than the kernel's, and a link made before the first start
/// was replaced by the first compaction.
enum StorePath {
    /// `path` (made absolute) with a link in its last component followed, hop by hop (at most 40, the kernel's own
    /// limit, after which the path is left as it is for `open` to report ELOOP), and its directory resolved by
    /// `realpath` when that directory exists.
    static func resolved(_ path: String) -> String {
        var current = absolute(path)
        // `list.json/` would have lstat follow a link and fail when its file is not there yet (the usual case); the
        // store is a file, so the slash can only be a slip.
        while current.count > 1, current.hasSuffix("/") { current.removeLast() }
        for _ in 0..<40 {
            guard let target = linkTarget(current) else { break }
            current = target.hasPrefix("/") ? target : directory(of: current) + "/" + target
        }
        let name = lastComponent(of: current)
        guard name != "..", name != ".", let real = realDirectory(directory(of: current)) else { return current }
        return real == "/" ? "/" + name : real + "/" + name
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    /// The target `path` holds when it is a symbolic link; `nil` otherwise (or when it does not exist).
    private static func linkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func realDirectory(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
