import Foundation
import Glibc

/// Blocking file operations for one snapshot file: read it whole, and replace it atomically (write a temp file in
/// the same directory, fsync it, rename it over the file, fsync the directory). Runs only on a storage thread.
struct SnapshotFile: Sendable {
    /// The snapshot's path.
    let path: String
    /// Where a replacement is written before the rename; a leftover from a crash is removed by `removeLeftoverTemp`.
    let tempPath: String
    /// The lock file beside the snapshot (see `StoreLock`).
    let lockPath: String
    let directory: String
    let faults: FileFaults?
    /// The path as given, before links were followed (`checkLinkTarget`).
    let requestedPath: String

    /// - Parameter path: the snapshot's path; a symbolic link (or one on the way) is followed (`StorePath`), so the
    ///   link stays a link to a file the store updates, and the journal, temp and lock files sit beside that file (a
    ///   compaction's rename would otherwise replace the link with a plain file).
    init(path: String, faults: FileFaults?) {
        requestedPath = path
        let url = URL(fileURLWithPath: StorePath.resolved(path))
        self.path = url.path
        directory = url.deletingLastPathComponent().path
        tempPath = FileBytes.hiddenSibling(of: url.path, suffix: "tmp")
        lockPath = FileBytes.hiddenSibling(of: url.path, suffix: "lock")
        self.faults = faults
    }

    /// Refuses a store reached through a symbolic link whose target's directory is missing (protocol/STORAGE.md,
    /// "Where"): on an unmounted volume, creating it would serve an empty list beside the real one. A link to a file
    /// not created yet, in a directory that exists, is fine (a link made before the first start).
    /// - Throws: `StorageError.danglingLink` naming the link and its target.
    func checkLinkTarget() throws(StorageError) {
        var link = requestedPath
        while link.count > 1, link.hasSuffix("/") { link.removeLast() }
        var status = stat()
        if lstat(link, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, !Self.exists(directory) {
            throw .danglingLink(link: link, target: path)
        }
        // A directory on the way that is a link to nothing.
        var ancestor = URL(fileURLWithPath: link).deletingLastPathComponent().path
        while ancestor.count > 1 {
            if lstat(ancestor, &status) == 0 {
                if status.st_mode & S_IFMT == S_IFLNK, !Self.exists(ancestor) {
                    let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: ancestor)) ?? "?"
                    throw .danglingLink(link: ancestor, target: target)
                }
                return
            }
            ancestor = URL(fileURLWithPath: ancestor).deletingLastPathComponent().path
        }
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Creates the parent directories if they are missing.
    func createDirectory() throws(StorageError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            throw .io(call: "mkdir", path: directory, errno: Int32(code ?? Int(EIO)))
        }
    }

    /// The file's bytes, or `nil` when it does not exist.
    func read() throws(StorageError) -> [UInt8]? {
        try FileBytes.read(path)
    }

    /// Removes a temp file left by a crash during a replacement.
    func removeLeftoverTemp() {
        _ = unlink(tempPath)
    }

    /// Atomically replaces the file with `data`; on failure the old file is intact and the temp file removed.
    /// - Parameter previous: the bytes the file held before (`nil`: it did not exist). Asked for only when the
    ///   directory cannot be synced after the rename, to put the old file back, so that a failed replacement
    ///   never leaves the new data behind.
    func replace(with data: [UInt8], previous: () -> [UInt8]?) throws(StorageError) {
        try writeAndRename(data)
        do throws(StorageError) {
            try faults?.check(.syncDirectory)
            try syncDirectory()
        } catch {
            if let old = previous() {
                try? writeAndRename(old)
                try? syncDirectory()
            } else {
                _ = unlink(path)
            }
            throw error
        }
    }

    /// How much of a snapshot is written between two syncs: 4 MiB (Redis's `aof-rewrite-incremental-fsync` uses
    /// 4 MB, redis.conf).
    static let syncSliceBytes = 4 << 20

    private func writeAndRename(_ data: [UInt8]) throws(StorageError) {
        let fd = retryingEINTR { open(tempPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if fd < 0 { throw .io(call: "open", path: tempPath, errno: errno) }
        do throws(StorageError) {
            try faults?.check(.write)
            // Synced a slice at a time, as Redis syncs its rewrites every 4 MB: so the final sync has little left
            // to write, rather than a whole large snapshot for the journal's fdatasyncs to queue behind.
            var start = 0
            while start < data.count {
                let end = min(start + Self.syncSliceBytes, data.count)
                try FileBytes.writeAll(data[start..<end], to: fd, at: start, path: tempPath)
                if end < data.count {
                    try faults?.check(.syncSlice)
                    if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: tempPath, errno: errno) }
                }
                start = end
            }
            try faults?.check(.fsync)
            if retryingEINTR({ fsync(fd) }) != 0 { throw .io(call: "fsync", path: tempPath, errno: errno) }
            close(fd)
        } catch {
            close(fd)
            removeLeftoverTemp()
            throw error
        }
        do throws(StorageError) {
            try faults?.check(.rename)
            if rename(tempPath, path) != 0 { throw .io(call: "rename", path: path, errno: errno) }
        } catch {
            removeLeftoverTemp()
            throw error
        }
    }

    /// Makes the rename durable: without it a crash can bring the old directory entry back.
    func syncDirectory() throws(StorageError) {
        let fd = retryingEINTR { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if fd < 0 { throw .io(call: "open", path: directory, errno: errno) }
        defer { close(fd) }
        if retryingEINTR({ fsync(fd) }) != 0 { throw .io(call: "fsync", path: directory, errno: errno) }
    }
}
