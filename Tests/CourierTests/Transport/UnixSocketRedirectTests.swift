import Courier
import Foundation
import Testing

/// RedirectPolicy's rules for `http+unix` URLs, on values alone (the same on real sockets: the
/// integration suite UnixSocketTests).
@Suite("RedirectPolicy and Unix socket URLs")
struct UnixSocketRedirectTests {
    static let socket = URL(string: "http+unix://%2Frun%2Fapp.sock/v1/items")!
    static let secret: HTTPHeaders = [.authorization: "Bearer sentinel"]

    static func redirect(to location: String, status: Int = 302) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(code: status), headers: [.location: location])
    }

    @Test("a relative redirect stays on the socket and keeps Authorization")
    func relative() throws {
        let request = HTTPRequest(url: Self.socket, headers: Self.secret)

        let next = try #require(
            try RedirectPolicy.default.nextRequest(
                after: Self.redirect(to: "/v1/other"), to: request, redirectsSoFar: 0))

        #expect(next.url.absoluteString == "http+unix://%2Frun%2Fapp.sock/v1/other")
        #expect(next.headers[.authorization] == "Bearer sentinel")
    }

    @Test("to http://localhost, or to a socket path differing in case: cross-origin, Authorization removed")
    func crossOrigin() throws {
        let request = HTTPRequest(url: Self.socket, headers: Self.secret)
        for location in ["http://localhost/v1/other", "http+unix://%2Frun%2FApp.sock/v1/other"] {
            let next = try #require(
                try RedirectPolicy.default.nextRequest(
                    after: Self.redirect(to: location), to: request, redirectsSoFar: 0))
            #expect(next.headers[.authorization] == nil, "\(location)")
        }
    }

    @Test("a network origin cannot redirect to a socket; https+unix cannot go down to http+unix")
    func refused() {
        let network = HTTPRequest(url: URL(string: "https://api.example.com/x")!)
        let secure = HTTPRequest(url: URL(string: "https+unix://%2Frun%2Fapp.sock/x")!)
        let cases: [(HTTPRequest, String, TransportFailure)] = [
            (network, "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", .invalidRedirect),
            (secure, "http+unix://%2Frun%2Fapp.sock/x", .insecureRedirect),
            (secure, "http://localhost/x", .insecureRedirect),
        ]
        for (request, location, failure) in cases {
            do {
                let next = try RedirectPolicy.default.nextRequest(
                    after: Self.redirect(to: location), to: request, redirectsSoFar: 0)
                Issue.record("\(location) was followed: \(String(describing: next))")
            } catch let error as APIError {
                #expect(error.kind == .transport(failure), "\(location): \(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
