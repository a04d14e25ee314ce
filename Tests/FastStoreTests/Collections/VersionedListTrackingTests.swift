@testable import FastStore
import Testing

@Suite("VersionedList tracking hooks")
struct VersionedListTrackingTests {
    private func reads<R>(_ body: () -> R) -> [_Dependency] {
        let recorder = _ReadRecorder()
        _ = recorder.record(body)
        return recorder.dependencies
    }

    private func writes(_ body: () -> Void) -> [(node: NodeID, kind: _WriteKind)] {
        let journal = _WriteJournal()
        journal.record(body)
        return journal.writes
    }

    @Test func elementReadRecordsTheElement() {
        let list = VersionedList(0 ..< 1000)
        let deps = reads { list[7] }
        #expect(deps == [_Dependency(node: list.nodeID, kind: .element(_ElementKey(7)))])
    }

    @Test func wholeReadsRecordOncePerCall() {
        let list = VersionedList(0 ..< 1000)
        let whole = _Dependency(node: list.nodeID, kind: .whole)
        let structure = _Dependency(node: list.nodeID, kind: .structure)
        #expect(reads { list.count } == [structure], "the count is the list's structure")
        #expect(reads { list.isEmpty } == [structure])
        #expect(Set(reads { list.last }) == [structure, _Dependency(node: list.nodeID, kind: .element(_ElementKey(999)))])
        #expect(reads { list.reduce(0, +) } == [whole], "iteration records once, not per element")
        #expect(reads { list.description } == [whole])
        let other = list
        #expect(reads { list == other } == [whole, whole])
        #expect(reads { list.nodeID } == [], "the identity never changes: not a read")
        #expect(reads { list.version } == [whole], "the version changes with any write")
        #expect(reads { list.underestimatedCount } == [structure])
        #expect(reads { list.difference(from: other) } == [whole, whole])
        #expect(reads { String(reflecting: list) } == [whole])
        #expect(reads { Mirror(reflecting: list).children.count } == [whole])
    }

    @Test func nothingRecordedWithoutRecorder() {
        var list = VersionedList(0 ..< 10)
        _ = list[3]
        list[3] = 4
        // No recorder or journal installed: nothing to observe but no crash;
        // then a recorder installed afterwards starts empty.
        #expect(reads { () } == [])
    }

    @Test func elementWriteJournalsTheElement() {
        var list = VersionedList(0 ..< 1000)
        let before = list.version
        let journal = _WriteJournal()
        journal.record { list[42] = -1 }
        #expect(journal.writes.count == 1)
        #expect(journal.writes.first?.node == list.nodeID)
        #expect(journal.writes.first?.kind == .elementValue(_ElementKey(42)), "a value written in place")
        #expect(journal.link(producing: list._trackingIdentity.version)?.node == list.nodeID)
        #expect(list.version > before)

        let modified = writes { list[43] += 1 }
        #expect(modified.map(\.kind) == [.elementValue(_ElementKey(43))])
    }

    @Test func structuralWritesJournalContent() {
        var list = VersionedList(0 ..< 1000)
        #expect(writes { list.append(1) }.map(\.kind) == [.content])
        #expect(writes { list.insert(1, at: 3) }.map(\.kind) == [.content])
        #expect(writes { list.remove(at: 3) }.map(\.kind) == [.content])
        #expect(writes { list.replaceSubrange(0 ..< 2, with: [9]) }.map(\.kind) == [.content])
        #expect(writes { list.sort() }.map(\.kind) == [.content])
        #expect(writes { list.removeAll { $0 == 9 } }.map(\.kind) == [.content])
        #expect(writes { list.removeAll { $0 == -12345 } }.isEmpty, "nothing removed, nothing written")
    }

    @Test func consecutiveWritesChainTheirStamps() {
        var list = VersionedList(0 ..< 100)
        let journal = _WriteJournal()
        journal.record {
            list[1] = 5
            list[2] = 6
            list.append(3)
        }
        // Each write's `from` was the journal's last stamp, so none was
        // degraded to `.content`.
        #expect(journal.writes.map(\.kind) == [.elementValue(_ElementKey(1)), .elementValue(_ElementKey(2)), .content])
        #expect(journal.link(producing: list._trackingIdentity.version)?.node == list.nodeID)
    }
}

@Suite("Derived values are not writes")
struct DerivedValueTrackingTests {
    @Test func filterAndSortedJournalNothing() {
        let list = VersionedList([3, 1, 2])
        let dict: VersionedDictionary = [1: "a", 2: "b"]
        let rows = IdentifiedList([Row(id: 1, value: 2), Row(id: 2, value: 1)])
        let journal = _WriteJournal()
        journal.record {
            _ = list.filter { $0 > 1 }
            _ = list.sorted()
            _ = dict.filter { $0.key == 1 }
            _ = rows.filter { $0.value > 1 }
            _ = rows.sorted { $0.value < $1.value }
        }
        #expect(journal.writes.isEmpty)
    }
}
