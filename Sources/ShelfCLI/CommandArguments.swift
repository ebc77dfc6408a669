import Glibc
import ShelfCommandLine

/// A process's arguments as strings, checked: `CommandLine.arguments` silently turns bytes that are not UTF-8 into
/// U+FFFD, so a title typed in a terminal with another encoding would be stored as replacement characters.
public enum CommandArguments {
    /// The arguments after the program name, each decoded as UTF-8.
    /// - Parameter raw: each argument's bytes, without the program name or a terminating NUL.
    /// - Throws: `UsageError` naming the first argument (from 1) that is not valid UTF-8.
    public static func decode(_ raw: [[UInt8]]) throws(UsageError) -> [String] {
        var arguments: [String] = []
        arguments.reserveCapacity(raw.count)
        for (index, bytes) in raw.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw UsageError("argument \(index + 1) is not valid UTF-8; set the terminal to UTF-8 and type it again")
            }
            arguments.append(text)
        }
        return arguments
    }

    /// The bytes of this process's arguments after the program name (`CommandLine.unsafeArgv`).
    public static var raw: [[UInt8]] {
        // argc is 0 when a program is started with an empty argv.
        guard CommandLine.argc > 1 else { return [] }
        return (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
        }
    }
}
