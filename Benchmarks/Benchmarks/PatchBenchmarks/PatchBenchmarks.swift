import Benchmark
import SuiteSupport
@_spi(Testing) import FastStore
import Foundation

// Patches of a 1,000,000-row todo list with one row changed:
//
// - `Patch.diffEncode.oneRow.todos1M`: `StatePatch(from:to:)` plus
//   `JSONEncoder` (what sending one action's changes to another process
//   costs). The encoded size is printed once and checked against 200 bytes.
// - `Patch.decodeApply.oneRow.todos1M`: `JSONDecoder` plus `apply(to:)`
//   (what the receiving side pays).
//
// Names have no spaces (package-benchmark's threshold files break on them).

struct Todo: Codable, Identifiable, Sendable {
    var id: Int
    var title: String
    var done: Bool
}

struct TodoState: Codable, Sendable {
    var filter: String
    var todos: IdentifiedList<Versioned<Todo>>
}

typealias State = Versioned<TodoState>

/// The two versions, built once per process.
final class PatchFixture: @unchecked Sendable {
    static let shared = PatchFixture()

    let before: State
    let after: State
    let encoded: Data

    init() {
        before = Versioned(TodoState(
            filter: "all",
            todos: IdentifiedList((0 ..< 1_000_000).lazy.map { Versioned(Todo(id: $0, title: "todo \($0)", done: false)) })))
        var after = before
        after.todos[id: 424_242]?.done = true
        self.after = after
        encoded = try! JSONEncoder().encode(StatePatch(from: before, to: after))
        print("Patch.oneRow.todos1M: \(encoded.count) bytes: \(String(decoding: encoded, as: UTF8.self))")
        precondition(encoded.count <= 200, "a one-row patch encodes to at most 200 bytes")
    }
}

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: suiteMaxDuration(.seconds(1)),
        maxIterations: 100_000,
        thresholds: allocationCountGate
    )

    Benchmark("Patch.diffEncode.oneRow.todos1M") { benchmark in
        let fixture = PatchFixture.shared
        let encoder = JSONEncoder()
        var bytes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            bytes += try encoder.encode(StatePatch(from: fixture.before, to: fixture.after)).count
        }
        benchmark.stopMeasurement()
        blackHole(bytes)
    }

    Benchmark("Patch.decodeApply.oneRow.todos1M") { benchmark in
        let fixture = PatchFixture.shared
        let decoder = JSONDecoder()
        var done = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let patch = try decoder.decode(StatePatch<State>.self, from: fixture.encoded)
            if try patch.apply(to: fixture.before).todos[id: 424_242]?.done == true { done += 1 }
        }
        benchmark.stopMeasurement()
        precondition(done == benchmark.scaledIterations.count)
    }
}
