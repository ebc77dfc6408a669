import Glibc

// shelf-bench: parse the command line, bound the whole run in time, run the mode, print the result.

let command: BenchCommand
do {
    command = try BenchCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.err("shelf-bench: error: \(error)")
    Console.err(BenchCommand.usage)
    exit(64)
}

let options: BenchOptions
switch command {
case .help:
    Console.out(BenchCommand.usage)
    exit(0)
case .version:
    Console.out(BenchCommand.versionText)
    exit(0)
case .run(let chosen):
    options = chosen
}

signal(SIGPIPE, SIG_IGN)
let limit = options.effectiveTimeout
Task.detached {
    try? await Task.sleep(for: limit)
    Console.err("shelf-bench: gave up after \(limit) (--timeout)")
    exit(1)
}

do throws(BenchFailure) {
    switch options.mode {
    case .load:
        let report = try await LoadRun(options: options).run()
        Console.out(Format.keyValues(mode: "load", report.fields))
        Console.err(report.sentence)
    case .hold(let count):
        try await HoldRun(options: options, count: count).run { fields, sentence in
            Console.out(Format.keyValues(mode: "hold", fields))
            Console.err(sentence)
        }
    case .watch(let watchers):
        let report = try await WatchRun(options: options, watchers: watchers).run()
        Console.out(Format.keyValues(mode: "watch", report.fields))
        Console.err(report.sentence)
    }
} catch {
    Console.err("shelf-bench: \(error)")
    exit(1)
}
exit(0)
