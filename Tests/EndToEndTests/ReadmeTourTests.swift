import Foundation
import Testing

/// README.md's "A quick tour", run as written: the `shelf` commands of its Terminal 2 block against a real
/// `shelfd`, then the lines of its netcat block over one connection. The expected output is read from the README
/// itself, so the README and the program cannot drift apart. Ids differ from run to run: the README's ids are
/// matched with the run's by order of first appearance.
struct ReadmeTourTests {
    /// One `shelf` command of the tour and the lines the README shows it printing.
    struct Step {
        var arguments: [String]
        var expected: [String] = []
    }

    /// The commands of the `shelf` block: `# ` lines are the output of the command above them; a command's own
    /// trailing comment and the `alias` line are left out.
    static func steps(_ block: [String]) throws -> [Step] {
        var steps: [Step] = []
        for line in block where !line.isEmpty && !line.hasPrefix("alias ") {
            if line.hasPrefix("# ") {
                guard !steps.isEmpty else { throw EndToEndFailure(description: "output before any command: \(line)") }
                steps[steps.count - 1].expected.append(String(line.dropFirst(2)))
                continue
            }
            let command = line.components(separatedBy: "  #")[0]
            let words = Self.words(command)
            guard words.first == "shelf" else { throw EndToEndFailure(description: "not a shelf command: \(line)") }
            steps.append(Step(arguments: Array(words.dropFirst())))
        }
        return steps
    }

    /// Splits a command line as the shell would for the tour's simple lines: at spaces, double quotes grouping.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current: String?
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                current = current ?? ""
            } else if character == " ", !quoted {
                if let word = current { words.append(word) }
                current = nil
            } else {
                current = (current ?? "") + String(character)
            }
        }
        if let word = current { words.append(word) }
        return words
    }

    /// The README's ids and the run's, in order of first appearance.
    struct IDs {
        var readme: [String] = []
        var actual: [String] = []

        static func find(in lines: [String]) -> [String] {
            lines.flatMap { $0.matches(of: #/\b[0-9a-f]{8}\b/#).map { String($0.output) } }
        }

        static func note(_ found: [String], in list: inout [String]) {
            for id in found where !list.contains(id) { list.append(id) }
        }

        /// `line` with each id of `list` written as `<id N>`.
        static func placeholders(_ line: String, _ list: [String]) -> String {
            list.enumerated().reduce(line) { $0.replacingOccurrences(of: $1.element, with: "<id \($1.offset + 1)>") }
        }

        /// An argument that is a prefix of one of the README's ids, as the same length of the run's id.
        func translated(_ argument: String) -> String {
            guard argument.count >= 4, argument.allSatisfy(\.isHexDigit),
                let index = readme.firstIndex(where: { $0.hasPrefix(argument) }), index < actual.count
            else { return argument }
            return String(actual[index].prefix(argument.count))
        }
    }

    @Test("the shelf commands of the tour print what the README shows, ids aside; netcat gets the replies it shows")
    func tourAsWritten() async throws {
        let steps = try Self.steps(try RepositoryFiles.readmeBlock(after: "Terminal 2"))
        let netcat = try RepositoryFiles.readmeBlock(after: "Terminal 3")
        #expect(steps.count == 6)
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                var ids = IDs()
                for step in steps {
                    let arguments = step.arguments.map(ids.translated)
                    let outcome = try await run("shelf", ["--server", shelfd.address] + arguments, environment: sandbox.environment)
                    let printed = outcome.stdout.split(separator: "\n").map(String.init)
                    IDs.note(IDs.find(in: step.expected), in: &ids.readme)
                    IDs.note(IDs.find(in: printed), in: &ids.actual)
                    #expect(outcome.status == 0 && outcome.stderr.isEmpty, "shelf \(arguments): \(outcome.stderr)")
                    #expect(printed.map { IDs.placeholders($0, ids.actual) } == step.expected.map { IDs.placeholders($0, ids.readme) },
                        "shelf \(step.arguments.joined(separator: " "))")
                }
                #expect(ids.readme.count == 2 && ids.actual.count == 2)
                let port = try #require(UInt16(shelfd.port))
                let mismatches = await onOwnThread { Self.converse(netcat, port: port) }
                #expect(mismatches.isEmpty, "\(mismatches)")
            }
        }
    }

    /// Sends the netcat block's requests on one connection and reads a reply for each reply line the block shows
    /// after it. A reply owed to a line that should get none (a notification) would come first and not match.
    /// - Returns: what did not match, empty when all did.
    static func converse(_ block: [String], port: UInt16) -> [String] {
        guard block.first?.hasPrefix("nc 127.0.0.1 ") == true else { return ["the block does not start with nc: \(block)"] }
        do {
            let socket = try BlockingLineSocket.connect(port: port)
            var mismatches: [String] = []
            for line in block.dropFirst() where !line.isEmpty {
                guard line.hasPrefix(#"{"jsonrpc""#) else {
                    try socket.sendLine(line)
                    continue
                }
                let reply = try socket.readLine() ?? "(connection closed)"
                if reply.wholeMatch(of: try Self.pattern(line)) == nil { mismatches.append("expected \(line), got \(reply)") }
            }
            return mismatches
        } catch {
            return ["\(error)"]
        }
    }

    /// A reply line as the README shows it, with `…` for any string's text and `[...]` for any array.
    static func pattern(_ shown: String) throws -> Regex<AnyRegexOutput> {
        let arrays = shown.components(separatedBy: "[...]").map { piece in
            piece.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: #"[^"]*"#)
        }
        return try Regex(arrays.joined(separator: #"\[.*\]"#))
    }
}
