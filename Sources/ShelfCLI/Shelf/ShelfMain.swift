import Foundation
import ShelfClient
import ShelfCore
import ShelfWire

/// `shelf`'s whole life: parse arguments, run one command against the server, print, exit.
public enum ShelfMain {
    /// Runs `shelf` and returns its exit status (`ExitCode`): 0 ok, 1 refused by the server, 64 usage,
    /// 69 server unreachable or gone, 76 a reply that is not Shelf's protocol.
    public static func run(arguments: [String], environment: [String: String], output: Output = .standard) async -> Int32 {
        let command: ShelfCommand
        do {
            command = try ShelfCommand.parse(arguments, environment: environment)
        } catch {
            output.error("shelf: error: \(error.message)\n\n\(ShelfHelp.usage)")
            return ExitCode.usage.rawValue
        }
        switch command.action {
        case .help(let topic):
            guard let text = ShelfHelp.text(for: topic) else {
                output.error("shelf: error: no help for \"\(topic ?? "")\": not a command\n\n\(ShelfHelp.usage)")
                return ExitCode.usage.rawValue
            }
            output.line(text)
            return ExitCode.success.rawValue
        case .version:
            output.line("shelf \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.protocolVersion))")
            return ExitCode.success.rawValue
        default:
            break
        }
        do {
            let client = try await ShelfClient.connect(to: command.server)
            do {
                try await CommandRunner(client: client, command: command, output: output).run()
            } catch {
                await client.close()
                throw error
            }
            await client.close()
            return ExitCode.success.rawValue
        } catch let error as ClientError {
            output.error("shelf: \(error)")
            return exitCode(for: error).rawValue
        } catch let error as IDPrefix.Failure {
            output.error("shelf: \(error)")
            return ExitCode.failure.rawValue
        } catch {
            output.error("shelf: \(error)")
            return ExitCode.failure.rawValue
        }
    }

    static func exitCode(for error: ClientError) -> ExitCode {
        switch error {
        case .cannotConnect, .connectionLost, .timedOut: .unavailable
        case .server: .failure
        case .protocolViolation: .protocolError
        }
    }
}
