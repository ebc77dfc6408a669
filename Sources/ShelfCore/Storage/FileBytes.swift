import Foundation
import Glibc

/// Where bytes come from a block at a time: a file (`FileBytes.StreamingReader`) or bytes in memory
/// (`FileBytes.InMemory`), so that one line-by-line reader serves both.
protocol BlockSource {
    /// Appends up to `count` bytes to `bytes`.
    /// - Returns: how many were appended; 0 at the end.
    /// - Throws: `StorageError.io` when a read fails.
    mutating func append(to bytes: inout [UInt8], count: Int) throws(StorageError) -> Int
    /// The bytes there are in all, as far as known when it was opened: only a hint for sizing what is read into.
    var sizeHint: Int { get }
}

/// Block-at-a-time reads and full writes with errno captured at once; blocking, for storage threads only.
enum FileBytes {
    /// Opens the file at `path` for reading a block at a time (`StreamingReader`).
    /// - Returns: `nil` when it does not exist.
    /// - Throws: `StorageError.io`; `.notAFile` for a FIFO, a device or a socket there — opened without waiting
    ///   (`O_NONBLOCK`): a FIFO nobody writes to held `shelfd`'s start for good. (A directory fails at the first
    ///   read, with `EISDIR`.)
    static func openForReading(_ path: String) throws(StorageError) -> StreamingReader? {
        let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ENXIO { throw .notAFile(path: path) }
            throw .io(call: "open", path: path, errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .io(call: "fstat", path: path, errno: code)
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else {
            close(fd)
            throw .notAFile(path: path)
        }
        return StreamingReader(fd: fd, path: path, size: Int(info.st_size))
    }

    /// A file read a block at a time, so that memory stays bounded by the block, not the file (the journal,
    /// which can be far larger than the list). Closes the file when released.
    final class StreamingReader: BlockSource {
        private let fd: Int32
        let path: String
        /// The file's size when it was opened.
        let size: Int
        /// Where each `read` lands before it is appended: appending in place could grow a buffer sized for the
        /// whole file past its end.
        private var chunk = [UInt8](repeating: 0, count: chunkBytes)
        /// The most one `read` asks for: 1 MiB.
        static let chunkBytes = 1 << 20

        fileprivate init(fd: Int32, path: String, size: Int) {
            self.fd = fd
            self.path = path
            self.size = size
        }

        deinit { close(fd) }

        var sizeHint: Int { size }

        /// Appends up to `count` bytes to `bytes`.
        /// - Returns: how many were appended; 0 at the end of the file.
        func append(to bytes: inout [UInt8], count: Int) throws(StorageError) -> Int {
            var total = 0
            while total < count {
                let wanted = min(chunk.count, count - total)
                let n = chunk.withUnsafeMutableBytes { raw in retryingEINTR { Glibc.read(fd, raw.baseAddress, wanted) } }
                if n < 0 { throw .io(call: "read", path: path, errno: errno) }
                if n == 0 { break }
                bytes.append(contentsOf: chunk[0..<n])
                total += n
            }
            return total
        }
    }

    /// Bytes already in memory, handed out a block at a time as a file's would be (`SnapshotCodec.decodeStored`).
    struct InMemory: BlockSource {
        let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var sizeHint: Int { bytes.count }

        mutating func append(to buffer: inout [UInt8], count: Int) -> Int {
            let end = offset + min(count, bytes.count - offset)
            buffer.append(contentsOf: bytes[offset..<end])
            defer { offset = end }
            return end - offset
        }
    }

    /// `count` bytes of the open file `fd` from byte `offset` (`pread`: the descriptor's offset is not moved).
    /// - Throws: `StorageError.io` (`pread`, with `path`); `EIO` when the file ends before `offset + count`.
    static func read(_ fd: Int32, offset: Int, count: Int, path: String) throws(StorageError) -> [UInt8] {
        var failure: StorageError?
        // Not zeroed first: only the bytes read are counted as initialised.
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(StorageError) {
                initialized = try read(fd, offset: offset, into: UnsafeMutableRawBufferPointer(buffer), path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if bytes.count < count { throw .io(call: "pread", path: path, errno: EIO) }
        return bytes
    }

    /// Fills `buffer` from byte `offset` of the open file `fd`, or as much of it as the file holds (`pread`: the
    /// descriptor's offset is not moved).
    /// - Returns: the bytes read, from the start of `buffer`: fewer than `buffer.count` only where the file ends.
    /// - Throws: `StorageError.io` (`pread`, with `path`).
    static func read(_ fd: Int32, offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(StorageError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = retryingEINTR { pread(fd, buffer.baseAddress?.advanced(by: done), buffer.count - done, off_t(offset + done)) }
            if n < 0 { throw .io(call: "pread", path: path, errno: errno) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Checks, at start-up, that a leftover temporary file at `path` can be removed (protocol/STORAGE.md,
    /// "Loading", step 7): checked before the store is touched, so a refused start changes nothing.
    /// - Throws: `StorageError.directoryAtTempPath` when a directory is there: every later compaction would fail on it.
    static func checkLeftoverRemovable(_ path: String) throws(StorageError) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        throw .directoryAtTempPath(path: path)
    }

    /// `.NAME.suffix` beside the file at `path` (the store's hidden companions: its lock and temporary files).
    static func hiddenSibling(of path: String, suffix: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(suffix)").path
    }

    /// Writes all of `bytes` at the descriptor's offset (or its end, with O_APPEND), or at byte `position` of the
    /// file when given (`pwrite`: no separate seek, and the offset is not moved).
    static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32, at position: Int? = nil, path: String) throws(StorageError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let start = raw.baseAddress?.advanced(by: offset)
                let n = retryingEINTR {
                    if let position { pwrite(fd, start, raw.count - offset, off_t(position + offset)) }
                    else { write(fd, start, raw.count - offset) }
                }
                if n < 0 { return errno }
                offset += n
            }
            return nil
        }
        if let failure { throw .io(call: position == nil ? "write" : "pwrite", path: path, errno: failure) }
    }
}
