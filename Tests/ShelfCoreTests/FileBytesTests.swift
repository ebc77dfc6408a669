import Foundation
import Glibc
@testable import ShelfCore
import Testing

/// `FileBytes.read`: a file's bytes at an offset, and its errors typed with the call, the path and errno.
@Suite struct FileBytesTests {
    /// Runs `body` with a descriptor open on a file holding the bytes 0 to 9.
    private func withTenBytes(_ body: (Int32, String) throws -> Void) throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("ten")
        try Data((0..<10).map { UInt8($0) }).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        try body(fd, path)
    }

    @Test("count bytes from an offset; a file that ends first is EIO from pread")
    func exactCount() throws {
        try withTenBytes { fd, path throws in
            #expect(try FileBytes.read(fd, offset: 2, count: 5, path: path) == [2, 3, 4, 5, 6])
            #expect(try FileBytes.read(fd, offset: 0, count: 10, path: path) == Array(0..<10))
            #expect(try FileBytes.read(fd, offset: 10, count: 0, path: path) == [])
            #expect(throws: StorageError.io(call: "pread", path: path, errno: EIO)) {
                try FileBytes.read(fd, offset: 8, count: 5, path: path)
            }
        }
    }

    @Test("into a buffer: as much as the file holds, 0 at its end")
    func intoBuffer() throws {
        try withTenBytes { fd, path throws in
            var buffer = [UInt8](repeating: 0xFF, count: 8)
            let first = try buffer.withUnsafeMutableBytes { try FileBytes.read(fd, offset: 0, into: $0, path: path) }
            #expect(first == 8)
            #expect(buffer == [0, 1, 2, 3, 4, 5, 6, 7])
            let rest = try buffer.withUnsafeMutableBytes { try FileBytes.read(fd, offset: 8, into: $0, path: path) }
            #expect(rest == 2)
            #expect(buffer[..<2] == [8, 9])
            #expect(try buffer.withUnsafeMutableBytes { try FileBytes.read(fd, offset: 10, into: $0, path: path) } == 0)
        }
    }

    @Test("a failed pread throws its errno with the path")
    func failure() {
        #expect(throws: StorageError.io(call: "pread", path: "/nowhere", errno: EBADF)) {
            try FileBytes.read(-1, offset: 0, count: 4, path: "/nowhere")
        }
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: StorageError.io(call: "pread", path: "/nowhere", errno: EBADF)) {
            try buffer.withUnsafeMutableBytes { try FileBytes.read(-1, offset: 0, into: $0, path: "/nowhere") }
        }
    }
}
