import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfLiveView
import ShelfWire

/// `shelf`'s whole life: parse arguments, run one command against the server, print, exit.
public enum ShelfMain {
    /// `run(arguments:environment:output:)` with the arguments still as bytes (`CommandArguments.raw`): one that is
    /// not UTF-8 is a usage error (exit 64), not a title full of U+FFFD.
    /// - Parameter interactive: standard input and output are a terminal: no command opens the live view.
    public static func run(
        rawArguments: [[UInt8]], environment: [String: String], output: Output = .standard, interactive: Bool = false
    ) async -> Int32 {
        do {
            return await run(
                arguments: try CommandArguments.decode(rawArguments), environment: environment, output: output,
                interactive: interactive)
        } catch {
            let json = rawArguments.prefix(while: { $0 != Array("--".utf8) }).contains(Array("--json".utf8))
            ErrorReport(usage: error, pointer: ShelfHelp.pointer(for: nil)).print(to: output, json: json)
            return ExitCode.usage.rawValue
        }
    }

    /// Runs `shelf` with `arguments` (without the program name) and returns its exit status (`ExitCode`, README
    /// "shelf"): 0 ok; 1 refused by the server, or an ID that matches no item or several (for several ids, the
    /// status of the first that failed); 64 usage; 69 server unreachable, full, gone, or silent past `--timeout`; 75
    /// a conditional change (`--expect`, `--expect-item`) that conflicted; 76 a reply that is not Shelf's protocol.
    /// - Parameter interactive: standard input and output are a terminal: no command opens the live view.
    public static func run(
        arguments: [String], environment: [String: String], output: Output = .standard, interactive: Bool = false
    ) async -> Int32 {
        let command: ShelfCommand
        do throws(UsageError) {
            // A config file that cannot be read is reported only for a command that would use it: help and the
            // version still work, and say how to mend it.
            let config: ShelfConfig
            do throws(UsageError) {
                config = try ShelfConfig.load(environment: environment)
            } catch {
                let bare = try ShelfCommand.parse(arguments, environment: environment, defaultCommand: interactive ? "ui" : nil)
                switch bare.action {
                case .help, .version: config = ShelfConfig()
                default: throw error
                }
            }
            command = try ShelfCommand.parse(
                arguments, environment: environment, config: config, defaultCommand: interactive ? "ui" : nil)
        } catch {
            // The command line did not parse, so `--json` is looked for as typed (before any `--`).
            let json = arguments.prefix(while: { $0 != "--" }).contains("--json")
            ErrorReport(usage: error, pointer: ShelfHelp.pointer(for: error.command)).print(to: output, json: json)
            return ExitCode.usage.rawValue
        }
        switch command.action {
        case .help(let topic):
            guard let text = ShelfHelp.text(for: topic) else {
                output.error("shelf: error: no help for \"\(topic ?? "")\": not a command\n\(ShelfHelp.pointer(for: nil))")
                return ExitCode.usage.rawValue
            }
            output.line(text)
            return ExitCode.success.rawValue
        case .version:
            output.line("shelf \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.protocolVersion))")
            return ExitCode.success.rawValue
        case .watch:
            if let warning = tokenWarning(command) { output.error("shelf: warning: \(warning)") }
            return await watch(command, output: output)
        case .ui:
            return await liveView(command, environment: environment, output: output)
        default:
            break
        }
        if let warning = tokenWarning(command) { output.error("shelf: warning: \(warning)") }
        do {
            let client = try await ShelfClient.connect(to: command.server, token: try token(command), timeout: command.timeout)
            let status: ExitCode
            do {
                let connect: @Sendable () async throws -> ShelfClient = {
                    try await ShelfClient.connect(to: command.server, token: try token(command), timeout: command.timeout)
                }
                status = try await CommandRunner(
                    client: client, command: command, output: output, environment: environment, connect: connect).run()
            } catch {
                await client.close()
                throw error
            }
            await client.close()
            return status.rawValue
        } catch {
            let report = ErrorReport(error, command: command)
            report.print(to: output, json: command.json)
            return report.exit.rawValue
        }
    }

    /// Runs `shelf watch` until SIGINT or SIGTERM; exits 0 then, at once: the watch is cancelled, not waited for
    /// (a call waiting for a server that does not answer would hold a task group up to `--timeout`); only what it
    /// already printed is given up to a second to be written.
    private static func watch(_ command: ShelfCommand, output: Output) async -> Int32 {
        let signals = SignalWatcher()
        let received = signals.signals
        let (ends, end) = AsyncStream.makeStream(of: Int32.self)
        // Change lines start with the local time on a terminal, where they are read as they come; not in a file.
        var clock: (@Sendable () -> String)?
        if TerminalWidth.outputIsTerminal { clock = { @Sendable in LocalTime.now() } }
        let screen = WatchScreen(output: output, json: command.json, clock: clock)
        let runner = Task {
            end.yield(await WatchRunner(command: command, screen: screen).run())
        }
        let stopper = Task {
            for await _ in received {
                end.yield(ExitCode.success.rawValue)
                return
            }
        }
        var first = ends.makeAsyncIterator()
        let status = await first.next() ?? ExitCode.success.rawValue
        runner.cancel()
        stopper.cancel()
        // What was shown before the end is written, unless its reader does not take it within a second.
        await screen.flush(within: .seconds(1))
        screen.close()
        withExtendedLifetime(signals) {}
        return status
    }

