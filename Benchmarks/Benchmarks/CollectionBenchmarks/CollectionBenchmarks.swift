import Benchmark
import SuiteSupport
import FastStore
import HashTreeCollections

// Side by side at 1,000,000 Int elements, with an older version alive where
// it matters ("shared"): Swift's Array (one copy-on-write buffer: a write
// next to an older version copies everything), swift-collections'
// TreeDictionary<Int, Int> (a persistent hash trie: shares structure, has no
// stamps and no diff) and FastStore's VersionedList.
//
// The 1M structures are global constants built once per process, before the
// measured region (`startMeasurement` / `stopMeasurement`).

let n = 1_000_000

let arrayFixture = Array(0 ..< n)
let listFixture = VersionedList(0 ..< n)
let treeFixture = TreeDictionary(uniqueKeysWithValues: (0 ..< n).lazy.map { ($0, $0) })

/// `listFixture` with one element written: a newer version sharing all but
/// one path with the fixture.
let listOneChange: VersionedList<Int> = {
    var list = listFixture
    list[n / 2 + 17] = -1
    return list
}()

let treeOneChange: TreeDictionary<Int, Int> = {
    var tree = treeFixture
    tree[n / 2 + 17] = -1
    return tree
}()

let dictionaryFixture = VersionedDictionary(uniqueKeysWithValues: (0 ..< n).lazy.map { ($0, $0) })

let dictionaryOneChange: VersionedDictionary<Int, Int> = {
    var dictionary = dictionaryFixture
    dictionary[n / 2 + 17] = -1
    return dictionary
}()

/// A row of an identified list.
struct Row: Identifiable, Hashable, Sendable {
    var id: Int
    var value: Int
}

let rowCount = 100_000
let rowsFixture = IdentifiedList((0 ..< rowCount).lazy.map { Row(id: $0, value: $0) })

let rowsOneChange: IdentifiedList<Row> = {
    var rows = rowsFixture
    rows[id: rowCount / 2 + 17] = Row(id: rowCount / 2 + 17, value: -1)
    return rows
}()

/// A list no other version shares, mutated in place by one benchmark.
final class UniqueListBox: @unchecked Sendable {
    var list = VersionedList(0 ..< n)
    var counter = 0
}

let uniqueListBox = UniqueListBox()

/// Positions spread over the whole collection.
@inline(__always) func position(_ i: Int) -> Int { (i &* 7919 &+ 13) % n }

var quick: Benchmark.Configuration {
    Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount],
    warmupIterations: 10,
    scalingFactor: .one,
    maxDuration: suiteMaxDuration(.seconds(1)),
    maxIterations: 20_000,
    thresholds: allocationCountGate
    )
}

var slow: Benchmark.Configuration {
    Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount],
    warmupIterations: 2,
    scalingFactor: .one,
    maxDuration: suiteMaxDuration(.seconds(2)),
    maxIterations: 60,
    thresholds: allocationCountGate
    )
}

