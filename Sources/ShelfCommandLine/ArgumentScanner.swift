/// Splits command-line words into options and operands the way most Unix tools do: `--name value`,
/// `--name=value`, `-h`, and `--` ending the options (so a title may start with `-`).
package struct ArgumentScanner {
    /// One scanned word: an option or an operand.
    package enum Token: Equatable {
        /// `--name`, `--name=value` (inline value) or `-h` (name `h`). A single-dash word of several letters keeps
        /// its dash in `name` (`-rf`), so it matches no long option and is reported as typed.
        case option(name: String, inlineValue: String?)
        /// Anything else, and every word after `--`.
        case operand(String)
    }

    private var words: ArraySlice<String>
    private var optionsEnded = false

    /// A scanner over `words` (without the program name).
    package init(_ words: [String]) {
        self.words = words[...]
    }

    /// The next token, or `nil` at the end.
    package mutating func next() -> Token? {
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
        if word.count == 2, word.hasPrefix("-") {
            return .option(name: String(word.dropFirst()), inlineValue: nil)
        }
        if word.count > 2, word.hasPrefix("-") {
            return .option(name: word, inlineValue: nil)
        }
        return .operand(word)
    }

    /// The value of an option that takes one: its inline value, else the next word.
    /// - Throws: `UsageError` when there is none.
    package mutating func value(of option: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        guard let word = words.popFirst() else { throw UsageError("\(Self.spelled(option)) needs a value") }
        return word
    }

    /// How the user spelled an option name: `--listen`, `-h`, `-rf`.
    package static func spelled(_ name: String) -> String {
        if name.hasPrefix("-") { return name }
        return name.count == 1 ? "-\(name)" : "--\(name)"
    }

    /// Refuses a value given to an option that takes none (`--json=no`).
    package static func noValue(_ name: String, _ inline: String?) throws(UsageError) {
        if inline != nil { throw UsageError("\(spelled(name)) takes no value") }
    }
}
