import Testing

@testable import Courier

/// Fields a transport joined with ", " (URLSession) split back where unambiguous, and only there.
@Suite("Set-Cookie splitter")
struct SetCookieSplitterTests {
    @Test("joined fields split at a comma followed by name=, never inside an Expires date")
    func joined() {
        let joined =
            "a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/, b=2; Path=/, c=3, d=4; Expires=Thu, 10 Jun 2021 10:18:14 GMT"
        #expect(
            SetCookieSplitter.split(joined) == [
                "a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Path=/", "b=2; Path=/", "c=3",
                "d=4; Expires=Thu, 10 Jun 2021 10:18:14 GMT",
            ])
    }

    @Test("a quoted value holds commas and name=")
    func quoted() {
        #expect(SetCookieSplitter.split("foo=\"bar, baz=qux\"") == ["foo=\"bar, baz=qux\""])
        #expect(SetCookieSplitter.split("foo=\"bar, baz=qux\", n=1") == ["foo=\"bar, baz=qux\"", "n=1"])
    }

    @Test("a quote opens only at the start of a value, and only when a later quote closes it")
    func quoteRules() {
        // Not at the start: no quote, so the comma splits.
        #expect(SetCookieSplitter.split("a=x\"y, b=2") == ["a=x\"y", "b=2"])
        // An unclosed quote is no quote: the next field is not swallowed.
        #expect(SetCookieSplitter.split("a=\"x; Path=/, b=2") == ["a=\"x; Path=/", "b=2"])
        // A quoted attribute value too; an unknown attribute never ends a field.
        #expect(SetCookieSplitter.split("a=1; Comment=\"x, y=z\", b=2") == ["a=1; Comment=\"x, y=z\", b=2"])
    }

    /// Review finding 4: a quote closed later holds `;` and commas: no cookie is injected.
    @Test("a closed quote runs past ';', so a comma inside it never splits")
    func quoteWithSemicolon() {
        #expect(SetCookieSplitter.split("a=\"x;y, b=INJECTED\"; Path=/") == ["a=\"x;y, b=INJECTED\"; Path=/"])
        // Never closed: no quote, and the next field survives.
        #expect(SetCookieSplitter.split("a=\"x, session=REAL; Path=/") == ["a=\"x", "session=REAL; Path=/"])
    }

    /// Review finding 4: after the first ';', a comma ends a field only after a complete known
    /// attribute whose value cannot hold it.
    @Test("attributes: a field ends only after a complete known attribute")
    func attributes() {
        let splits = [
            "Path=/", "Domain=example.com", "Max-Age=60", "Max-Age=-1", "Secure", "HttpOnly", "Partitioned",
            "SameSite=Lax", "samesite=STRICT", "Priority=High", "Expires=Wed, 09 Jun 2100 10:18:14 GMT",
        ]
        for attribute in splits {
            #expect(SetCookieSplitter.split("a=1; \(attribute), b=2") == ["a=1; \(attribute)", "b=2"], "\(attribute)")
        }
        let holds = [
            "Foo=bar", "Comment=x", "SameSite=Lax x", "Max-Age=6x", "Domain=a_b.example", "Domain=",
            "Secure=1", "Expires=Wed", "Path=x",
        ]
        for attribute in holds {
            #expect(SetCookieSplitter.split("a=1; \(attribute), b=2") == ["a=1; \(attribute), b=2"], "\(attribute)")
        }
    }

    @Test("Expires in every form stays whole, whatever follows")
    func dates() {
        for date in ["Wednesday, 09-Jun-21 10:18:14 GMT", "Wed, 09 Jun 2021 10:18:14 GMT", "Wed Jun  9 10:18:14 2021"] {
            #expect(SetCookieSplitter.split("a=1; Expires=\(date), b=2") == ["a=1; Expires=\(date)", "b=2"])
            #expect(SetCookieSplitter.split("a=1; expires=\(date)") == ["a=1; expires=\(date)"])
        }
        // A date cut short by a hostile comma: the weekday's comma never splits.
        #expect(SetCookieSplitter.split("a=1; Expires=Wed, b=2") == ["a=1; Expires=Wed, b=2"])
    }

    @Test("a comma not followed by name= stays in the value")
    func lone() {
        #expect(SetCookieSplitter.split("a=1, 2, 3") == ["a=1, 2, 3"])
        #expect(SetCookieSplitter.split("a=1, b c=2") == ["a=1, b c=2"])
    }
}
