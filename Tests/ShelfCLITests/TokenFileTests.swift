import Foundation
import Testing

@testable import ShelfCommandLine

/// `TokenFile.read` (README, "Sharing on a LAN"): the token is the file's text, trimmed; a file that cannot be one
/// is refused with what the system said, and a FIFO is refused rather than waited on.
@Suite struct TokenFileTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "shelf-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func failure(_ path: String) -> String? {
        if case .failure(let failure) = TokenFile.read(path) { return failure.description }
        return nil
    }

    @Test("a token is the file's text with surrounding whitespace and newlines trimmed")
    func trimmed() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/token"
        try "  s3cret token\n\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try TokenFile.read(path).get() == "s3cret token")
    }

    @Test("a missing file, a directory, a FIFO, an empty file and bytes that are not UTF-8 are refused, each saying why")
    func refused() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(failure(directory + "/missing") == "cannot read the token file \(directory)/missing: No such file or directory")
        #expect(failure(directory) == "the token file \(directory) is not a regular file")
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(failure(fifo) == "the token file \(fifo) is not a regular file")
        let empty = directory + "/empty"
        try "\n \n".write(toFile: empty, atomically: true, encoding: .utf8)
        #expect(failure(empty) == "the token file \(empty) is empty")
        let binary = directory + "/binary"
        try Data([0x74, 0xFF, 0x6B]).write(to: URL(fileURLWithPath: binary))
        #expect(failure(binary) == "the token file \(binary) is not UTF-8 text")
    }
}
