import Foundation

/// Reads a shared token from a file (`shelfd --token-file`, `shelf --token-file`): the whole file, surrounding
/// whitespace and newlines trimmed. The token itself is never printed or logged.
enum TokenFile {
    /// Why a token file cannot be used.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ path: String) -> Result<String, Failure> {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return .failure(Failure(description: "cannot read the token file \(path): \(reason(error, path: path))"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(Failure(description: "the token file \(path) is not UTF-8 text"))
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return .failure(Failure(description: "the token file \(path) is empty")) }
        return .success(token)
    }

    private static func reason(_ error: any Error, path: String) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(code)))
        }
        // Foundation's message here says only "The operation could not be completed": ask the system why.
        let fd = open(path, O_RDONLY)
        if fd < 0 { return String(cString: strerror(errno)) }
        close(fd)
        return (error as NSError).localizedDescription
    }
}
