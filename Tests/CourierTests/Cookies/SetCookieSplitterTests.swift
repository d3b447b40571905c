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

    @Test("a quote opens only at the start of a value, and a ';' ends it")
    func quoteRules() {
        // Not at the start: no quote, so the comma splits.
        #expect(SetCookieSplitter.split("a=x\"y, b=2") == ["a=x\"y", "b=2"])
        // An unclosed quote ends at ';': the next field is not swallowed.
        #expect(SetCookieSplitter.split("a=\"x; Path=/, b=2") == ["a=\"x; Path=/", "b=2"])
        // A quoted attribute value too.
        #expect(SetCookieSplitter.split("a=1; Comment=\"x, y=z\", b=2") == ["a=1; Comment=\"x, y=z\"", "b=2"])
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
