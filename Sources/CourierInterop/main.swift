import Courier
import Foundation

// courier-interop --plan PLAN.json --out docs/INTEROP.md
//
// Runs every scenario of scripts/interop's plan on CurlTransport and URLSessionTransport, writes
// the table, and exits 1 when a scenario failed. Run by scripts/interop, which starts the servers.

let arguments = CommandLine.arguments
func argument(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
guard let planPath = argument("--plan"), let output = argument("--out") else {
    FileHandle.standardError.write(Data("usage: courier-interop --plan PLAN.json --out FILE\n".utf8))
    exit(2)
}

let plan = try Plan.load(planPath)
let started = ContinuousClock.now
var rows: [Row] = []

func run(
    _ scenarios: [(name: String, check: String, run: () async throws -> String)], target: Plan.Target,
    protocolName: String, transport: String
) async -> [Row] {
    var rows: [Row] = []
    for scenario in scenarios {
        let outcome: Outcome
        do {
            outcome = .passed(try await scenario.run())
        } catch let unsupported as Unsupported {
            outcome = .unsupported(unsupported.reason)
        } catch let failure as ScenarioFailure {
            outcome = .failed(failure.message)
        } catch {
            outcome = .failed("\(error)")
        }
        let row = Row(
            server: target.server, version: target.version, protocolName: protocolName, transport: transport,
            scenario: scenario.name, outcome: outcome, check: scenario.check)
        print(Report.line(row))
        rows.append(row)
    }
    return rows
}

for target in plan.targets {
    if target.kind == "proxy" {
        let scenarios = ProxyScenarios(target: target, plan: plan).all
        rows += await run(
            scenarios, target: target, protocolName: target.protocol, transport: TransportKind.curl.rawValue)
        rows.append(
            Row(
                server: target.server, version: target.version, protocolName: target.protocol,
                transport: TransportKind.urlSession.rawValue, scenario: "every proxy scenario",
                outcome: .unsupported("URLSessionTransport has no proxy setting on Linux (only the environment's)"),
                check: "—"))
        continue
    }
    for kind in TransportKind.allCases {
        let transport: any HTTPTransport
        switch kind {
        case .curl:
            transport = OriginScenarios.curlTransport(for: target, plan: plan)
        case .urlSession:
            // URLSession picks its protocol itself: one pass per server is enough.
            if target.protocol == "HTTP/2",
                plan.targets.contains(where: { $0.server == target.server && $0.protocol == "HTTP/1.1" })
            {
                continue
            }
            if target.base?.hasPrefix("http+unix") == true {
                let refusal = await UnixSocketRefusal.check(target.base!)
                rows.append(
                    Row(
                        server: target.server, version: target.version, protocolName: target.protocol,
                        transport: kind.rawValue, scenario: "every scenario (Unix socket)", outcome: refusal,
                        check: "refused before any I/O with .invalidRequest"))
                continue
            }
            if arguments.contains("--untrusted-urlsession"), target.base?.hasPrefix("https") == true {
                rows.append(
                    Row(
                        server: target.server, version: target.version, protocolName: target.protocol,
                        transport: kind.rawValue, scenario: "every scenario (HTTPS)",
                        outcome: .unsupported("FoundationNetworking cannot be told of the test CA here"),
                        check: "—"))
                continue
            }
            transport = URLSessionTransport(configuration: .init(timeout: .seconds(30)))
        }
        let origin = OriginScenarios(target: target, plan: plan, transport: transport, kind: kind)
        let protocolName = kind == .curl ? target.protocol : "\(await origin.observedProtocol()) (negotiated)"
        rows += await run(origin.all, target: target, protocolName: protocolName, transport: kind.rawValue)
    }
}

let elapsed = ContinuousClock.now - started
try Report.markdown(rows: rows, unavailable: plan.unavailable, elapsed: elapsed)
    .write(toFile: output, atomically: true, encoding: .utf8)
let failures = rows.filter(\.outcome.isFailure).count
print("\(rows.count) rows, \(failures) failed; written to \(output)")
exit(failures == 0 ? 0 : 1)
