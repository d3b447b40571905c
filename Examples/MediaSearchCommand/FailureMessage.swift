import Courier
import Foundation
import TMDB

/// One plain sentence for a failed call: who failed, why, and what to try.
enum FailureMessage {
    /// The sentence, with anything the server wrote in it made safe for a terminal.
    static func sentence(for error: any Error, service: String) -> String {
        TerminalText.clean(unsafeSentence(for: error, service: service))
    }

    private static func unsafeSentence(for error: any Error, service: String) -> String {
        guard let error = error as? APIError else {
            if let missing = error as? TMDBClient.MissingCredentials { return "\(missing), or use --offline" }
            return "\(service) failed: \(error)"
        }
        let host = error.request?.url.host ?? service
        let detail = error.serverMessage.map { ": \($0)" } ?? ""
        switch error.kind {
        case .unacceptableStatus(let status) where status == .unauthorized && service == "TMDB":
            return "TMDB rejected the API key (401)\(detail)"
        case .unacceptableStatus(let status) where status == .tooManyRequests || status == .forbidden:
            return "\(service) is limiting requests (\(status.code))\(detail); wait a minute and try again"
        case .unacceptableStatus(let status):
            return "\(service) answered \(status)\(detail)"
        case .transport(.cannotConnect), .transport(.connectionLost), .transport(.tls):
            return "could not reach \(host): \(trimmed(error.message)); try --offline"
        case .transport(.timedOut), .transport(.deadlineExceeded):
            return "\(host) did not answer in time (\(trimmed(error.message))); try again or use --offline"
        case .transport:
            return "the exchange with \(host) failed: \(error.message)"
        case .decoding, .unacceptableContentType:
            return "\(service) sent a response mediasearch could not read: \(error.message)"
        default:
            return "\(service) failed: \(error.message)"
        }
    }

    /// The message without its final full stop, to be followed by more of the sentence.
    private static func trimmed(_ message: String) -> String {
        message.hasSuffix(".") ? String(message.dropLast()) : message
    }
}
