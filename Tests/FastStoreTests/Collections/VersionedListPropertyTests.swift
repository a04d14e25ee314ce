@testable import FastStore
import FastStoreTestSupport
import PropertyBased
import Testing

/// Shrinking property checks: a failure prints the smallest operation
/// script that still fails and a `.fixedSeed(...)` to replay it.
@Suite("VersionedList properties")
struct VersionedListPropertyTests {
    /// Runs `script` (op, a, b triples) on a list and on the model; returns
    /// a description of the first divergence, or nil.
    private func run(initialCount: Int, script: [Int]) -> String? {
        let initial = Array(0 ..< initialCount)
        var list = VersionedList(initial)
        var model = ListReferenceModel(initial)
        let older = list, olderModel = model
        var k = 0
        while k + 2 < script.count {
            let (op, a, b) = (script[k] % 5, script[k + 1], script[k + 2])
            k += 3
            let n = model.count
            switch op {
            case 0 where n > 0:
                list[a % n] = b
                model.set(b, at: a % n)
            case 1:
                list.insert(b, at: a % (n + 1))
                model.insert(b, at: a % (n + 1))
            case 2 where n > 0:
                list.remove(at: a % n)
                model.remove(at: a % n)
            case 3:
                let lower = a % (n + 1)
                let upper = lower + b % (n - lower + 1)
                let values = Array(repeating: b, count: a % 7)
                list.replaceSubrange(lower ..< upper, with: values)
                model.replaceSubrange(lower ..< upper, with: values)
            default:
                list.append(a)
                model.insert(a, at: n)
            }
            #if FASTSTORE_INTERNAL_CHECKS
            list._invariantCheck()
            #endif
            if Array(list) != model.values { return "contents after step \(k / 3)" }
        }
        if Array(older) != olderModel.values { return "older version changed" }
        let changes = list.difference(from: older)
        let naive = model.naiveDifference(from: olderModel)
        if changes.removed != naive.removed || changes.inserted != naive.inserted
            || changes.updated != naive.updated || changes.updatedInOlder != naive.updatedInOlder {
            return "diff \(changes) != naive \(naive)"
        }
        return nil
    }

    @Test func operationScriptsMatchArrayAndNaiveDiff() async {
        await propertyCheck(count: 150, input: Gen.int(in: 0 ... 3000), Gen.int(in: 0 ... 999).array(of: 0 ... 90)) {
            initialCount, script in
            let failure = run(initialCount: initialCount, script: script)
            #expect(failure == nil, "initialCount \(initialCount), script \(script)")
        }
    }
}

/// Node storage for elements of every alignment up to 16 bytes: the
/// exact padding (`_ListNode._padding`) puts the items where the node
/// reads them (the debug build's `_make` checks it) and inside the
/// allocation, and lists of such elements round-trip.
@Suite("List node layout")
struct ListNodeLayoutTests {
    struct Byte: Equatable { var a: UInt8 }
    struct Short: Equatable { var a: UInt16; var b: UInt8 }
    struct Word: Equatable { var a: UInt32; var b: UInt8 }
    struct Wide: Equatable { var a: SIMD4<Float>; var b: UInt8 }

    private func roundTrip<T: Equatable>(_ make: (Int) -> T) {
        let elements = (0 ..< 300).map(make)
        var list = VersionedList(elements)
        #expect(Array(list) == elements)
        let older = list
        list[7] = make(1_000)
        list.insert(make(2_000), at: 150)
        list.remove(at: 0)
        var expected = elements
        expected[7] = make(1_000)
        expected.insert(make(2_000), at: 150)
        expected.remove(at: 0)
        #expect(Array(list) == expected)
        #expect(Array(older) == elements)
        for height in [0, 1] {
            for capacity in [1, 17, 65] {
                let node = _ListNode<T>._make(height: height, capacity: capacity, explicitSlots: true, stamp: VersionStamp.next())
                let start = UnsafeMutableRawPointer(Unmanaged.passUnretained(node).toOpaque())
                let items = height == 0 ? UnsafeMutableRawPointer(node._elementsPointer) : UnsafeMutableRawPointer(node._childrenPointer)
                let end = height == 0
                    ? UnsafeMutableRawPointer(node._slotsPointer + capacity)
                    : UnsafeMutableRawPointer(node._countsPointer + capacity)
                #expect(Int(bitPattern: items) % MemoryLayout<T>.alignment == 0)
                #expect(end - start <= _ListNode<T>._tailOffset + node.capacity)
            }
        }
    }

    @Test func elementsOfEveryAlignment() {
        roundTrip { Byte(a: UInt8(truncatingIfNeeded: $0)) }
        roundTrip { Short(a: UInt16(truncatingIfNeeded: $0), b: 1) }
        roundTrip { Word(a: UInt32($0), b: 2) }
        roundTrip { $0 }
        roundTrip { "\($0)" }
        roundTrip { Wide(a: SIMD4(Float($0), 0, 0, 0), b: 3) }
    }
}
