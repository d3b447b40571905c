import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A wall clock the test moves by hand.
final class CacheTestClock: Sendable {
    private let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var date: Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0.addTimeInterval(seconds) } }
    /// The clock's time `offset` seconds from now, as an HTTP date.
    func httpDate(_ offset: TimeInterval = 0) -> String { HTTPDate.format(date.addingTimeInterval(offset)) }
}

/// A client with one cache middleware on `transport`, reading time from `clock`.
func cachingClient(
    _ transport: any HTTPTransport, clock: CacheTestClock, cache: ResponseCache = ResponseCache(),
    policy: CachePolicy = .default, extra: [any Middleware] = [], backgroundLimit: Int = 4
) -> (APIClient, ResponseCacheMiddleware) {
    let middleware = ResponseCacheMiddleware(
        cache: cache, policy: policy, maximumBackgroundRevalidations: backgroundLimit, now: { [clock] in clock.date })
    return (APIClient(baseURL: baseURL, transport: transport, middlewares: [middleware] + extra), middleware)
}

/// RFC 9111 §4.2: age from `Date`, `Age` and the exchange's own delay; lifetime from the first
/// `max-age` or `Expires` − `Date`; an `Age` header on every hit (§5.1); HTTP dates read strictly.
@Suite("Response cache: age and freshness (RFC 9111 §4.2)")
struct CacheAgeTests {
    private let clock = CacheTestClock()

    /// How many network requests two calls a moment apart make for a response with `headers`.
    private func requestsForTwoCalls(_ headers: HTTPHeaders, gap: TimeInterval = 1) async throws -> Int {
        let transport = StubTransport().on(.get, "*", .text("x", headers: headers))
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(gap)
        _ = try await client.send(.get("a", as: String.self))
        return transport.requests.count
    }

    @Test("Age: 25 with max-age=20 is stale on arrival (defect 1)")
    func ageBeyondLifetime() async throws {
        #expect(try await requestsForTwoCalls(["Age": "25", .cacheControl: "max-age=20"]) == 2)
        #expect(try await requestsForTwoCalls(["Age": "5", .cacheControl: "max-age=20"]) == 1)
    }

    @Test("a Date 25 s old with max-age=20, or Expires 20 s after it, is stale on arrival (defect 1)")
    func apparentAge() async throws {
        let old = clock.httpDate(-25)
        #expect(try await requestsForTwoCalls(["Date": old, .cacheControl: "max-age=20"]) == 2)
        #expect(try await requestsForTwoCalls(["Date": old, "Expires": clock.httpDate(-5)]) == 2)
        #expect(try await requestsForTwoCalls(["Date": clock.httpDate(-5), .cacheControl: "max-age=20"]) == 1)
    }

    @Test("Age: 7200, 0 is read as 7200 (the first member), not 0 (defect 1)")
    func ageList() async throws {
        #expect(try await requestsForTwoCalls(["Age": "7200, 0", .cacheControl: "max-age=3600"]) == 2)
        #expect(CacheFreshness.ageValue(of: ["Age": "7200, 0"]) == 7200)
        #expect(CacheFreshness.ageValue(of: ["Age": "x"]) == nil)
        #expect(CacheFreshness.ageValue(of: ["Age": "-5"]) == nil)
        #expect(CacheFreshness.ageValue(of: ["Age": "99999999999999999999"]) == 2_147_483_648)
    }

