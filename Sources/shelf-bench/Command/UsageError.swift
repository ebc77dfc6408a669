/// A command-line mistake: printed as `shelf-bench: error: MESSAGE` followed by the usage, exit status 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