let benchmarks: @Sendable () -> Void = {
    // MARK: Update one element while an older version is alive

    Benchmark("Array.update.shared.1M", configuration: slow) { benchmark in
        let base = arrayFixture
        var copy = base
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            copy = base
            copy[position(i)] = i
            i += 1
        }
        benchmark.stopMeasurement()
        blackHole(copy)
    }

    Benchmark("TreeDictionary.update.shared.1M", configuration: quick) { benchmark in
        let base = treeFixture
        var copy = base
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            copy = base
            copy[position(i)] = i
            i += 1
        }
        benchmark.stopMeasurement()
        blackHole(copy)
    }

    Benchmark("List.update.shared.1M", configuration: quick) { benchmark in
        let base = listFixture
        var copy = base
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            copy = base
            copy[position(i)] = i
            i += 1
        }
        benchmark.stopMeasurement()
        blackHole(copy)
    }

    Benchmark("List.update.unique.1M", configuration: quick) { benchmark in
        // One list for the whole run, written in place (no other version).
        let box = uniqueListBox
        var i = box.counter
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            box.list[position(i)] = i
            i += 1
        }
        benchmark.stopMeasurement()
        box.counter = i
    }

    // MARK: What changed, one write among 1M

    Benchmark("List.diff.one.1M", configuration: quick) { benchmark in
        let older = listFixture, newer = listOneChange
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer.difference(from: older))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("List.equal.one.1M", configuration: quick) { benchmark in
        let older = listFixture, newer = listOneChange
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer == older)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("TreeDictionary.equal.one.1M", configuration: quick) { benchmark in
        let older = treeFixture, newer = treeOneChange
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer == older)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Array.equal.one.1M", configuration: slow) { benchmark in
        var newer = arrayFixture
        newer[n / 2 + 17] = -1
        let older = arrayFixture
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer == older)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Dictionary.update.shared.1M", configuration: quick) { benchmark in
        let base = dictionaryFixture
        var copy = base
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            copy = base
            copy[position(i)] = i
            i += 1
        }
        benchmark.stopMeasurement()
        blackHole(copy)
    }

    Benchmark("Dictionary.diff.one.1M", configuration: quick) { benchmark in
        let older = dictionaryFixture, newer = dictionaryOneChange
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer.difference(from: older))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Rows.updateByID.shared.100K", configuration: quick) { benchmark in
        let base = rowsFixture
        var copy = base
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            copy = base
            let id = position(i) % rowCount
            copy[id: id] = Row(id: id, value: i)
            i += 1
        }
        benchmark.stopMeasurement()
        blackHole(copy)
    }

    Benchmark("Rows.diff.one.100K", configuration: quick) { benchmark in
        let older = rowsFixture, newer = rowsOneChange
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(newer.difference(from: older))
        }
        benchmark.stopMeasurement()
    }

    // MARK: Read one element

    Benchmark("Array.read.1M", configuration: quick) { benchmark in
        let array = arrayFixture
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(array[position(i)])
            i += 1
        }
        benchmark.stopMeasurement()
    }

    Benchmark("List.read.1M", configuration: quick) { benchmark in
        let list = listFixture
        var i = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(list[position(i)])
            i += 1
        }
        benchmark.stopMeasurement()
    }

    // MARK: Iterate all elements

    Benchmark("Array.iterate.1M", configuration: slow) { benchmark in
        let array = arrayFixture
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var sum = 0
            for x in array { sum &+= x }
            blackHole(sum)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("TreeDictionary.iterate.1M", configuration: slow) { benchmark in
        let tree = treeFixture
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var sum = 0
            for (_, x) in tree { sum &+= x }
            blackHole(sum)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("List.iterate.1M", configuration: slow) { benchmark in
        let list = listFixture
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var sum = 0
            for x in list { sum &+= x }
            blackHole(sum)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("List.forEach.1M", configuration: slow) { benchmark in
        let list = listFixture
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var sum = 0
            list.forEach { sum &+= $0 }
            blackHole(sum)
        }
        benchmark.stopMeasurement()
    }

    // MARK: Build from a sequence

    Benchmark("Array.build.1M", configuration: slow) { benchmark in
        // The built value is released after the measured region.
        var built: [[Int]] = []
        built.reserveCapacity(benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            built.append(Array((0 ..< n).lazy.map { $0 &* 3 }))
        }
        benchmark.stopMeasurement()
        blackHole(built)
    }

    Benchmark("TreeDictionary.build.1M", configuration: slow) { benchmark in
        // The built value is released after the measured region.
        var built: [TreeDictionary<Int, Int>] = []
        built.reserveCapacity(benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            built.append(TreeDictionary(uniqueKeysWithValues: (0 ..< n).lazy.map { ($0, $0 &* 3) }))
        }
        benchmark.stopMeasurement()
        blackHole(built)
    }

    Benchmark("List.build.1M", configuration: slow) { benchmark in
        // The built value is released after the measured region.
        var built: [VersionedList<Int>] = []
        built.reserveCapacity(benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            built.append(VersionedList((0 ..< n).lazy.map { $0 &* 3 }))
        }
        benchmark.stopMeasurement()
        blackHole(built)
    }
}
