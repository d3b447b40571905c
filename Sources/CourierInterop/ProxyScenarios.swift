import Courier
import Foundation

/// The scenarios of a forward proxy, on CurlTransport (`Configuration.proxy`): plain HTTP in
/// absolute form, HTTPS through `CONNECT`, and, for a proxy that wants credentials, the right and
/// a wrong password.
struct ProxyScenarios {
    let target: Plan.Target
    let plan: Plan
    let log: AccessLog

    init(target: Plan.Target, plan: Plan) {
        self.target = target
        self.plan = plan
        log = AccessLog(path: target.log, format: nil)
    }

    var all: [(name: String, check: String, run: () async throws -> String)] {
        var list: [(String, String, () async throws -> String)] = [
            (
                "GET through the proxy (plain HTTP)", "body = the file; the proxy's log has the request",
                { try await fetch(plan.proxiedHTTP, password: target.password) }
            ),
            (
                "GET through CONNECT (HTTPS)", "body = the file; the proxy's log has the CONNECT",
                { try await fetch(plan.proxiedHTTPS, password: target.password) }
            ),
        ]
        if target.user != nil {
            list.append(
                (
                    "proxy auth accepted (Basic)", "CONNECT with user:password: body = the file, the user in the log",
                    { try await fetch(plan.proxiedHTTPS, password: target.password, expectsUser: true) }
                ))
            list.append(
                (
                    "proxy auth refused (wrong password)", "APIError proxyAuthenticationRequired, status 407",
                    refused
                ))
        }
        return list
    }

    func transport(password: String?) -> CurlTransport {
        var components = URLComponents(string: target.proxy!)!
        if let user = target.user, let password {
            components.user = user
            components.password = password
        }
        return CurlTransport(
            configuration: .init(
                timeout: .seconds(30), tls: .init(certificateAuthorities: URL(fileURLWithPath: plan.ca)),
                proxy: components.url))
    }

    func fetch(_ address: String, password: String?, expectsUser: Bool = false) async throws -> String {
        let marker = UUID().uuidString
        let url = URL(string: "\(address)?interop=\(marker)")!
        let response = try await transport(password: password).send(HTTPRequest(url: url))
        let expected = try Data(contentsOf: URL(fileURLWithPath: plan.www).appendingPathComponent("small.txt"))
        try require(response.status.code == 200 && response.body == expected, describe(response))
        // A tunnel's log line names host:port, not the path: look for that when the URL is HTTPS.
        let needle = url.scheme == "https" ? "\(url.host!):\(url.port!)" : marker
        var lines: [String] = []
        for _ in 0..<100 {
            lines = log.rawLines(containing: needle)
            if !lines.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try require(!lines.isEmpty, "the proxy's log has no line with \(needle)")
        if url.scheme == "https" {
            try require(lines.contains { $0.contains("CONNECT") }, "the proxy's log has no CONNECT to \(needle)")
        }
        if expectsUser, let user = target.user {
            try require(lines.contains { $0.contains(" \(user) ") }, "the proxy's log does not name the user")
        }
        return "200, \(expected.count) bytes equal"
    }

    func refused() async throws -> String {
        let url = URL(string: "\(plan.proxiedHTTPS)?interop=\(UUID().uuidString)")!
        do {
            let response = try await transport(password: "wrong-password").send(HTTPRequest(url: url))
            throw ScenarioFailure("the proxy let a wrong password through: \(describe(response))")
        } catch let error as APIError {
            try require(
                error.kind == .transport(.proxyAuthenticationRequired) && error.status?.code == 407,
                "\(error)")
            return "proxyAuthenticationRequired, 407"
        }
    }
}
