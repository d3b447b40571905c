import Courier
import Foundation
import ITunesSearch
import TMDB

/// The `mediasearch` program, callable in-process: parses the arguments, runs the command through
/// the iTunes and TMDB clients (live, or on the bundled samples with `--offline`), prints a table
/// or JSON, and returns the exit status.
public enum MediaSearch {
    /// Success.
    public static let success: Int32 = 0
    /// A network or server failure.
    public static let failure: Int32 = 1
    /// A usage error (EX_USAGE).
    public static let usageError: Int32 = 64

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments, without the program name.
    ///   - environment: Read for `TMDB_API_KEY`, `TMDB_ACCESS_TOKEN`, and the base URLs
    ///     `MEDIASEARCH_ITUNES_URL`, `MEDIASEARCH_TMDB_URL` and `MEDIASEARCH_IMAGE_URL` (a mirror or a
    ///     local server instead of the live services; `--offline` ignores them). A plain-HTTP TMDB URL
    ///     must name this machine unless `--allow-insecure-http` is given: the key travels with each call.
    ///   - console: Where to print.
    ///   - transport: The transport for live requests; `--offline` always uses the samples.
    /// - Returns: 0, 1 or 64.
    public static func run(
        _ arguments: [String],
        environment: [String: String],
        console: Console,
        transport: (any HTTPTransport)? = nil
    ) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser.parse(arguments)
        } catch {
            console.writeError("mediasearch: \(error.message)\n\n\(Usage.text(for: error.topic))\n")
            return usageError
        }
        if case .help(let topic) = invocation.command {
            console.write(Usage.text(for: topic) + "\n")
            return success
        }
        let urls: ServiceURLs
        do {
            urls = invocation.offline ? ServiceURLs() : try ServiceURLs(environment: environment)
            // Before any client is made: a TMDB call carries the key.
            if invocation.command.isTMDB {
                try urls.checkCredentialTransport(allowsInsecureHTTP: invocation.allowsInsecureHTTP)
            }
        } catch let error as UsageError {
            console.writeError("mediasearch: \(error.message)\n")
            return usageError
        } catch {
            return usageError
        }
        let services = Services(
            invocation: invocation, environment: environment, console: console, urls: urls,
            transport: invocation.offline ? OfflineSamples.transport() : transport ?? APIClient.defaultTransport()
        )
        let service = invocation.command.isTMDB ? "TMDB" : "iTunes"
        do {
            try await services.run(invocation.command)
            return success
        } catch let error as UsageError {
            console.writeError("mediasearch: \(error.message)\n")
            return usageError
        } catch {
            console.writeError("mediasearch: \(FailureMessage.sentence(for: error, service: service))\n")
            return failure
        }
    }
}

extension Invocation.Command {
    var isTMDB: Bool {
        switch self {
        case .popular, .movie, .poster: true
        default: false
        }
    }
}
