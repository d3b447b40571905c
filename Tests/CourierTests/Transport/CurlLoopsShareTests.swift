import Foundation
import Testing

@testable import Courier

/// How a CurlTransport's limits are shared among its loops, and how requests are spread.
@Suite("CurlTransport loop shares", .enabled(if: CurlTransport.isAvailable))
struct CurlLoopsShareTests {
    @Test("the loops' shares of a limit add up to it, each at least one")
    func shares() {
        #expect((0..<3).map { CurlLoops.share(of: 16, for: $0, among: 3) } == [6, 5, 5])
        #expect((0..<4).map { CurlLoops.share(of: 64, for: $0, among: 4) } == [16, 16, 16, 16])
        #expect((0..<3).map { CurlLoops.share(of: 2, for: $0, among: 3) } == [1, 1, 1])
        #expect(CurlLoops.share(of: 256, for: 0, among: 1) == 256)
    }

    @Test("requests from outside the loops go to each loop in turn")
    func spread() throws {
        let loops = try #require(CurlLoops(configuration: .init(loops: 3)))
        defer { loops.shutdown() }

        let picked = (0..<6).map { _ in ObjectIdentifier(loops.next()) }

        #expect(Set(picked).count == 3)
        #expect(Array(picked[0..<3]) == Array(picked[3..<6]))
    }

    @Test("one loop by default per two processors; a count or limit below one still makes one loop with one slot")
    func defaultsAndFloors() throws {
        #expect(CurlTransport.Configuration().loops == max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
        let loops = try #require(CurlLoops(configuration: .init(maximumConcurrentTransfers: 0, loops: 0)))
        defer { loops.shutdown() }

        #expect(loops.loops.count == 1)
        #expect(CurlLoops.share(of: 0, for: 0, among: 1) == 1)
    }
}
