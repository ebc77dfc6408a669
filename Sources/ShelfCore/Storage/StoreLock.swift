import Glibc

/// An exclusive advisory lock on a lock file beside the store (`lockf`, a POSIX record lock), held while the value
/// lives: two `shelfd` processes on one file would overwrite each other's changes.
///
/// POSIX record locks belong to the process, so stores reopened on the same path inside one process (tests) do not
/// lock each other out; only another process is refused.
final class StoreLock: Sendable {
    private let fd: Int32
    private let path: String

    /// Takes the lock without waiting.
    /// - Throws: `StorageError.locked(path: guarded)` when another process holds it, `.io` when the lock file cannot
    ///   be opened or locked.
    init(path: String, guarding guarded: String) throws(StorageError) {
        let fd = retryingEINTR { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        if fd < 0 { throw .io(call: "open", path: path, errno: errno) }
        if retryingEINTR({ lockf(fd, F_TLOCK, 0) }) != 0 {
            let code = errno
            close(fd)
            if code == EAGAIN || code == EACCES { throw .locked(path: guarded) }
            throw .io(call: "lockf", path: path, errno: code)
        }
        self.fd = fd
        self.path = path
    }

    /// Gives the lock up and removes the lock file, for a store that refused to load: it leaves the directory as
    /// it found it.
    func abandon() {
        _ = unlink(path)
    }

    deinit {
        close(fd)
    }
}
