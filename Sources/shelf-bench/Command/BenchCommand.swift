import ShelfSockets

/// A parsed `shelf-bench` command line.
enum BenchCommand: Equatable {
    case help
    case version
    case run(BenchOptions)

    static let versionText = "shelf-bench 0.1.0"

    static let usage = """
        usage: shelf-bench [--server HOST:PORT] [--connections C] [--pipeline P] [--duration SECONDS]
                           [--warmup SECONDS] [--requests N] [--template LINE] [--start N] [--setup-line LINE]...
                           [--reply line|resp] [--hold N] [--watchers W] [--watch-line LINE] [--timeout SECONDS]
                           [--help] [--version]

        A closed-loop load generator for line protocols (shelfd's JSON-RPC, Redis inline commands): C connections,
        P requests in flight on each, one new request sent per reply received. Prints ops/s and latency
        percentiles (from a request's send to its reply; replies come in order per connection).

          --server HOST:PORT      where to connect; loopback addresses only (default 127.0.0.1:7453)
          --connections C         connections (default 1)
          --pipeline P            requests in flight per connection (default 1)
          --duration SECONDS      measured time; decimals allowed (default 5)
          --warmup SECONDS        load before measuring starts (default 1)
          --requests N            stop after N replies in all instead of after --duration (no warm-up)
          --template LINE         the request line; every {n} becomes a counter unique across all connections
                                  (default \(BenchOptions.defaultTemplate))
          --start N               the counter's first value (default 1)
          --setup-line LINE       sent once on every connection before the run, waiting for its reply; repeatable
          --reply line|resp       reply framing: one reply per line (default), or RESP frames (Redis arrays and
                                  bulk strings, e.g. for LRANGE)
          --hold N                open N connections (sending --template once on each, if given, and waiting for
                                  its reply), print the result line, then hold them open for --duration seconds
          --watchers W            W connections send --watch-line and count `changed` notifications while the
                                  --connections writers send --template for --duration; reports whether every
                                  watcher received every acknowledged change, in order
          --watch-line LINE       what a watcher sends (default \(BenchOptions().watchLine))
          --timeout SECONDS       give up with exit status 1 after this long (default: the run's times + 60 s)
          -h, --help              show this help
          --version               show the version

        Output: one `key=value` result line on stdout (for scripts) and a sentence on stderr.
        Exit status: 0 done (even if the server answered errors: see errors=), 1 could not run, 64 bad usage.
        """

    /// Parses `arguments` (without the program name).
    /// - Throws: `UsageError` for an unknown option, a missing or bad value, or a stray operand.
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchCommand {
        var words = arguments[...]
        var options = BenchOptions()
        var hold: Int?
        var watchers: Int?
        while let word = words.popFirst() {
            if word == "--" {
                if let stray = words.first { throw UsageError("unexpected argument \"\(stray)\"") }
                break
            }
            guard word.hasPrefix("-"), word != "-" else { throw UsageError("unexpected argument \"\(word)\"") }
            let (name, inline) = split(word)
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = words.popFirst() else { throw UsageError("\(name) needs a value") }
                return next
            }
            switch name {
            case "-h", "--help":
                try noValue(name, inline)
                return .help
            case "--version":
                try noValue(name, inline)
                return .version
            case "--server":
                options.server = try address(try value())
            case "--connections":
                options.connections = try number(name, try value(), in: 1...100_000)
            case "--pipeline":
                options.pipeline = try number(name, try value(), in: 1...100_000)
            case "--duration":
                options.duration = try seconds(name, try value(), allowZero: false)
            case "--warmup":
                options.warmup = try seconds(name, try value(), allowZero: true)
            case "--requests":
                options.requests = try number(name, try value(), in: 1...1_000_000_000)
            case "--template":
                options.template = try line(name, try value())
            case "--start":
                options.start = try number(name, try value(), in: 0...(1 << 52))
            case "--setup-line":
                options.setupLines.append(try line(name, try value()))
            case "--reply":
                let text = try value()
                guard let framing = BenchOptions.Framing(rawValue: text) else {
                    throw UsageError("--reply takes line or resp, not \"\(text)\"")
                }
                options.framing = framing
            case "--hold":
                hold = try number(name, try value(), in: 1...1_000_000)
            case "--watchers":
                watchers = try number(name, try value(), in: 1...100_000)
            case "--watch-line":
                options.watchLine = try line(name, try value())
            case "--timeout":
                options.timeout = try seconds(name, try value(), allowZero: false)
            default:
                throw UsageError("unknown option \(name)")
            }
        }
        switch (hold, watchers) {
        case (.some, .some):
            throw UsageError("--hold and --watchers cannot be combined")
        case (.some(let count), nil):
            options.mode = .hold(connections: count)
        case (nil, .some(let count)):
            options.mode = .watch(watchers: count)
            if options.framing == .resp { throw UsageError("--watchers needs --reply line (notifications are lines)") }
        case (nil, nil):
            break
        }
        return .run(options)
    }

    /// `--name=value` -> (`--name`, `value`); anything else -> (word, nil).
    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    private static func noValue(_ name: String, _ inline: String?) throws(UsageError) {
        if inline != nil { throw UsageError("\(name) takes no value") }
    }

    private static func number(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    /// Decimal seconds (`5`, `0.5`), at most a day, to millisecond precision.
    private static func seconds(_ name: String, _ text: String, allowZero: Bool) throws(UsageError) -> Duration {
        guard let value = Double(text), value.isFinite, value <= 86_400, allowZero ? value >= 0 : value > 0 else {
            throw UsageError("\(name) takes seconds (\(allowZero ? "0" : "more than 0") to 86400, e.g. 0.5), not \"\(text)\"")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// A request line: it must not hold a line break (the tool adds the LF).
    private static func line(_ name: String, _ text: String) throws(UsageError) -> String {
        guard !text.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) else {
            throw UsageError("\(name) takes one line without line breaks (the LF is added)")
        }
        return text
    }

    /// `HOST:PORT` on loopback: this tool generates load, and load belongs on this machine.
    private static func address(_ text: String) throws(UsageError) -> HostPort {
        let parsed: HostPort
        do {
            parsed = try HostPort(parsing: text)
        } catch {
            throw UsageError("--server takes HOST:PORT (e.g. 127.0.0.1:7453), not \"\(text)\"")
        }
        guard parsed.isLoopback else {
            throw UsageError("--server must be a loopback address (127.0.0.0/8, ::1, localhost), not \"\(text)\"")
        }
        guard parsed.port != 0 else { throw UsageError("--server needs a port other than 0") }
        return parsed
    }
}
