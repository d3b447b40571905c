// courier-fetch: one GET with the transport named, for tests that must run a request in a child
// process (a response that crashes FoundationNetworking would take the test runner down with it).
//
//   CourierFetch urlSession|curl URL
//
// Prints `status N, M bytes` and exits 0, or `error KIND: MESSAGE` and exits 1.
import Courier
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let url = URL(string: arguments[arguments.endIndex - 1]) else {
    FileHandle.standardError.write(Data("usage: CourierFetch urlSession|curl URL\n".utf8))
    exit(2)
}
let transport: any HTTPTransport =
    arguments.first == "curl" ? CurlTransport() : URLSessionTransport(configuration: .init(timeout: .seconds(20)))
do {
    let response = try await transport.send(HTTPRequest(method: .get, url: url))
    print("status \(response.status.code), \(response.body.count) bytes")
} catch let error as APIError {
    print("error \(error.kind): \(error.message)")
    exit(1)
}
