import Foundation
import ShelfCLI

signal(SIGPIPE, SIG_IGN)
let status = await ShelfMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
    output: .command)
exit(status)
