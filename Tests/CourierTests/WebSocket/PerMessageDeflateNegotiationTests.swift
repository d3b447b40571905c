import Testing

@testable import Courier

/// permessage-deflate's offer and the server's answer (RFC 7692 §7.1).
@Suite("permessage-deflate negotiation")
struct PerMessageDeflateNegotiationTests {
    private func agree(_ answer: String, offer: PerMessageDeflate.Offer = .init()) -> PerMessageDeflate.Parameters? {
        guard let elements = WebSocketExtensionHeader.parse([answer]), elements.count == 1 else { return nil }
        do throws(WebSocketHandshakeFailure) {
            return try offer.accept(elements[0].parameters)
        } catch {
            return nil
        }
    }

    @Test("the offer names the parameters asked for")
    func offers() {
        #expect(PerMessageDeflate.Offer().headerValue == "permessage-deflate; client_max_window_bits")
        let full = PerMessageDeflate.Offer(
            requestsServerNoContextTakeover: true, promisesClientNoContextTakeover: true, serverMaxWindowBits: 10,
            clientMaxWindowBits: 12)
        #expect(
            full.headerValue
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                + "server_max_window_bits=10; client_max_window_bits=12")
        #expect(
            PerMessageDeflate.Offer(acceptsClientMaxWindowBits: false).headerValue == "permessage-deflate")
    }

    @Test("a bare answer: context kept both ways, windows of 2^15")
    func bare() {
        #expect(agree("permessage-deflate") == PerMessageDeflate.Parameters())
    }

    @Test("each parameter the server may send is honoured")
    func parameters() {
        #expect(agree("permessage-deflate; server_no_context_takeover")?.serverNoContextTakeover == true)
        #expect(agree("permessage-deflate; client_no_context_takeover")?.clientNoContextTakeover == true)
        #expect(agree("permessage-deflate; server_max_window_bits=9")?.serverMaxWindowBits == 9)
        #expect(agree("permessage-deflate; client_max_window_bits=11")?.clientMaxWindowBits == 11)
        #expect(agree("permessage-deflate; client_max_window_bits=\"11\"")?.clientMaxWindowBits == 11)
        #expect(agree("permessage-deflate ;server_max_window_bits = 12 ")?.serverMaxWindowBits == 12)
        let asked = PerMessageDeflate.Offer(serverMaxWindowBits: 10)
        #expect(agree("permessage-deflate; server_max_window_bits=10", offer: asked)?.serverMaxWindowBits == 10)
        #expect(agree("permessage-deflate; server_max_window_bits=8", offer: asked)?.serverMaxWindowBits == 8)
    }

    @Test("a promise not to take over context holds even when the server does not repeat it")
    func promiseKept() {
        let offer = PerMessageDeflate.Offer(promisesClientNoContextTakeover: true)
        #expect(agree("permessage-deflate", offer: offer)?.clientNoContextTakeover == true)
    }

    @Test(
        "answers that fail the handshake",
        arguments: [
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
            "permessage-deflate; server_max_window_bits=10; server_max_window_bits=10",
            "permessage-deflate; server_no_context_takeover=1",
            "permessage-deflate; client_no_context_takeover=true",
            "permessage-deflate; server_max_window_bits",
            "permessage-deflate; server_max_window_bits=7",
            "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; server_max_window_bits=010",
            "permessage-deflate; server_max_window_bits=+9",
            "permessage-deflate; server_max_window_bits=9.0",
            "permessage-deflate; client_max_window_bits",
            "permessage-deflate; client_max_window_bits=0",
            "permessage-deflate; client_max_window_bits=\"1 0\"",
            "permessage-deflate; unknown_parameter",
            "permessage-deflate; server_max_window_bits=\"10",
        ])
    func refused(answer: String) {
        #expect(agree(answer) == nil)
    }

    @Test("limits the offer set: the server may not raise them, nor set a client window not offered")
    func limits() {
        let asked = PerMessageDeflate.Offer(serverMaxWindowBits: 10, clientMaxWindowBits: 12)
        #expect(agree("permessage-deflate; server_max_window_bits=11", offer: asked) == nil)
        #expect(agree("permessage-deflate; client_max_window_bits=13", offer: asked) == nil)
        #expect(agree("permessage-deflate; client_max_window_bits=12", offer: asked)?.clientMaxWindowBits == 12)
        let noClientBits = PerMessageDeflate.Offer(acceptsClientMaxWindowBits: false)
        #expect(agree("permessage-deflate; client_max_window_bits=15", offer: noClientBits) == nil)
        #expect(agree("permessage-deflate", offer: asked)?.clientMaxWindowBits == 12)
    }

    @Test("a client window of 2^8, which zlib cannot make, means sending uncompressed")
    func windowEight() {
        #expect(agree("permessage-deflate; client_max_window_bits=8")?.compressesOutgoing == false)
        #expect(agree("permessage-deflate; client_max_window_bits=9")?.compressesOutgoing == true)
    }

    @Test("the extension header grammar: lists, several fields, quoted values; malformed ones refused")
    func grammar() {
        let parsed = WebSocketExtensionHeader.parse(["foo, bar; baz=2", "permessage-deflate; a=\"b\""])
        #expect(parsed?.map(\.name) == ["foo", "bar", "permessage-deflate"])
        #expect(parsed?[1].parameters.first?.name == "baz")
        #expect(parsed?[1].parameters.first?.value == "2")
        #expect(parsed?[2].parameters.first?.value == "b")
        for malformed in ["foo;", "foo bar", "foo; a=", "foo; a=\"b c\"", "foo; a=b=c", ";a", "foo, ;"] {
            #expect(WebSocketExtensionHeader.parse([malformed]) == nil, "\(malformed)")
        }
    }
}