    /// A transport that takes `delay` seconds of the test's clock to answer.
    private struct SlowTransport: HTTPTransport {
        let clock: CacheTestClock
        let delay: TimeInterval
        let headers: HTTPHeaders
        let count = Locked(0)

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            count.withLock { $0 += 1 }
            clock.advance(delay)
            return HTTPResponse(status: .ok, headers: headers, body: Data("x".utf8), url: request.url)
        }
    }

    @Test("the exchange's own delay is added to Age (corrected age value, §4.2.3) (defect 1)")
    func responseDelay() async throws {
        // Age 10 + 10 s in flight = 20 > max-age 15.
        let transport = SlowTransport(clock: clock, delay: 10, headers: ["Age": "10", .cacheControl: "max-age=15"])
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        _ = try await client.send(.get("a", as: String.self))
        #expect(transport.count.withLock { $0 } == 2)
    }

    @Test("resident time: Age 30 with max-age=60 is fresh 29 s later, stale 31 s later; a hit says its Age (defect 5)")
    func residentTimeAndAgeHeader() async throws {
        let transport = StubTransport().on(
            .get, "*", .text("v1", headers: ["Age": "30", .cacheControl: "max-age=60"]), .text("v2"))
        let (client, _) = cachingClient(transport, clock: clock)
        _ = try await client.send(.get("a", as: String.self))
        clock.advance(29)
        let hit = try await client.response(for: .get("a", as: String.self))
        clock.advance(2)
        let miss = try await client.send(.get("a", as: String.self))

        #expect(hit.value == "v1" && hit.attempts == 0)
        #expect(hit.response.headers.values(for: "Age") == ["59"])
        #expect(miss == "v2")
    }

    @Test("duplicate max-age: the first one counts (defect 3)")
    func duplicateMaxAge() async throws {
        #expect(try await requestsForTwoCalls([.cacheControl: "max-age=60, max-age=0"]) == 1)
        #expect(try await requestsForTwoCalls([.cacheControl: "max-age=0, max-age=60"]) == 2)
        let twoLines = HTTPHeaders([
            .init(name: .cacheControl, value: "max-age=0"), .init(name: .cacheControl, value: "max-age=60"),
        ])
        #expect(try await requestsForTwoCalls(twoLines) == 2)
        #expect(CacheControl([.cacheControl: "max-age=\"30\", MAX-AGE=5"]).maxAge == 30)
    }

    @Test("a two-digit RFC 850 year more than 50 years ahead is the previous century's (defect 4)")
    func rfc850Years() throws {
        let now = try #require(HTTPDate.parse("Wed, 02 Dec 2026 12:00:00 GMT"))
        let years = ["50", "76", "77", "94", "26", "00"].map { yy in
            HTTPDate.parse("Sunday, 06-Nov-\(yy) 08:49:37 GMT", now: now).map {
                Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: $0).year
            }
        }
        #expect(years == [2050, 2076, 1977, 1994, 2026, 2000])
    }

    @Test("an Expires in RFC 850 form with year 50 keeps the response fresh today (defect 4)")
    func rfc850Expires() async throws {
        let expires = "Thursday, 01-Dec-50 00:00:00 GMT"
        #expect(try await requestsForTwoCalls(["Expires": expires, "Date": clock.httpDate()]) == 1)
    }

    @Test(
        "an Expires that is not one of the three HTTP date forms means already expired (defect 6)",
        arguments: [
            "0", "-1", "garbage", "Tue, 14 Nov 2093 22:13:20 PST", "Tue, 14 Nov 2093 22:13:20 GMT garbage",
            "Tue, 32 Nov 2093 22:13:20 GMT", "Tue, 14 Nov 2093 25:13:20 GMT", "Tue, 4 Nov 2093 22:13:20 GMT",
            "14 Nov 2093 22:13:20 GMT", "Tue, 14 nov 2093 22:13:20 GMT", "Tue, 14 Nov 93 22:13:20 GMT",
            "Tuesday, 14-Nov-2093 22:13:20 GMT", "Tue, 29 Feb 2093 22:13:20 GMT", "Tue, 14 Nov 2093 22:13 GMT",
        ])
    func invalidExpires(value: String) async throws {
        #expect(HTTPDate.parse(value) == nil, "\(value) was read as a date")
        // With a Last-Modified 100 days old, an Expires ignored rather than expired would leave
        // the response heuristically fresh (a day), and the second call would be a hit.
        let lastModified = clock.httpDate(-100 * 86_400)
        #expect(try await requestsForTwoCalls(["Expires": value, .eTag: "\"1\"", .lastModified: lastModified]) == 2)
    }

    @Test(
        "an invalid max-age makes the response stale: no heuristic, no Expires (RFC 9111 §4.2.1)",
        arguments: ["max-age=-1", "max-age=abc", "max-age", "max-age=1.5", "max-age=", "max-age=-1, max-age=600"])
    func invalidMaxAge(control: String) async throws {
        let lastModified = clock.httpDate(-100 * 86_400)
        #expect(try await requestsForTwoCalls([.cacheControl: control, .lastModified: lastModified]) == 2)
        #expect(try await requestsForTwoCalls([.cacheControl: control, "Expires": clock.httpDate(3600)]) == 2)
        #expect(try await requestsForTwoCalls([.cacheControl: control + ", stale-while-revalidate=0"]) == 2)
    }

    @Test("the three HTTP date forms are read, asctime with a space-padded day")
    func validDates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: expected) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("format then parse gives back the same second, for dates from year 1000 to 9999")
    func formatRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let seconds = Double(Int.random(in: -30_610_224_000...253_402_300_799, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            let text = HTTPDate.format(date)
            #expect(HTTPDate.parse(text) == date, "\(text)")
            if HTTPDate.parse(text) != date { return }
        }
    }

    @Test("delta-seconds: digits only, too large is 2^31, negative or fractional is ignored")
    func deltaSeconds() {
        #expect(CacheControl([.cacheControl: "max-age=99999999999999"]).maxAge == 2_147_483_648)
        #expect(CacheControl([.cacheControl: "max-age=-1"]).maxAge == nil)
        #expect(CacheControl([.cacheControl: "max-age=1.5"]).maxAge == nil)
        #expect(CacheControl([.cacheControl: "max-age=00000000000000012"]).maxAge == 12)
        #expect(CacheControl([.cacheControl: #"foo="a,max-age=5", max-age=7"#]).maxAge == 7)
    }
}
