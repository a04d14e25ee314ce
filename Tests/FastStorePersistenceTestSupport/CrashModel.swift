import FastStore
import FastStoreTestSupport
import Foundation

/// The state, actions and reference of the persistence tests and of the
/// process they kill (`PersistenceCrashChild`): a todo list in an
/// `IdentifiedList`, a note, and the number of actions reduced so far
/// (`step`), so that a reopened file says which prefix of the actions it
/// holds.
public enum CrashModel {
    public struct Row: Codable, Identifiable, Equatable, Sendable {
        public let id: Int
        public var title: String
        public var done: Bool
    }

    public struct Fields: Codable, Sendable {
        public var rows: IdentifiedList<Row>
        public var note: String
        public var step: Int
    }

    public typealias State = Versioned<Fields>

    public enum Action: Sendable, Equatable {
        case toggle(Int)
        case rename(Int, String)
        case insert(Int)
        case remove(Int)
        case note(String)
    }

    /// The state every run starts from: 50 rows.
    public static func initial() -> State {
        Versioned(Fields(rows: IdentifiedList((0..<50).map { Row(id: $0, title: "row \($0)", done: false) }), note: "", step: 0))
    }

    /// The reducer: one step per action.
    public static func reduce(_ state: inout State, _ action: Action) {
        state.step += 1
        switch action {
        case .toggle(let id): state.rows[id: id]?.done.toggle()
        case .rename(let id, let title): state.rows[id: id]?.title = title
        case .insert(let id): state.rows.append(Row(id: id, title: "new \(id)", done: false))
        case .remove(let id): state.rows.remove(id: id)
        case .note(let text): state.note = text
        }
    }

    /// `count` actions drawn from `seed` (SplitMix64), each naming a row
    /// that exists when it runs.
    public static func actions(seed: UInt64, count: Int) -> [Action] {
        var rng = SeededGenerator(seed: seed)
        var live = Array(0..<50)
        var next = 50
        var actions: [Action] = []
        actions.reserveCapacity(count)
        for _ in 0..<count {
            let pick = rng.next() % 10
            if live.isEmpty || pick == 0 {
                actions.append(.insert(next)); live.append(next); next += 1
            } else if pick == 1 && live.count > 5 {
                let i = Int(rng.next() % UInt64(live.count))
                actions.append(.remove(live[i])); live.remove(at: i)
            } else if pick < 5 {
                actions.append(.toggle(live[Int(rng.next() % UInt64(live.count))]))
            } else if pick < 8 {
                let id = live[Int(rng.next() % UInt64(live.count))]
                actions.append(.rename(id, "title \(rng.next() % 100_000)"))
            } else {
                actions.append(.note(String(repeating: "n", count: Int(rng.next() % 40))))
            }
        }
        return actions
    }

    /// The state after the first `count` of `actions`, from ``initial()``.
    public static func reference(_ actions: [Action], count: Int) -> State {
        var state = initial()
        for action in actions.prefix(count) { reduce(&state, action) }
        return state
    }

    /// The state's second shape, for the migration tests: the rows split
    /// into titles and the ids of those done, the note and step kept.
    public struct StateV2: Codable, Equatable, Sendable {
        public var titles: [String]
        public var done: [Int]
        public var note: String
        public var step: Int

        public init(titles: [String], done: [Int], note: String, step: Int) {
            self.titles = titles; self.done = done; self.note = note; self.step = step
        }
    }

    /// Version 1 (``State``) converted to version 2.
    @Sendable public static func migrate(_ old: State) throws -> StateV2 {
        StateV2(titles: old.rows.map(\.title), done: old.rows.filter(\.done).map(\.id), note: old.note, step: old.step)
    }

    /// The state as JSON with sorted keys: equal states, equal bytes.
    public static func canonical(_ state: State) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try! encoder.encode(state)
    }
}
