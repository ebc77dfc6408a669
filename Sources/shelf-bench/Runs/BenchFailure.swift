/// Why a run could not go on (printed as `shelf-bench: MESSAGE`, exit status 1).
struct BenchFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