    /// Runs the live view on the terminal; refused (exit 64) without one, or on one that cannot move the cursor.
    private static func liveView(_ command: ShelfCommand, environment: [String: String], output: Output) async -> Int32 {
        if let refusal = LiveViewApp.refusal(environment: environment) {
            output.error("shelf: \(refusal)")
            return ExitCode.usage.rawValue
        }
        if let warning = tokenWarning(command) { output.error("shelf: warning: \(warning)") }
        let repository = NetworkListRepository(address: command.server, timeout: command.timeout) { try token(command) }
        return await LiveViewApp.run(repository: repository, title: "\(command.server)", environment: environment)
    }

    /// What `shelf` says of `error` (after `shelf: `). `5 unauthorized` is said in the command line's terms, not
    /// the protocol's: the server's message shows the `auth` request, and counts attempts on one connection, while
    /// each `shelf` run opens a new one.
    static func message(for error: ClientError, _ command: ShelfCommand) -> String {
        if case .noReply(let address, let limit, let method) = error {
            // Only when the change itself was sent: a lookup or `auth` that timed out changed nothing.
            let unsure = MethodCall.changeMethods.contains(method) ? "; the change may or may not have been made (shelf list shows)" : ""
            return "no reply from \(address) within \(limit.components.seconds) s (--timeout; is shelfd stopped or overloaded?)\(unsure)"
        }
        if case .server(let rpc) = error, rpc.knownCode == .conflict, command.expect == nil,
           let current = rpc.data["itemRevision"]?.numberValue?.uint64 {
            guard let expected = command.expectItem else {
                // `note ID` alone expects the item as it was read before the editor opened.
                return "nothing was changed: the item was changed elsewhere while it was edited (it is now at revision "
                    + "\(current)); look again (shelf show ID) and edit it again"
            }
            return "nothing was changed: the item is at revision \(current), not \(expected) (--expect-item): it changed "
                + "since; look again (shelf show ID), then retry with --expect-item \(current) if it still applies"
        }
        if case .server(let rpc) = error, rpc.knownCode == .conflict, let expected = command.expect {
            guard let current = rpc.data["revision"]?.numberValue?.uint64 else {
                return "nothing was changed: the list is not at revision \(expected) (--expect)"
            }
            if current < expected {
                return "nothing was changed: the list is at revision \(current), and has not reached \(expected) (--expect)"
            }
            // Any change to any item moves the list's revision, so the item itself may be as it was.
            return "nothing was changed: the list is at revision \(current), not \(expected) (--expect): something changed "
                + "since; look again (shelf list, shelf show ID), then retry with --expect \(current) if it still applies"
        }
        guard case .server(let rpc) = error, rpc.knownCode == .unauthorized else { return "\(error)" }
        if let wait = rpc.data["retryAfter"]?.numberValue?.uint64 {
            return "the server is holding back auth attempts from this address (too many from it lately, wrong tokens "
                + "perhaps from someone else); the token was not checked: try again in \(wait) s"
        }
        switch command.token {
        case nil: return "this server requires a token: pass --token-file PATH or set SHELF_TOKEN"
        case .defaultFile(let path)? where TokenFile.isMissing(path):
            return "this server requires a token: pass --token-file PATH, set SHELF_TOKEN, or put it in \(path)"
        case .file(let path)?, .defaultFile(let path)?: return "the server refused the token in \(path)"
        case .value?: return "the server refused the token in $SHELF_TOKEN"
        }
    }

    /// The token to authenticate with, read from its file when it comes from one; `nil` for none (the default
    /// token file included, when it does not exist).
    static func token(_ command: ShelfCommand) throws -> String? {
        switch command.token {
        case nil: return nil
        case .value(let token)?: return token
        case .file(let path)?: return try TokenFile.read(path).get()
        case .defaultFile(let path)?: return TokenFile.isMissing(path) ? nil : try TokenFile.read(path).get()
        }
    }

    /// A warning for a token file others can read (`TokenFile.exposure`): `shelf` still uses it, `shelfd` would
    /// refuse it.
    static func tokenWarning(_ command: ShelfCommand) -> String? {
        switch command.token {
        case .file(let path)?, .defaultFile(let path)?:
            guard case .success(let loaded) = TokenFile.load(path) else { return nil }
            return TokenFile.exposure(of: path, mode: loaded.mode)
        case .value?, nil:
            return nil
        }
    }

    static func exitCode(for error: ClientError) -> ExitCode {
        switch error {
        case .cannotConnect, .connectionLost, .noReply: .unavailable
        // Full: the service is unavailable for now, as when it cannot be reached; retrying later may work.
        case .server(let rpc) where rpc.knownCode == .tooManyConnections: .unavailable
        // A conditional change that lost a race: try again (after looking again), as EX_TEMPFAIL says.
        case .server(let rpc) where rpc.knownCode == .conflict: .temporaryFailure
        case .server: .failure
        case .protocolViolation: .protocolError
        }
    }
}
