@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// History moves racing groups of actions (`dispatch(contentsOf:)`) from
/// other threads: a move never lands inside a group, and nothing traps.
@Suite struct StoreHistoryGroupRaceTests {
    /// A value appended to the list: group `group` of thread `thread`, its
    /// `item`-th of `size` actions.
    struct Tagged: Hashable, Sendable {
        var thread: Int
        var group: Int
        var item: Int
        var size: Int
    }

    static func makeStore() -> Store<Versioned<[Tagged]>, Tagged> {
        Store(state: Versioned([])) { state, tagged in state.value.append(tagged) }
    }

    /// The problems of one sequence of values against the groups' promise:
    /// each group's actions reduced together, in order, none missing.
    static func tornGroups(_ values: [Tagged]) -> [String] {
        var problems: [String] = []
        var k = 0
        while k < values.count {
            let head = values[k]
            guard head.item == 0 else {
                problems.append("\(head) starts a run at \(k) without its group's first action")
                k += 1
                continue
            }
            for item in 1 ..< head.size {
                let expected = Tagged(thread: head.thread, group: head.group, item: item, size: head.size)
                if k + item >= values.count || values[k + item] != expected {
                    problems.append("group \(head.thread).\(head.group) torn after \(item) of \(head.size) at \(k)")
                    break
                }
            }
            k += head.size
        }
        return problems
    }

    static func group(thread: Int, group: Int, size: Int) -> [Tagged] {
        (0 ..< size).map { Tagged(thread: thread, group: group, item: $0, size: size) }
    }

    /// Regression: `dispatch(contentsOf:)` starting a drain took every
    /// pending action without moving the position of an undo queued
    /// meanwhile, which then indexed past the queue ("Array index is out of
    /// range") or cut a later group in two.
    @Test func anUndoRacingGroupsNeverTrapsNorTearsAGroup() {
        let store = Self.makeStore()
        let history = StoreHistory(store, limit: .entries(32))
        let published = _Locked<[String]>([])
        let subscription = store.subscribe { state in
            let problems = Self.tornGroups(state.value)
            if !problems.isEmpty { published.mutate { $0.append(contentsOf: problems) } }
        }
        let rounds = 2_000
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            start.wait()
            for g in 0 ..< rounds {
                store.dispatch(contentsOf: Self.group(thread: 0, group: g, size: 2))
            }
            done.leave()
        }.start()
        done.enter()
        Thread {
            start.wait()
            for _ in 0 ..< rounds { try? history.undo() }
            done.leave()
        }.start()
        start.signal()
        start.signal()
        done.wait()
        store.waitUntilIdle()
        #expect(published.value.isEmpty, "\(published.value.prefix(5))")
        for index in history.indices {
            let actions = history[index]!.actions
            #expect(Self.tornGroups(actions).isEmpty, "entry \(index): \(actions)")
        }
        subscription.cancel()
    }

    enum Step {
        case group(Int)
        case undo
        case redo
        case jump(Int)
    }

    /// Seeded scripts of groups, undos, redos and jumps from three threads:
    /// every published state and every entry's batch is whole groups, each
    /// entry's state is its predecessor's with its actions reduced (the
    /// reference: the reducer rerun), and the store ends on the current
    /// entry's state.
    @Test(arguments: 0 ..< 12)
    func movesRacingGroupsFromThreeThreadsKeepEveryGroupWhole(seedOffset: UInt64) {
        var generator = SeededGenerator.fromEnvironment(fallback: 0x6A0_0000 &+ seedOffset)
        let seed = generator.seed
        let threads = 3, steps = 300
        let scripts: [[Step]] = (0 ..< threads).map { _ in
            (0 ..< steps).map { _ in
                switch Int.random(in: 0 ..< 10, using: &generator) {
                case 0 ..< 6: .group(Int.random(in: 1 ... 4, using: &generator))
                case 6 ..< 8: .undo
                case 8: .redo
                default: .jump(Int.random(in: 0 ..< 40, using: &generator))
                }
            }
        }
        let store = Self.makeStore()
        let history = StoreHistory(store, limit: .entries(24))
        let problems = _Locked<[String]>([])
        let subscription = store.subscribe { state in
            let torn = Self.tornGroups(state.value)
            if !torn.isEmpty { problems.mutate { $0.append(contentsOf: torn) } }
        }
        let done = DispatchGroup()
        for t in 0 ..< threads {
            done.enter()
            Thread {
                var g = 0
                for step in scripts[t] {
                    switch step {
                    case .group(let size):
                        store.dispatch(contentsOf: Self.group(thread: t, group: g, size: size))
                        g += 1
                    case .undo: try? history.undo()
                    case .redo: try? history.redo()
                    case .jump(let offset):
                        // An index near the newest one, kept or evicted by
                        // the time the move applies: either is fine.
                        try? history.jump(to: max(0, history.indices.upperBound - offset % 30))
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        store.waitUntilIdle()
        #expect(problems.value.isEmpty, "seed \(seed): \(problems.value.prefix(5))")
        let indices = history.indices
        for index in indices {
            let entry = history[index]!
            #expect(Self.tornGroups(entry.actions).isEmpty, "seed \(seed), entry \(index): \(entry.actions)")
            if index > indices.lowerBound {
                let expected = history[index - 1]!.state.value + entry.actions
                #expect(entry.state.value == expected, "seed \(seed), entry \(index)")
            }
        }
        #expect(store.state.value == history[history.currentIndex]!.state.value, "seed \(seed)")
        subscription.cancel()
    }
}
