import FastStore
@testable import FastStoreTesting
import Testing

// NB: serialized: the two 1,000,000-row tests each hold a thread of the
// cooperative pool for a while (building the rows in a debug build); run at
// once, on a 2-core machine they starve the middleware tasks the waiting
// `receive` tests wait for.
@Suite(.serialized) struct StateDifferenceTests {
    typealias Change = _StateDifference.Change

    @Test func equalStatesHaveNoDifference() {
        let state = Counter(count: 3, rows: [Row(id: 1, title: "a")])
        let difference = _StateDifference(expected: state, actual: state)
        #expect(difference.isEmpty)
        #expect(difference.lines == "")
    }

    @Test func pathsOfNestedChanges() {
        let before = Counter(rows: [Row(id: 1, title: "a"), Row(id: 2, title: "b")])
        var expected = before, actual = before
        expected.count = 1
        actual.count = 2
        actual.flags["on"] = true
        expected.mode = .editing(id: 1, draft: "x")
        actual.mode = .editing(id: 1, draft: "y")
        actual.selection = 4
        actual.rows[id: 2]?.isDone = true
        let difference = _StateDifference(expected: expected, actual: actual)
        #expect(difference.changes == [
            Change(path: "state.count", expected: "1", actual: "2"),
            Change(path: #"state.flags["on"]"#, expected: "(absent)", actual: "true"),
            Change(path: "state.mode.editing.draft", expected: #""x""#, actual: #""y""#),
            Change(path: "state.selection", expected: "nil", actual: "4"),
            Change(path: "state.rows[id: 2].isDone", expected: "false", actual: "true"),
        ])
    }

    @Test func enumCasesThatDiffer() {
        var expected = Counter(), actual = Counter()
        expected.mode = .editing(id: 1, draft: "x")
        actual.mode = .idle
        let difference = _StateDifference(expected: expected, actual: actual)
        #expect(difference.changes.map(\.path) == ["state.mode"])
        #expect(difference.changes.first?.actual.hasSuffix("Mode.idle") == true)
    }

    @Test func versionedCollectionsByElement() {
        let before = Counter(
            rows: [Row(id: 1, title: "a"), Row(id: 2, title: "b"), Row(id: 3, title: "c")],
            tags: ["x", "y"], scores: ["a": 1, "b": 2])
        var expected = before, actual = before
        expected.rows.remove(id: 1)
        actual.rows.append(Row(id: 4, title: "d"))
        actual.tags[1] = "z"
        actual.scores["b"] = 3
        actual.scores["c"] = 0
        let difference = _StateDifference(expected: expected, actual: actual)
        let paths = difference.changes.map(\.path)
        #expect(paths.contains("state.rows[id: 1]"))  // removed in expected only: actual has it
        #expect(paths.contains("state.rows[id: 4]"))
        #expect(paths.contains("state.tags[1]"))
        #expect(paths.contains(#"state.scores["b"]"#))
        #expect(paths.contains(#"state.scores["c"]"#))
        #expect(difference.changes.first { $0.path == "state.tags[1]" } == Change(
            path: "state.tags[1]", expected: #""y""#, actual: #""z""#))
        #expect(difference.changes.first { $0.path == #"state.scores["c"]"# }?.expected == "(absent)")
    }

    @Test func unrelatedListsByOffset() {
        var expected = Counter(), actual = Counter()
        expected.tags = ["a", "b"]
        actual.tags = ["a", "c", "d"]
        let difference = _StateDifference(expected: expected, actual: actual)
        #expect(difference.changes == [
            Change(path: "state.tags[1]", expected: #""b""#, actual: #""c""#),
            Change(path: "state.tags[2]", expected: "(absent)", actual: #""d""#),
        ])
    }

    @Test func outputIsCapped() {
        var expected = Counter(), actual = Counter()
        expected.history = Array(0..<120)
        actual.history = Array(1...120)
        let difference = _StateDifference(expected: expected, actual: actual)
        #expect(difference.count == 120)
        #expect(difference.changes.count == _StateDifference.defaultLimit)
        #expect(difference.lines.hasSuffix("  … and 70 more"))
    }

    @Test func longValuesAreCut() {
        let long = String(repeating: "x", count: 1_000)
        #expect(_StateDifference.describe(long).count == _StateDifference.valueLimit + 1)
        #expect(_StateDifference.describe(nil) == "(absent)")
    }

    /// One row written among 1,000,000: one line, a handful of values
    /// visited, the untouched versioned subtrees skipped by identity.
    @Test func oneChangeInAMillionRows() {
        // NB: a tenth of that under ThreadSanitizer, whose instrumentation
        // makes building the rows the whole cost of the suite.
        let rowCount = runsUnderThreadSanitizer ? 100_000 : 1_000_000
        var before = Counter()
        before.rows = IdentifiedList((0..<rowCount).map { Row(id: $0, title: "row \($0)") })
        before.archive = IdentifiedList((0..<1_000).map { Row(id: $0, title: "old \($0)") })
        var expected = before, actual = before
        let written = rowCount / 2
        expected.rows[id: written]?.title = "expected"
        actual.rows[id: written]?.title = "actual"

        let difference = _StateDifference(expected: expected, actual: actual)
        #expect(difference.changes == [
            Change(path: "state.rows[id: \(written)].title", expected: #""expected""#, actual: #""actual""#),
        ])
        #expect(difference.lines.utf8.count < 1_024)
        // A walk of every row would visit more than 1,000,000 values.
        #expect(difference.visited < 50)
        // `settings`, `archive`, `tags`, `scores`: same node, same stamp on
        // both sides, skipped without looking inside.
        #expect(difference.skipped == 4)
    }

    @Test func oneChangeInManyRowsThroughTheTestStore() {
        var initial = Counter()
        // NB: the size is the other test's point; this one checks the path.
        initial.rows = IdentifiedList((0..<100_000).map { Row(id: $0, title: "row \($0)") })
        let store = makeStore(initial)
        withKnownIssue {
            store.send(.rename(id: 42, title: "b")) { $0.rows[id: 42]?.title = "a" }
        } matching: { issue in
            let message = text(issue)
            return message.utf8.count < 1_024 && message.contains(#"  state.rows[id: 42].title: "a" → "b""#)
        }
        store.finish()
    }
}
