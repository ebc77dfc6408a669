import Foundation
import ShelfCommandLine
import ShelfCore
import ShelfServer
import ShelfSockets
import ShelfWire

/// `shelfd`'s whole life: parse arguments, open the store, listen, serve until SIGINT/SIGTERM, exit.
public enum ShelfdMain {
    /// Runs `shelfd` and returns its exit status: 0 after a clean stop, 1 when it cannot start (store refused,
    /// port in use), 64 for a bad command line.
    /// - Parameter onListening: called with the bound address right after the `listening` line (tests).
    public static func run(
        arguments: [String], environment: [String: String], output: Output = .standard,
        onListening: (@Sendable (HostPort) -> Void)? = nil
    ) async -> Int32 {
        var options: ShelfdOptions
        do {
            switch try ShelfdCommand.parse(arguments, environment: environment) {
            case .help:
                output.line(ShelfdCommand.usage)
                return ExitCode.success.rawValue
            case .version:
                output.line("shelfd \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.protocolVersion))")
                return ExitCode.success.rawValue
            case .serve(let parsed):
                options = parsed
            }
        } catch {
            output.error("shelfd: error: \(error.message)\nrun 'shelfd --help' for the flags")
            return ExitCode.usage.rawValue
        }
        if let path = options.tokenFile {
            switch Self.token(from: path, listen: options.configuration.listen) {
            case .success(let token): options.configuration.token = token
            case .failure(let error):
                output.error("shelfd: \(error)")
                return ExitCode.failure.rawValue
            }
        }
        let signals = TerminationSignals()
        // From here on every standard-error line goes through the log's queue, so lines keep their order; it is
        // flushed before each return.
        let log = ServerLog.queued { output.error($0) }
        let list: ReadingList
        do {
            list = try await ReadingList(
                store: options.store.makeStore(log: { log($0) }), historyLimit: options.configuration.historyLimit,
                historyBytes: options.configuration.historyBytes,
                executor: Reactor.shared.executor.serial, completionExecutor: Reactor.shared.executor)
        } catch {
            log("cannot open the store: \(error)")
            await log.flush()
            return ExitCode.failure.rawValue
        }
        let server = Server(list: list, configuration: options.configuration, log: log)
        let address: HostPort
        do {
            address = try await server.start()
        } catch {
            log("cannot listen on \(options.configuration.listen): \(Self.reason(error))")
            await log.flush()
            return ExitCode.failure.rawValue
        }
        output.line("shelfd listening on \(address)")
        let snapshot = await list.snapshot()
        log("store \(options.store.summary): revision \(snapshot.revision), \(ServerLog.count(snapshot.items.count, "item"))")
        if let path = options.tokenFile {
            log("connections must authenticate with the token in \(path)\(options.tokenFileIsDefault ? " (the default token file)" : "")")
        }
        onListening?(address)
        let received = signals.signals
        let stopper = Task {
            for await number in received {
                log("\(number == SIGINT ? "SIGINT" : "SIGTERM") received, stopping")
                await server.shutdown()
                return
            }
        }
        await server.run()
        await server.shutdown()
        stopper.cancel()
        log("stopped")
        await log.flush()
        return ExitCode.success.rawValue
    }

    /// The token in `path`, refused when others can read the file, or when it is shorter than
    /// `TokenFile.minimumBytesBeyondLoopback` and `listen` is beyond loopback (protocol/PROTOCOL.md §12).
    static func token(from path: String, listen: HostPort) -> Result<String, TokenFile.Failure> {
        TokenFile.load(path).flatMap { loaded in
            if let exposure = TokenFile.exposure(of: path, mode: loaded.mode) {
                return .failure(TokenFile.Failure(description: "refusing to start: \(exposure)"))
            }
            let bytes = loaded.token.utf8.count
            if !listen.isLoopback, bytes < TokenFile.minimumBytesBeyondLoopback {
                return .failure(TokenFile.Failure(description: """
                    refusing to listen on \(listen) with a \(bytes)-byte token (\(path)): beyond loopback a token must be \
                    at least \(TokenFile.minimumBytesBeyondLoopback) bytes. Make one with: \
                    (umask 077; head -c 24 /dev/urandom | base64 > \(path))
                    """))
            }
            return .success(loaded.token)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case SocketError.failed(_, let code)? = error as? SocketError {
            let hint = switch code {
            case EADDRINUSE: " — is another shelfd (or other server) running there? Stop it, or pick another port with --listen"
            case EADDRNOTAVAIL: " — no interface of this machine has that address; check --listen"
            case EACCES: " — ports below 1024 need privileges; pick another port with --listen"
            default: ""
            }
            return "\(String(cString: strerror(code))) (errno \(code))\(hint)"
        }
        return "\(error)"
    }
}
