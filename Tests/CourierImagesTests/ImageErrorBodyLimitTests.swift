import Courier
import CourierImages
import CourierTesting
import Foundation
import Testing

/// An error page without a `Content-Length` is cut at 64 KiB however it arrives: in one piece of
/// 1 MiB from a streaming transport, whole from a transport that cannot stream, or in the stub's
/// 64 KiB pieces.
@Suite("Image loader: error bodies")
struct ImageErrorBodyLimitTests {
    /// The most bytes of an error body the loader keeps.
    static let errorBodyLimit = 64 * 1024

    /// How the error body reaches the loader.
    enum Delivery: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A streaming transport hands the whole body over in one piece.
        case onePiece
        /// A transport that cannot stream returns it whole (the client hands it over at once).
        case notStreamed
        /// The stub transport, in pieces of 64 KiB.
        case stubPieces

        var testDescription: String { rawValue }

        func transport(status: HTTPStatus, body: Data) -> any HTTPTransport {
            switch self {
            case .onePiece: OnePieceTransport(status: status, body: body)
            case .notStreamed: WholeBodyTransport(status: status, body: body)
            case .stubPieces: StubTransport().on(.get, "*", .response(status: status, headers: Self.head, body: body))
            }
        }

        /// An HTML error page's head, without `Content-Length`.
        static let head: HTTPHeaders = [.contentType: "text/html"]
    }

    /// A streaming transport that hands the body to the consumer in a single piece, however large.
    private struct OnePieceTransport: HTTPStreamingTransport {
        let status: HTTPStatus
        let body: Data

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(status: status, headers: Delivery.head, body: body, url: request.url)
        }

        func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws
            -> HTTPResponse
        {
            let head = HTTPResponse(status: status, headers: Delivery.head, url: request.url)
            guard try consumer.responseHeadArrived(head) else { return try await send(request) }
            try consumer.receive(body)
            return head
        }
    }

    /// A transport that cannot stream: the body comes back whole in the response.
    private struct WholeBodyTransport: HTTPTransport {
        let status: HTTPStatus
        let body: Data

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(status: status, headers: Delivery.head, body: body, url: request.url)
        }
    }

    @Test(
        "a 1 MiB error page without Content-Length fails as its status with its first 64 KiB kept",
        arguments: Delivery.allCases, [HTTPStatus.notFound, .internalServerError])
    func errorPageCut(delivery: Delivery, status: HTTPStatus) async throws {
        let page = Data(String(repeating: "<p>error</p>\n", count: (1 << 20) / 13 + 1).utf8)
        #expect(page.count > 1 << 20)
        let imageURL = try #require(URL(string: "https://img.example.com/poster.png"))
        let client = APIClient(baseURL: imageURL, transport: delivery.transport(status: status, body: page))
        let loader = try ImageLoader(client: client)

        let error = await #expect(throws: APIError.self) { try await loader.image(for: imageURL) }

        #expect(error?.kind == .unacceptableStatus(status))
        let kept = try #require(error?.response?.body)
        #expect(kept.count <= Self.errorBodyLimit, "\(kept.count) bytes of the error page kept")
        #expect(kept == page.prefix(kept.count), "the kept bytes are not the page's first ones")
        #expect(!kept.isEmpty)
        #expect(loader.cachedImage(for: imageURL) == nil)
    }
}
