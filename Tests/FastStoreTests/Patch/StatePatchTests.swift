@testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

@Suite("StatePatch")
struct StatePatchTests {
    struct Todo: Codable, Equatable, Identifiable {
        var id: Int
        var title: String
        var done: Bool
    }

    struct TodoState: Codable, Equatable {
        var filter: String
        var todos: IdentifiedList<Versioned<Todo>>
    }

    static func todoState(count: Int) -> Versioned<TodoState> {
        Versioned(TodoState(
            filter: "all",
            todos: IdentifiedList((0 ..< count).lazy.map { Versioned(Todo(id: $0, title: "todo \($0)", done: false)) })))
    }

    static func base() -> CodableState {
        var rng = SeededGenerator(seed: 7)
        var state = CodableTreeGen.state(&rng)
        state.rows = IdentifiedList((1...5).map { Versioned(CodableRow(id: $0, title: "row \($0)", done: false, tags: [])) })
        state.mid.numbers = VersionedList(0 ..< 10)
        return state
    }

    @Test("one row changed in a 100,000-row list: one operation, a small JSON, O(1) nodes expanded")
    func largeListSingleChange() throws {
        let a = Self.todoState(count: 100_000)
        var b = a
        b.todos[id: 4_242]?.done = true
        let patch = try StatePatch(from: a, to: b)
        #expect(patch.operations == [.set(path: PatchPath([.field("todos"), .id(.int(4_242)), .field("done")]), old: .bool(false), new: .bool(true))])
        let json = try JSONEncoder().encode(patch)
        #expect(json.count <= 200, "\(json.count) bytes: \(String(decoding: json, as: UTF8.self))")
        let applied = try patch.apply(to: a)
        #expect(applied == b)
        // Untouched parts are reused, touched nodes keep their identity.
        #expect(applied.nodeID == a.nodeID)
        #expect(applied.todos[id: 1]!.nodeID == a.todos[id: 1]!.nodeID)
        #expect(applied.todos.nodeID == a.todos.nodeID)
        // Inserting and removing a row: one edit each.
        var c = b
        c.todos.insert(Versioned(Todo(id: -1, title: "new", done: false)), at: 50_000)
        c.todos.remove(id: 7)
        let edit = try StatePatch(from: b, to: c)
        #expect(edit.operations.count == 1)
        #expect(try JSONEncoder().encode(edit).count <= 200)
        #expect(try edit.apply(to: b) == c)
        #expect(try edit.inverted().apply(to: c) == b)
    }

    @Test("the description prints one line per change")
    func description() throws {
        let a = Self.base()
        var b = a
        b.rows[id: 2]?.done = true
        b.mid.numbers.remove(at: 3)
        b.limit = 5
        b.scores["new"] = Versioned(CodableLeaf(a: 1, note: nil))
        let text = try StatePatch(from: a, to: b).description
        #expect(text.contains("rows[id: 2].done: false → true"), "\(text)")
        #expect(text.contains("mid.numbers: - [3] 3"), "\(text)")
        #expect(text.contains("limit: ∅ → 5"), "\(text)")
        #expect(text.contains("scores[key: \"new\"]: ∅ → {a: 1}"), "\(text)")
        #expect(try StatePatch(from: a, to: a).description == "(no changes)")
    }

    @Test("a patch applied to the wrong base throws naming the path, the state unchanged")
    func wrongBase() throws {
        let a = Self.base()
        var b = a
        b.rows[id: 2]?.title = "changed"
        let patch = try StatePatch(from: a, to: b)
        var other = a
        other.rows[id: 2]?.title = "elsewhere"
        let before = other
        #expect(throws: PatchError.mismatch(path: "rows[id: 2].title")) { try patch.apply(to: other) }
        #expect(other == before)
    }

    @Test("a missing id throws missingID with the path")
    func missingID() throws {
        let a = Self.base()
        var b = a
        b.rows[id: 4]?.done = true
        let patch = try StatePatch(from: a, to: b)
        var other = a
        other.rows.remove(id: 4)
        let before = other
        #expect(throws: PatchError.missingID(path: "rows[id: 4]")) { try patch.apply(to: other) }
        #expect(other == before)
        // A removal by id, too.
        var c = a
        c.rows.remove(id: 3)
        var without3 = a
        without3.rows.remove(id: 3)
        #expect(throws: PatchError.missingID(path: "rows[id: 3]")) { try StatePatch(from: a, to: c).apply(to: without3) }
    }

    @Test("an index out of range throws with the path")
    func indexOutOfRange() throws {
        let a = Self.base()
        var b = a
        b.mid.numbers[9] = 99
        let patch = try StatePatch(from: a, to: b)
        #expect(patch.operations.map(\.path.description) == ["mid.numbers[9]"])
        var shorter = a
        shorter.mid.numbers.removeLast()
        #expect(throws: PatchError.indexOutOfRange(path: "mid.numbers[9]")) { try patch.apply(to: shorter) }
    }

    @Test("a value of another type throws typeMismatch with the path")
    func typeMismatch() throws {
        let a = Self.base()
        let patch = StatePatch<CodableState>(operations: [.set(path: PatchPath([.field("count")]), old: .int(Int64(a.count)), new: .string("many"))])
        #expect {
            try patch.apply(to: a)
        } throws: { error in
            (error as? PatchError)?.path == "count" && "\(error)".contains("typeMismatch")
        }
        let nowhere = StatePatch<CodableState>(operations: [.set(path: PatchPath([.field("nope"), .index(2)]), old: .int(1), new: .int(2))])
        #expect(throws: PatchError.mismatch(path: "nope[2]")) { try nowhere.apply(to: a) }
    }

    @Test("patches are Equatable through JSON, with compact paths")
    func jsonFormat() throws {
        let a = Self.base()
        var b = a
        b.rows[id: 2]?.done = true
        let json = String(decoding: try JSONEncoder().encode(StatePatch(from: a, to: b)), as: UTF8.self)
        #expect(json == #"[{"n":true,"o":false,"p":["rows",{"id":2},"done"]}]"# || json.contains(#""p":["rows",{"id":2},"done"]"#), "\(json)")
    }

    @Test("measure: one row of a 1,000,000-item todo list", .enabled(if: ProcessInfo.processInfo.environment["FASTSTORE_PATCH_MILLION"] != nil))
    func million() throws {
        let a = Self.todoState(count: 1_000_000)
        var b = a
        b.todos[id: 424_242]?.done = true
        let clock = ContinuousClock()
        var json = Data()
        let elapsed = try clock.measure {
            json = try JSONEncoder().encode(StatePatch(from: a, to: b))
        }
        print("StatePatch 1,000,000 todos, one row: \(json.count) bytes, diff+encode \(elapsed): \(String(decoding: json, as: UTF8.self))")
        #expect(json.count <= 200)
    }
}
