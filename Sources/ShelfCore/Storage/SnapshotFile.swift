import Foundation
import Glibc

/// Blocking file operations for one snapshot file: read it a block at a time, and replace it atomically (write a
/// temp file in the same directory a slice at a time, fsync it, rename it over the file, fsync the directory).
/// Reading holds a block, writing a list a slice: never the whole file. Runs only on a storage thread.
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

    /// Reads and checks the snapshot `blockBytes` at a time (`SnapshotCodec.decodeStored(from:blockBytes:path:)`).
    /// - Returns: what it holds and its size in bytes, or `nil` when it does not exist.
    /// - Throws: `StorageError` naming the file when it cannot be read or is refused.
    func readStored(blockBytes: Int) throws(StorageError) -> (stored: SnapshotCodec.Stored, bytes: Int)? {
        guard var reader = try FileBytes.openForReading(path) else { return nil }
        return (try SnapshotCodec.decodeStored(from: &reader, blockBytes: blockBytes, path: path), reader.size)
    }

    /// Removes a temp file left by a crash during a replacement.
    func removeLeftoverTemp() {
        _ = unlink(tempPath)
    }

    /// Atomically replaces the file with `snapshot` in format 3, as the list `identity`, encoded a sync slice at a
    /// time (`SnapshotCodec.Slices`), as `replace(writing:)`.
    /// - Returns: the new file's size in bytes.
    func replace(with snapshot: ListSnapshot, identity: UUID) throws(StorageError) -> Int {
        var slices = SnapshotCodec.Slices(snapshot, identity: identity, sliceBytes: Self.syncSliceBytes)
        return try replace { slices.next()?[...] }
    }

    /// Atomically replaces the file with `data`, as `replace(writing:)`.
    func replace(with data: [UInt8]) throws(StorageError) {
        var start = 0
        _ = try replace {
            guard start < data.count else { return nil }
            defer { start = min(start + Self.syncSliceBytes, data.count) }
            return data[start..<min(start + Self.syncSliceBytes, data.count)]
        }
    }

    /// Atomically replaces the file with the slices `next` gives until it gives `nil`, each synced before the next
    /// is written; on failure the old file is intact and the temp file removed. When the directory cannot be synced
    /// after the rename, the old file is put back the same way (copied, a slice at a time, from a descriptor opened
    /// before the rename), so that a failed replacement never leaves the new data behind; when there was none, the
    /// new one is removed.
    /// - Returns: the new file's size in bytes.
    /// - Throws: `StorageError.io` (or an injected fault) from the first call that failed.
    func replace(writing next: () throws(StorageError) -> ArraySlice<UInt8>?) throws(StorageError) -> Int {
        let old = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        if old < 0, errno != ENOENT { throw .io(call: "open", path: path, errno: errno) }
        defer { if old >= 0 { close(old) } }
        let size = try writeAndRename(next)
        do throws(StorageError) {
            try faults?.check(.syncDirectory)
            try syncDirectory()
        } catch {
            if old >= 0 {
                // One buffer for every slice: `writeAndRename` lets go of a slice before it asks for the next.
                var buffer = [UInt8](repeating: 0, count: Self.syncSliceBytes)
                var offset = 0
                _ = try? writeAndRename { () throws(StorageError) -> ArraySlice<UInt8>? in
                    let count = try buffer.withUnsafeMutableBytes { raw in
                        Result { () throws(StorageError) in try FileBytes.read(old, offset: offset, into: raw, path: path) }
                    }.get()
                    offset += count
                    return count == 0 ? nil : buffer[..<count]
                }
                try? syncDirectory()
            } else {
                _ = unlink(path)
            }
            throw error
        }
        return size
    }

    /// How much of a snapshot is written between two syncs: 4 MiB (Redis's `aof-rewrite-incremental-fsync` uses
    /// 4 MB, redis.conf).
    static let syncSliceBytes = 4 << 20

    /// Writes the slices to the temp file, syncing after each but the last, then fsyncs and renames it.
    /// - Returns: the bytes written.
    private func writeAndRename(_ next: () throws(StorageError) -> ArraySlice<UInt8>?) throws(StorageError) -> Int {
        let fd = retryingEINTR { open(tempPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if fd < 0 { throw .io(call: "open", path: tempPath, errno: errno) }
        var written = 0
        do throws(StorageError) {
            try faults?.check(.write)
            // Synced a slice at a time, as Redis syncs its rewrites every 4 MB: so the final sync has little left
            // to write, rather than a whole large snapshot for the journal's fdatasyncs to queue behind.
            // Each slice is let go of before the next is asked for, so a source may reuse one buffer for all.
            var first = true
            while let slice = try next() {
                if !first {
                    try faults?.check(.syncSlice)
                    if retryingEINTR({ fdatasync(fd) }) != 0 { throw .io(call: "fdatasync", path: tempPath, errno: errno) }
                }
                first = false
                try FileBytes.writeAll(slice, to: fd, at: written, path: tempPath)
                written += slice.count
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
        return written
    }

    /// Makes the rename durable: without it a crash can bring the old directory entry back.
    func syncDirectory() throws(StorageError) {
        let fd = retryingEINTR { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if fd < 0 { throw .io(call: "open", path: directory, errno: errno) }
        defer { close(fd) }
        if retryingEINTR({ fsync(fd) }) != 0 { throw .io(call: "fsync", path: directory, errno: errno) }
    }
}
