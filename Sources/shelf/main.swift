import Foundation
import ShelfCLI
import ShelfCommandLine

signal(SIGPIPE, SIG_IGN)
let status = await ShelfMain.run(
    rawArguments: CommandArguments.raw, environment: ProcessInfo.processInfo.environment, output: .command,
    interactive: isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1)
exit(status)
