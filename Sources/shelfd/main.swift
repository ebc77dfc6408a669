import Foundation
import ShelfCLI

let status = await ShelfdMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status)
