import Foundation
import Glibc

/// Edits text in the user's editor, as `git commit` does: `$VISUAL`, else `$EDITOR`, else `vi`, run by `/bin/sh`
/// (so the variable may hold arguments) on a temporary file, with the terminal (standard input, output and error
/// are the process's own).
package enum ExternalEditor {
    /// Why editing failed; nothing was changed.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong, for `shelf: …`.
        package let description: String
    }

    /// What the editor left, and the file that holds it, which stays until `discard(_:)`: if saving the text fails,
    /// what the user wrote is still there (as `git commit` keeps `COMMIT_EDITMSG`).
    package struct Edited: Sendable {
        /// The file's text after the editor ended.
        package let text: String
        /// The temporary file.
        package let path: String
    }

    /// Removes the file of an edit whose text was saved, or that changed nothing.
    package static func discard(_ edited: Edited) {
        unlink(edited.path)
    }

    /// The editor command `environment` names: a non-empty `VISUAL`, else a non-empty `EDITOR`, else `vi`.
    package static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.allSatisfy(\.isWhitespace) { return value }
        }
        return "vi"
    }

    /// Writes `text` to a temporary file, runs `editor` on it, and returns what the file then holds, keeping the
    /// file (`Edited`); when editing fails the file is removed. The process ignores SIGINT and SIGQUIT while the editor runs (Ctrl-C is the editor's),
    /// and the editor starts with them, and SIGPIPE, at their defaults.
    /// - Throws: `Failure` when the file cannot be made or read, or the editor cannot start or exits non-zero.
    package static func edit(_ text: String, editor: String, environment: [String: String]) throws(Failure) -> Edited {
        let directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/shelf-note-XXXXXX.txt".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemps($0, 4) } ?? -1 }
        guard fd >= 0 else { throw Failure(description: "cannot make a temporary file in \(directory): \(String(cString: strerror(errno)))") }
        let path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var kept = false
        defer { if !kept { unlink(path) } }
        let contents = Array((text.isEmpty || text.hasSuffix("\n") ? text : text + "\n").utf8)
        let wrote = contents.withUnsafeBytes { writeAll(fd, $0) }
        close(fd)
        guard wrote else { throw Failure(description: "cannot write the temporary file \(path): \(String(cString: strerror(errno)))") }
        let status = try run(editor, path)
        guard status == 0 else {
            throw Failure(description: "the editor (\(editor)) exited with status \(status); nothing was changed")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read the edited file \(path)")
        }
        guard let edited = String(validating: data, as: UTF8.self) else {
            throw Failure(description: "the edited text is not UTF-8; nothing was changed")
        }
        kept = true
        return Edited(text: edited, path: path)
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard let base = bytes.baseAddress else { return true }
            let written = write(fd, base + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Runs `sh -c 'EDITOR "$@"' EDITOR PATH` and waits for it; its exit status (128 + N for a signal N).
    private static func run(_ editor: String, _ path: String) throws(Failure) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let arguments = ["/bin/sh", "-c", "\(editor) \"$@\"", editor, path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }

        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start the editor (\(editor)): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "lost the editor (\(editor)): \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc does not export as functions.
        let signalNumber = status & 0x7F
        return signalNumber == 0 ? (status >> 8) & 0xFF : 128 + signalNumber
    }
}
