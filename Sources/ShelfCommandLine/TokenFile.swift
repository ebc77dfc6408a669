import Foundation

/// Reads a shared token from a file (`shelfd --token-file`, `shelf --token-file`): the whole file, surrounding
/// whitespace and newlines trimmed. The token itself is never printed or logged.
package enum TokenFile {
    /// Why a token file cannot be used.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong, naming the file and what the system said.
        package let description: String
    }

    /// The token in the file at `path`: a regular file (not a FIFO, which would block, nor a directory), read
    /// whole with the system's own calls, so a failure says what the system said.
    package static func read(_ path: String) -> Result<String, Failure> {
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
        return .success(token)
    }

    private static func cannotRead(_ path: String, _ code: Int32) -> Failure {
        Failure(description: "cannot read the token file \(path): \(String(cString: strerror(code)))")
    }
}
