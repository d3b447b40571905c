import Courier
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("names are case-insensitive and keep their spelling")
    func caseInsensitive() {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers[.contentType] == "application/json")
        #expect(headers.first?.name.rawName == "Content-Type")
    }

    @Test("order is kept and names may repeat; set replaces all in place")
    func orderAndRepeats() {
        var headers: HTTPHeaders = ["A": "1", "Set-Cookie": "x=1", "B": "2", "set-cookie": "y=2"]
        #expect(headers.values(for: .setCookie) == ["x=1", "y=2"])
        headers.set(.setCookie, "z=3")
        #expect(headers.map(\.name.rawName) == ["A", "Set-Cookie", "B"])
        #expect(headers[.setCookie] == "z=3")
        headers["A"] = nil
        #expect(headers.map(\.name.rawName) == ["Set-Cookie", "B"])
        headers.add("b", "3")
        #expect(headers.values(for: "B") == ["2", "3"])
    }

    @Test("credential headers are sensitive by name; any header can be marked")
    func sensitivity() {
        var headers: HTTPHeaders = [
            .authorization: "Bearer t", .cookie: "c", "X-Api-Key": "k", "X-Auth-Token": "t", "Accept": "a",
            "X-Keyword": "k",
        ]
        headers.add("X-Tenant", "secret-tenant", isSensitive: true)
        let sensitive = headers.filter(\.isSensitive).map(\.name.rawName)
        #expect(sensitive == ["Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Tenant"])
        #expect(!headers.description.contains("Bearer t"))
        #expect(!headers.description.contains("secret-tenant"))
        #expect(headers.description.contains("Accept: a"))
        headers.removeSensitive()
        #expect(headers.map(\.name.rawName) == ["Accept", "X-Keyword"])
    }

    @Test("defaults are added only where the name is missing")
    func defaults() {
        let headers: HTTPHeaders = ["accept": "text/plain"]
        let merged = headers.adding(defaults: [.accept: "application/json", .userAgent: "ua"])
        #expect(merged.map(\.value) == ["text/plain", "ua"])
    }

    @Test("names compare without case, ASCII and beyond, and keep their spelling")
    func nameCase() {
        #expect(HTTPHeaders.Name("Content-TYPE").canonicalName == "content-type")
        #expect(HTTPHeaders.Name("Content-TYPE").rawName == "Content-TYPE")
        #expect(HTTPHeaders.Name("x-already-lower").canonicalName == "x-already-lower")
        #expect(HTTPHeaders.Name("X-Ünïcode-NAME").canonicalName == "x-ünïcode-name")
        #expect(HTTPHeaders.Name("ETAG") == HTTPHeaders.Name("etag"))
    }

    @Test("setting a name keeps one field at the first one's place, repeats removed")
    func setCollapsesRepeats() {
        var headers: HTTPHeaders = ["A": "1", "b": "2", "a": "3", "C": "4"]
        headers.set("a", "new")
        #expect(headers.map(\.value) == ["new", "2", "4"])
        headers.set("C", "last")
        #expect(headers.map(\.value) == ["new", "2", "last"])
    }

    @Test("statuses know their reason phrase and class")
    func statuses() {
        #expect(HTTPStatus.notFound.description == "404 Not Found")
        #expect(HTTPStatus(code: 299).isSuccess)
        #expect(!HTTPStatus(code: 304).isSuccess)
        #expect(HTTPStatus(code: 799).description == "799")
    }
}
