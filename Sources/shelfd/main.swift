import Foundation
import ShelfdCLI

let status = await ShelfdMain.run(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status)
