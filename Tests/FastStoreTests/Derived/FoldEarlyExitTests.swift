@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// A fold column's refresh stops when a child's new summary is `==` to the
/// stored one (`_SummaryKernels.refresh`, Collections/Folds/_ListFoldColumn.swift),
/// keeping the stored value. `==` is an equivalence, not identity (`String`
/// compares canonical equivalence), so the column can keep a value that no
/// child has any more: the fold then differs from `S.fold(Array(list))`.
/// The internal checks compare with `!=` and do not see it.
@Suite struct FoldEarlyExitTests {
    /// The longest string by UTF-8 length, the leftmost on ties: `combine`
    /// is associative and `""` neutral on both sides, as `ListSummary`
    /// requires; it need not be commutative.
    enum LongestUTF8: ListSummary {
        static var identity: String { "" }
        static func summarize(_ s: String) -> String { s }
        static func combine(_ a: String, _ b: String) -> String { b.utf8.count > a.utf8.count ? b : a }
    }

    enum Least: MinimumSummary {
        static func key(_ s: String) -> String { s }
    }

    @Test func aChildSummaryEqualToTheStoredOneLeavesTheFoldStale() {
        // 40 strings (not POD: leaves of at most 16), so the root is a
        // branch holding each leaf's summary.
        var values = Array(repeating: "a", count: 40)
        values[0] = "\u{E9}\u{E9}"  // "éé", 4 UTF-8 bytes
        values[30] = "abcde"  // 5 bytes, in another leaf
        var list = VersionedList(values, folds: [LongestUTF8.self])
        #expect(list.fold(LongestUTF8.self) == "abcde")
        // Canonically equivalent to "éé" (`==`), but 6 UTF-8 bytes: the
        // first leaf's summary is now the longest string of the list.
        list[0] = "e\u{301}e\u{301}"
        #expect(list.fold(LongestUTF8.self) == LongestUTF8.fold(Array(list)), "the stored \"éé\" was kept")
    }

    @Test func aBuiltInMinimumOfStringsKeepsAStringNoLongerInTheList() {
        var values = Array(repeating: "b", count: 40)
        values[0] = "a\u{E9}"
        var list = VersionedList(values, folds: [Least.self])
        list[0] = "ae\u{301}"  // == "aé"
        let stored = list.fold(Least.self)!, naive = Least.fold(Array(list))!
        #expect(stored == naive)
        #expect(
            Array(stored.unicodeScalars) == Array(naive.unicodeScalars),
            "the fold returns the precomposed string the list no longer holds")
    }
}
