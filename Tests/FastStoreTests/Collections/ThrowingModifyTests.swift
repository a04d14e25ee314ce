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
}
