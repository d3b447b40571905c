import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Cookie middleware")
struct CookieMiddlewareTests {
    @Test("the final response's cookies are stored and sent with the next request")
    func storesAndSends() async throws {
        let stub = StubTransport()
            .on(.post, "v1/login", .response(headers: ["Set-Cookie": "session=abc; Path=/v1"]))
            .on(.get, "v1/me", .text("me"))
        let jar = CookieJar()
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [CookieMiddleware(jar: jar)])
        _ = try await client.send(Request<Data>(method: .post, path: "login"))
        _ = try await client.send(Request<Data>(path: "me"))
        #expect(stub.requests[0].headers[.cookie] == nil)
        #expect(stub.requests[1].headers[.cookie] == "session=abc")
    }

    @Test("the response cache counts jar cookies as credentials: a response to a request with them is not kept")
    func cacheSeesCredentials() async throws {
        let stub = StubTransport()
            .on(.get, "v1/login", .response(headers: ["Set-Cookie": "session=abc; Path=/"]))
            .on(.get, "v1/feed", .response(headers: ["Cache-Control": "max-age=600"], body: Data("[]".utf8)))
        let client = APIClient(
            baseURL: baseURL, transport: stub,
            middlewares: [CookieMiddleware(jar: CookieJar()), ResponseCacheMiddleware(cache: ResponseCache())])
        _ = try await client.send(Request<Data>(path: "feed"))
        _ = try await client.send(Request<Data>(path: "feed"))
        #expect(stub.requests(to: "/v1/feed").count == 1, "anonymous: the second comes from the cache")
        _ = try await client.send(Request<Data>(path: "login"))
        _ = try await client.send(Request<Data>(path: "feed"))
        _ = try await client.send(Request<Data>(path: "feed"))
        #expect(stub.requests(to: "/v1/feed").count == 3, "with the session cookie, every call reaches the server")
    }
}
