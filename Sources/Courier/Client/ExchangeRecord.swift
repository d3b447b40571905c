import Foundation

/// What one call sent to the transport: the last request and how many times. Written by the
/// innermost step of the chain, read by the client after the chain returns.
///
/// `@unchecked Sendable`: both stored properties are only read or written while `lock` is held.
final class ExchangeRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var request: HTTPRequest
    private var count = 0

    init(_ request: HTTPRequest) {
        self.request = request
    }

    func willSend(_ request: HTTPRequest) {
        lock.lock()
        self.request = request
        count += 1
        lock.unlock()
    }

    var lastRequest: HTTPRequest {
        lock.lock()
        defer { lock.unlock() }
        return request
    }

    var attempts: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
