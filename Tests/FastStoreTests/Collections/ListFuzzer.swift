@testable import FastStore
import FastStoreTestSupport
import Testing

/// Applies one random operation to a list and to its reference model.
struct ListFuzzer {
    var generator: SeededGenerator
    var seed: UInt64 { generator.seed }

    init(fallbackSeed: UInt64) {
        generator = SeededGenerator.fromEnvironment(fallback: fallbackSeed)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func value() -> Int { int(0 ... 999) }

    /// One random operation; returns its name for failure messages.
    @discardableResult
    mutating func step(_ list: inout VersionedList<Int>, _ model: inout ListReferenceModel<Int>) -> String {
        let n = model.count
        let roll = int(0 ... 99)
        switch roll {
        case 0 ..< 20 where n > 0:
            let i = int(0 ... n - 1), v = value()
            list[i] = v
            model.set(v, at: i)
            return "set \(i)"
        case 20 ..< 30 where n > 0:
            let i = int(0 ... n - 1)
            list[i] += 1
            model.set(model.values[i] + 1, at: i)
            return "modify \(i)"
        case 30 ..< 48:
            let i = int(0 ... n), v = value()
            list.insert(v, at: i)
            model.insert(v, at: i)
            return "insert \(i)"
        case 48 ..< 55:
            let v = value()
            list.append(v)
            model.insert(v, at: n)
            return "append"
        case 55 ..< 75 where n > 0:
            let i = int(0 ... n - 1)
            let removed = list.remove(at: i)
            #expect(removed == model.values[i], "seed \(seed): remove(at: \(i)) returned \(removed)")
            model.remove(at: i)
            return "remove \(i)"
        case 75 ..< 88:
            let lower = int(0 ... n)
            let upper = int(lower ... min(n, lower + 40))
            let values = (0 ..< int(0 ... 40)).map { _ in value() }
            list.replaceSubrange(lower ..< upper, with: values)
            model.replaceSubrange(lower ..< upper, with: values)
            return "replace \(lower)..<\(upper) with \(values.count)"
        case 88 ..< 91:
            let lower = int(0 ... n)
            let upper = int(lower ... n)
            let values = (0 ..< int(0 ... n / 2 + 1)).map { _ in value() }
            list.replaceSubrange(lower ..< upper, with: values)
            model.replaceSubrange(lower ..< upper, with: values)
            return "big replace \(lower)..<\(upper) with \(values.count)"
        case 91 ..< 93:
            let k = int(2 ... 9)
            list.removeAll { $0 % k == 0 }
            model.removeAll { $0 % k == 0 }
            return "removeAll(where: % \(k))"
        case 93 ..< 94:
            list.sort()
            model.sort(by: <)
            return "sort"
        case 94 ..< 96 where n > 1:
            let i = int(0 ... n - 1), j = int(0 ... n - 1)
            list.swapAt(i, j)
            if i != j {
                let (a, b) = (model.values[i], model.values[j])
                model.set(b, at: i)
                model.set(a, at: j)
            }
            return "swapAt \(i) \(j)"
        default:
            if n > 0 {
                let removed = list.removeLast()
                #expect(removed == model.values[n - 1], "seed \(seed): removeLast")
                model.remove(at: n - 1)
                return "removeLast"
            }
            list.append(contentsOf: [1, 2, 3])
            model.replaceSubrange(0 ..< 0, with: [1, 2, 3])
            return "append(contentsOf:)"
        }
    }
}

/// Whether `list` holds exactly `values`, checked through iteration,
/// `count`, indexed reads and `Array(list)`.
func listMatches(_ list: VersionedList<Int>, _ values: [Int]) -> Bool {
    guard list.count == values.count else { return false }
    guard Array(list) == values else { return false }
    var iterated: [Int] = []
    for x in list { iterated.append(x) }
    guard iterated == values else { return false }
    for i in values.indices where list[i] != values[i] { return false }
    return true
}
