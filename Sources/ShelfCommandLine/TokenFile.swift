import Foundation

/// Reads a shared token from a file (`shelfd --token-file`, `shelf --token-file`): the whole file, surrounding
/// whitespace and newlines trimmed. The token itself is never printed or logged.
package enum TokenFile {
    /// Why a token file cannot be used.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong, naming the file and what the system said.
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// A token as read, with what the file's mode says about who else can read it.
    package struct Loaded: Sendable, Equatable {
        /// The token, trimmed.
        package let token: String
        /// The file's permission bits (`st_mode & 0o7777`).
        package let mode: UInt32
    }

    /// The shortest token `shelfd` takes when listening beyond loopback, in bytes of UTF-8: 16 random bytes are
    /// 128 bits, out of any guesser's reach at the slowed rate (protocol/PROTOCOL.md §12).
    package static let minimumBytesBeyondLoopback = 16

    /// The token in the file at `path`: a regular file (not a FIFO, which would block, nor a directory), read
    /// whole with the system's own calls, so a failure says what the system said.
    package static func read(_ path: String) -> Result<String, Failure> {
        load(path).map(\.token)
    }

    /// `read`, with the file's mode.
    /// - Returns: `.failure` when the file cannot be opened (`errno` ENOENT included), is not a regular file, is
    ///   over 1 MiB, is not UTF-8, or holds only whitespace.
    package static func load(_ path: String) -> Result<Loaded, Failure> {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return .failure(cannotRead(path, errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(cannotRead(path, errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return .failure(Failure(description: "the token file \(path) is not a regular file"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .failure(cannotRead(path, errno)) }
            if count == 0 { break }
            bytes += chunk[..<count]
            // A token is a line; a file this long is not a token file.
            guard bytes.count <= 1 << 20 else { return .failure(Failure(description: "the token file \(path) is over 1 MiB")) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Failure(description: "the token file \(path) is not UTF-8 text"))
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return .failure(Failure(description: "the token file \(path) is empty")) }
        return .success(Loaded(token: token, mode: UInt32(info.st_mode) & 0o7777))
    }

    /// What is wrong with a token file of `mode` at `path`, as OpenSSH refuses a private key others can read: `nil`
    /// when neither its group nor others have any permission on it; else a sentence that says so and gives the
    /// `chmod` to run.
    package static func exposure(of path: String, mode: UInt32) -> String? {
        guard mode & 0o077 != 0 else { return nil }
        let octal = String(mode & 0o777, radix: 8)
        return "the token file \(path) can be read by others (mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal)); "
            + "make it private with: chmod 600 \(path)"
    }

    /// Whether a failed `load` was for a file that does not exist (a default path need not).
    package static func isMissing(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    private static func cannotRead(_ path: String, _ code: Int32) -> Failure {
        Failure(description: "cannot read the token file \(path): \(String(cString: strerror(code)))")
    }
}
