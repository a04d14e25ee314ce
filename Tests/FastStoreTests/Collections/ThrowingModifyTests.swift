import FastStore
import Testing

/// A mutation through `rows[id:]` or `dict[key]` of an absent entry that
/// sets a value and then throws keeps the value, as `Dictionary` does.
@Suite struct ThrowingModifyTests {
    struct Row: Identifiable, Equatable {
        let id: Int
        var title = ""
    }

    struct Oops: Error {}

    static func setThenThrow<T>(_ slot: inout T?, _ value: T) throws {
        slot = value
        throw Oops()
    }

    @Test func aValueSetBeforeAThrowIsKept() {
        var reference: [String: Int] = [:]
        #expect(throws: Oops.self) { try Self.setThenThrow(&reference["a"], 1) }
        #expect(reference["a"] == 1, "the standard library's behaviour")

        var rows = IdentifiedList<Row>()
        #expect(throws: Oops.self) { try Self.setThenThrow(&rows[id: 1], Row(id: 1, title: "one")) }
        #expect(rows[id: 1] == Row(id: 1, title: "one"))
        #expect(rows.count == 1)

        var dictionary = VersionedDictionary<String, Int>()
        #expect(throws: Oops.self) { try Self.setThenThrow(&dictionary["a"], 1) }
        #expect(dictionary["a"] == 1)
        #expect(dictionary.count == 1)
    }

    struct Page: Equatable { var title = "" }
    struct Book {
        var chapter = Versioned(Page())
        var pages = [Versioned(Page(title: "a"))]
        var lastEdited = ""
        var current: Versioned<Page> {
            get { pages[0] }
            set {
                pages[0] = newValue
                lastEdited = newValue.title
            }
        }
    }

    static func retitleThenThrow(_ page: inout Versioned<Page>, _ title: String) throws {
        page.title = title
        throw Oops()
    }

    /// A mutation through a child node of a `Versioned` (a stored member,
    /// written in place at its offset, and a computed one, read into a
    /// temporary and set back) that throws keeps what it wrote, as `inout`
    /// does, and stamps the parent: the state read before is unchanged.
    @Test func aChildNodeWrittenBeforeAThrowIsKept() {
        var book = Versioned(Book())
        let before = book
        #expect(throws: Oops.self) { try Self.retitleThenThrow(&book.chapter, "one") }
        #expect(book.chapter.title == "one")
        #expect(book._trackingIdentity != before._trackingIdentity, "the parent stamped")
        #expect(throws: Oops.self) { try Self.retitleThenThrow(&book.current, "two") }
        #expect(book.current.title == "two")
        #expect(book.lastEdited == "two", "the computed member's setter ran")
        #expect(before.chapter.title == "" && before.current.title == "a" && before.lastEdited == "")
    }
}
