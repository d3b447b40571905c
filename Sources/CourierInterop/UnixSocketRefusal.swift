import Courier
import Foundation

/// URLSessionTransport and a Unix socket: refused before any I/O, as documented.
enum UnixSocketRefusal {
    static func check(_ base: String) async -> Outcome {
        do {
            _ = try await URLSessionTransport().send(HTTPRequest(url: URL(string: "\(base)/small.txt")!))
            return .failed("URLSessionTransport sent a request to a Unix socket")
        } catch let error as APIError where error.kind == .invalidRequest {
            return .unsupported("no socket option in URLSession: refused with .invalidRequest")
        } catch {
            return .failed("\(error)")
        }
    }
}
