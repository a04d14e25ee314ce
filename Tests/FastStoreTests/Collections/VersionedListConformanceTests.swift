import FastStore
import Foundation
import Testing

@Suite("VersionedList conformances")
struct VersionedListConformanceTests {
    @Test func literalsDescriptionsAndCodable() throws {
        let list: VersionedList<Int> = [3, 1, 2]
        #expect(list.description == "[3, 1, 2]")
        #expect(list.debugDescription == "VersionedList([3, 1, 2])")
        let strings: VersionedList<String> = ["a"]
        #expect(strings.debugDescription == "VersionedList([\"a\"])")
        let data = try JSONEncoder().encode(list)
        #expect(String(decoding: data, as: UTF8.self) == "[3,1,2]")
        let decoded = try JSONDecoder().decode(VersionedList<Int>.self, from: data)
        #expect(decoded == list)
        #expect(decoded.nodeID != list.nodeID)
        let big = VersionedList(0 ..< 5000)
        let roundTrip = try JSONDecoder().decode(VersionedList<Int>.self, from: JSONEncoder().encode(big))
        #expect(Array(roundTrip) == Array(0 ..< 5000))
    }

    @Test func equalityAndHashing() {
        let a = VersionedList(0 ..< 5000)
        var b = a
        #expect(a == b)
        b[2500] = -1
        #expect(a != b)
        b[2500] = 2500
        #expect(a == b, "equal contents, different version")
        let c = VersionedList(0 ..< 5000)  // unrelated, equal
        #expect(a == c)
        #expect(a.hashValue == c.hashValue)
        var d = a
        d.insert(0, at: 0)
        d.remove(at: 1)  // [0, 0, 2, ...]? no: removes old 0; same contents
        #expect(Array(d) == Array(a))
        #expect(d == a, "chunked differently, same elements")
        #expect(VersionedList<Int>() == [])
        #expect(Set([a, c, b]).count == 1)
    }

    @Test func algorithms() {
        var list: VersionedList<Int> = [5, 3, 8, 1]
        let filtered = list.filter { $0 > 2 }
        #expect(type(of: filtered) == VersionedList<Int>.self)
        #expect(Array(filtered) == [5, 3, 8])
        #expect(filtered.nodeID == list.nodeID)
        #expect(filtered.difference(from: list).removed == [3])
        let mapped: [String] = list.map(String.init)
        #expect(mapped == ["5", "3", "8", "1"])
        #expect(Array(list.sorted()) == [1, 3, 5, 8])
        #expect(Array(list.sorted(by: >)) == [8, 5, 3, 1])
        list.sort()
        #expect(Array(list) == [1, 3, 5, 8])
        list.reverse()
        #expect(Array(list) == [8, 5, 3, 1])
        #expect(list.firstIndex(of: 3) == 2)
        #expect(Array(list[1 ..< 3]) == [5, 3])
        list[1 ..< 3] = list[2 ..< 4]
        #expect(Array(list) == [8, 3, 1, 1])
        list.removeAll()
        #expect(list.isEmpty)
        list.append(contentsOf: 0 ..< 100)
        list.removeSubrange(10 ..< 90)
        #expect(Array(list) == Array(0 ..< 10) + Array(90 ..< 100))
        #expect(list.removeFirst() == 0)
        #expect(VersionedList(repeating: 7, count: 3) == [7, 7, 7])
    }

    @Test func sendable() async {
        let list = VersionedList(0 ..< 1000)
        let sum = await Task.detached { list.reduce(0, +) }.value
        #expect(sum == 499_500)
    }
}

@Suite("VersionedList iteration")
struct VersionedListIterationTests {
    @Test(arguments: [0, 1, 63, 64, 65, 4097, 100_000])
    func iterationPathsAgree(count: Int) {
        let list = VersionedList(0 ..< count)
        var viaForIn: [Int] = []
        for x in list { viaForIn.append(x) }
        var viaForEach: [Int] = []
        list.forEach { viaForEach.append($0) }
        let expected = Array(0 ..< count)
        #expect(viaForIn == expected)
        #expect(viaForEach == expected)
        #expect(Array(list) == expected)
        #expect(list.reduce(0, +) == expected.reduce(0, +))
        var partial = list.makeIterator()
        for k in 0 ..< min(count, 70) { #expect(partial.next() == k) }
    }

    /// Past the last element `next()` keeps returning nil (the iterator
    /// starts before its first leaf, and a root leaf is entered once).
    @Test(arguments: [0, 1, 64, 65, 4097])
    func exhaustedIteratorStaysExhausted(count: Int) {
        var iterator = VersionedList(0 ..< count).makeIterator()
        var n = 0
        while iterator.next() != nil { n += 1 }
        #expect(n == count)
        #expect(iterator.next() == nil)
        #expect(iterator.next() == nil)
    }

    /// A copy into a buffer shorter than the list hands back an iterator
    /// positioned just after the copied prefix (the skip crosses leaves and
    /// bottom branches).
    @Test(arguments: [(0, 0), (5, 3), (64, 64), (65, 64), (4097, 100), (4097, 2048), (4097, 4096), (100_000, 70_001)])
    func copyContentsResumesAfterPrefix(count: Int, copied: Int) {
        let list = VersionedList(0 ..< count)
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: copied)
        defer { buffer.deallocate() }
        var (rest, n) = list._copyContents(initializing: buffer)
        #expect(n == copied)
        #expect(Array(buffer.prefix(n)) == Array(0 ..< copied))
        buffer.prefix(n).deinitialize()
        var tail: [Int] = []
        while let x = rest.next() { tail.append(x) }
        #expect(tail == Array(copied ..< count))
    }
}
