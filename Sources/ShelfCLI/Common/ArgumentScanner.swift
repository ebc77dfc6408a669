/// Splits command-line words into options and operands the way most Unix tools do: `--name value`,
/// `--name=value`, `-h`, and `--` ending the options (so a title may start with `-`).
struct ArgumentScanner {
    enum Token: Equatable {
        /// `--name`, `--name=value` (inline value) or `-h` (name `h`).
        case option(name: String, inlineValue: String?)
        case operand(String)
    }

    private var words: ArraySlice<String>
    private var optionsEnded = false

    init(_ words: [String]) {
        self.words = words[...]
    }

    /// The next token, or `nil` at the end.
    mutating func next() -> Token? {
        guard let word = words.popFirst() else { return nil }
        if optionsEnded { return .operand(word) }
        if word == "--" {
            optionsEnded = true
            return next()
        }
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                return .option(name: String(body[..<equals]), inlineValue: String(body[body.index(after: equals)...]))
            }
            return .option(name: String(body), inlineValue: nil)
        }
        if word.count > 1, word.hasPrefix("-") {
            return .option(name: String(word.dropFirst()), inlineValue: nil)
        }
        return .operand(word)
    }

    /// The value of an option that takes one: its inline value, else the next word.
    /// - Throws: `UsageError` when there is none.
    mutating func value(of option: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        guard let word = words.popFirst() else { throw UsageError("\(Self.spelled(option)) needs a value") }
        return word
    }

    /// How the user spelled an option name: `--listen`, `-h`.
    static func spelled(_ name: String) -> String {
        name.count == 1 ? "-\(name)" : "--\(name)"
    }
}
