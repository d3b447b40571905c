import Foundation
import MediaSearchCommand

let environment = ProcessInfo.processInfo.environment
let status = await MediaSearch.run(
    Array(CommandLine.arguments.dropFirst()), environment: environment, console: .standard(environment: environment)
)
exit(status)
