import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import Testing

/// Undo across relaunches and kills against the contract, in seeded random
/// sessions (written by the second hostile review): dispatches (some that
/// change nothing), undos, redos, jumps, `saveHistory()`, flushes, and kills
/// (a copy of the file and its WAL taken after a flush, what a kill leaves
/// with WAL and full syncs), with every durability, compaction and limit.
/// A reopened file must give a fresh history at its state, or exactly a
/// history the user had at a moment, at or after the last acknowledgement,
/// when its state was the file's; after a close, exactly the last one.
/// `FASTSTORE_SEED` runs one seed; `FASTSTORE_RELAUNCH_SEEDS` sets how many
/// (default 100).
@Suite struct RelaunchKillDifferentialTests {
    typealias R = CounterModel.State
    typealias RA = CounterModel.Action
    static let reduce = CounterModel.reduce

    struct Snap: Equatable, CustomStringConvertible {
        var indices: ClosedRange<Int>
        var current: Int
        var states: [R]
        var description: String { "\(indices)@\(current) \(states.map { "\($0.n)/\($0.x)/\($0.tag)" })" }
    }

    static func snap(_ h: StoreHistory<R, RA>) -> Snap {
        let indices = h.indices
        return Snap(indices: indices, current: h.currentIndex, states: indices.map { h[$0]!.state })
    }

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["FASTSTORE_SEED"].flatMap(UInt64.init) { return [seed] }
        return Array(1 ... (environment["FASTSTORE_RELAUNCH_SEEDS"].flatMap(UInt64.init) ?? 100))
    }

    @Test(arguments: seeds)
    func killsAgainstTheContract(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let dir = temporaryDirectory("relaunchkill\(seed)")
        var generation = 0
        var path = dir.appendingPathComponent("state0.sqlite").path
        let grouped = Bool.random(using: &rng)
        let compact = Bool.random(using: &rng) ? 1 : 1000
        let limit = Int.random(in: 1 ... 6, using: &rng)
        let options = PersistenceOptions(durability: grouped ? .grouped(.seconds(60)) : .everyBatch, compactAfter: compact)
        let ctx = "seed \(seed) (FASTSTORE_SEED=\(seed)) grouped \(grouped) compact \(compact) limit \(limit)"
        var trace: [String] = []
        // Histories the user had since the last acknowledgement (the last one now).
        var candidates: [Snap] = []
        var mustMatchLast = false

        for session in 0 ..< 8 {
            let file = try PersistentState(path: path, options: options, initial: R())
            let store = Store(state: file.state, reducer: Self.reduce)
            try file.keepSaving(store)
            let history = try file.history(of: store, limit: .entries(limit))
            let restored = Self.snap(history)
            let fresh = restored.indices == 0 ... 0 && restored.current == 0
            if session > 0 {
                if mustMatchLast {
                    #expect(restored == candidates.last, "\(ctx) session \(session): after a close, restored \(restored), had \(candidates.last!)\n\(trace.joined(separator: "\n"))")
                } else if !fresh {
                    #expect(candidates.contains(restored), "\(ctx) session \(session): restored \(restored), not among the histories had at the file's state \(file.state): \(candidates)\n\(trace.joined(separator: "\n"))")
                }
                #expect(store.state == restored.states[restored.current - restored.indices.lowerBound])
            }
            trace.append("-- session \(session) restored \(restored)")
            candidates = [restored]
            var ended = false
            for _ in 0 ..< 25 {
                let op = Int.random(in: 0 ..< 30, using: &rng)
                var what = ""
                switch op {
                case 0, 1: store.dispatch(.inc); store.waitUntilIdle(); what = "inc"
                case 2: store.dispatch(.dec); store.waitUntilIdle(); what = "dec"
                case 3: store.dispatch(.noop); store.waitUntilIdle(); what = "noop"
                case 4: let t = ["a", "b"].randomElement(using: &rng)!; store.dispatch(.tag(t)); store.waitUntilIdle(); what = "tag \(t)"
                case 5, 6: what = "undo \((try? history.undo()) != nil)"
                case 7: what = "redo \((try? history.redo()) != nil)"
                case 8:
                    let k = Int.random(in: history.indices, using: &rng)
                    try history.jump(to: k); what = "jump \(k)"
                case 9, 12, 13, 14, 15:
                    let ok = try await file.saveHistory(); what = "saveHistory \(ok)"
                case 10:
                    try await file.flush(); what = "flush"
                case 11:
                    what = "kill"
                case 16, 17: store.dispatch(.noop); store.waitUntilIdle(); what = "noop"
                case 18, 19: what = "undo \((try? history.undo()) != nil)"
                default:
                    what = "redo \((try? history.redo()) != nil)"
                }
                let s = Self.snap(history)
                trace.append("\(what) -> \(s)")
                if what.hasPrefix("saveHistory") || what == "flush" {
                    candidates = [s]
                } else if what != "kill" {
                    candidates.append(s)
                }
                if what == "kill" {
                    if !grouped { try await file.flush(); candidates = [s] }
                    generation += 1
                    let copy = dir.appendingPathComponent("state\(generation).sqlite").path
                    try CounterModel.crashCopy(path, to: copy)
                    try file.close()
                    path = copy
                    mustMatchLast = false
                    ended = true
                    break
                }
            }
            if !ended {
                try file.close()
                trace.append("close")
                mustMatchLast = true
            }
            _ = history
        }
    }
}
