import Testing

@testable import Courier

/// libcurl's receive errors, told apart by their text (as Apache's mTLS host sends them).
@Suite("CurlFailure: receive errors")
struct CurlFailureTests {
    @Test("a TLS alert met in SSL_read (a refused client certificate) is a TLS failure")
    func alertIsTLS() {
        let text =
            "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0"
        #expect(CurlFailure.classify(Int32(receiveErrorCode), text: text) == .tls)
    }

    @Test("a reset connection met in SSL_read stays a lost connection")
    func resetIsLost() {
        let text = "OpenSSL SSL_read: Connection reset by peer, errno 104"
        #expect(CurlFailure.classify(Int32(receiveErrorCode), text: text) == .connectionLost)
    }
}

/// libcurl's CURLE_RECV_ERROR.
private let receiveErrorCode = 56
