import Courier
import CourierTesting
import Foundation
import Testing

/// A middleware of this test suite's own declares a policy key and reads it from requests; routes
/// set it. Nothing in Courier knows about it.
enum TenantKey: RequestPolicyKey {
    static let defaultValue: String? = nil
}

struct TenantMiddleware: Middleware {
    func intercept(
        _ request: HTTPRequest, next: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var request = request
        if let tenant = request.policies[TenantKey.self] { request.headers["X-Tenant"] = tenant }
        return try await next(request)
    }
}

@Suite("Request policies by key")
struct RequestPolicyKeyTests {
    enum Billing: Route {
        case invoices
        case health
        var path: Path {
            switch self {
            case .invoices: "invoices"
            case .health: "health"
            }
        }
        var policies: RequestPolicies {
            switch self {
            case .invoices:
                RequestPolicies().setting(TenantKey.self, to: "acme").setting(RetryPolicyKey.self, to: .never)
            case .health: RequestPolicies(requiresAuthentication: false)
            }
        }
    }

    @Test("a route sets a key of a middleware of its own; an inline request too; the default otherwise")
    func customKey() async throws {
        let stub = StubTransport().on(.get, "*", .json("{}"))
        let client = APIClient(baseURL: baseURL, transport: stub, middlewares: [TenantMiddleware()])
        _ = try await client.send(Billing.invoices, as: [String: String].self)
        _ = try await client.send(Request.get("reports", as: Data.self).policy(TenantKey.self, "globex"))
        _ = try await client.send(Billing.health, as: [String: String].self)
        #expect(stub.requests.map { $0.headers["X-Tenant"] } == ["acme", "globex", nil])
    }

    @Test("Courier's own policies are keys like any other, and the route properties read and override them")
    func courierKeys() async throws {
        let stub = StubTransport().on(.get, "*", .json("{}"))
        let client = APIClient(baseURL: baseURL, transport: stub)
        _ = try await client.send(Billing.invoices, as: [String: String].self)
        _ = try await client.send(Billing.health, as: [String: String].self)
        let (invoices, health) = (stub.requests[0].policies, stub.requests[1].policies)
        #expect(invoices.retry == .never)
        #expect(invoices[RetryPolicyKey.self] == .never)
        #expect(invoices.requiresAuthentication)
        #expect(!health.requiresAuthentication)
        #expect(health[RequiresAuthenticationKey.self] == false)
        #expect(Billing.health.requiresAuthentication == false)

        var request = Request.get("x", as: Data.self)
        request.cachePolicy = .noStore
        #expect(request.policies[CachePolicyKey.self] == .noStore)
    }

    @Test("policies are compared by value: equal keys and values, equal policies")
    func equality() {
        let one = RequestPolicies().setting(TenantKey.self, to: "acme")
        #expect(one == RequestPolicies().setting(TenantKey.self, to: "acme"))
        #expect(one != RequestPolicies().setting(TenantKey.self, to: "globex"))
        #expect(one != RequestPolicies())
    }

    @Test("a key set to its default is the same as a key never set")
    func defaultIsUnset() {
        var policies = RequestPolicies().setting(TenantKey.self, to: "acme")
        policies[TenantKey.self] = nil
        #expect(policies == RequestPolicies())
        #expect(RequestPolicies().setting(RequiresAuthenticationKey.self, to: true) == RequestPolicies())
        #expect(RequestPolicies().setting(RequiresAuthenticationKey.self, to: false) != RequestPolicies())
    }
}
