@testable import FastStore
import Testing

/// `_modify` of the keyed subscripts (`IdentifiedList[id:]`,
/// `VersionedDictionary[key]`): a mutation through the element moves it out
/// and back, so its storage stays unique, and it is one journaled write.
@Suite("Keyed subscripts modify in place")
struct KeyedModifyTests {
    final class Storage {}

    struct Tagged: Identifiable, Equatable {
        let id: Int
        var tags: [Int] = []
        var storage = Storage()
        /// Whether `storage` is held by this value alone.
        mutating func storageIsUnique() -> Bool { isKnownUniquelyReferenced(&storage) }
        static func == (lhs: Tagged, rhs: Tagged) -> Bool { lhs.id == rhs.id && lhs.tags == rhs.tags }
    }

    @Test func identifiedListElementIsMutatedWithoutACopy() {
        var list = IdentifiedList((0 ..< 200).map { Tagged(id: $0) })
        let before = list
        #expect(list[id: 150]?.storageIsUnique() == false, "shared with `before`: not unique yet")
        list = IdentifiedList((0 ..< 200).map { Tagged(id: $0) })
        let journal = _WriteJournal()
        journal.record {
            list[id: 150]?.tags.append(7)
        }
        #expect(list[id: 150]?.storageIsUnique() == true)
        #expect(list[id: 150]?.tags == [7])
        #expect(list.ids == Array(0 ..< 200), "same position")
        #expect(journal.writes.map(\.kind) == [.elementValue(_ElementKey(150))])
        #expect(journal.chains(list.nodeID, from: before._trackingIdentity.version, to: list._trackingIdentity.version) == false,
                "another list")
        let older = list
        list[id: 3]?.tags.append(1)
        let changes = list.difference(from: older)
        #expect(changes.updated == [3] && changes.removed.isEmpty && changes.inserted.isEmpty)
        #expect(older[id: 3]?.tags == [], "the older version is untouched")
    }

    @Test func identifiedListModifyCanRemoveAndInsert() {
        var list = IdentifiedList((0 ..< 10).map { Tagged(id: $0) })
        func clear(_ element: inout Tagged?) { element = nil }
        func fill(_ element: inout Tagged?, id: Int) { element = Tagged(id: id, tags: [id]) }
        clear(&list[id: 4])
        #expect(list.ids == [0, 1, 2, 3, 5, 6, 7, 8, 9])
        #expect(list[id: 4] == nil)
        fill(&list[id: 42], id: 42)
        #expect(list.ids.last == 42)
        clear(&list[id: 99])  // absent, stays absent: nothing written
        #expect(list.count == 10)
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
    }

    /// Nil set through `_modify` (the element's slot emptied while the
    /// caller held it) removes the element at every position of lists of
    /// one leaf and of several, leaves an older version untouched, and
    /// journals the id's removal.
    @Test(arguments: [1, 2, 33, 200])
    func identifiedListModifyRemovesAtEveryPosition(count: Int) {
        func clear(_ element: inout Tagged?) { element = nil }
        for position in 0 ..< count {
            var list = IdentifiedList((0 ..< count).map { Tagged(id: $0, tags: [$0]) })
            let older = list
            var ids = Array(0 ..< count)
            let journal = _WriteJournal()
            journal.record { clear(&list[id: position]) }
            ids.remove(at: position)
            #expect(list.ids == ids, "count \(count), position \(position)")
            #expect(list[id: position] == nil)
            #expect(ids.allSatisfy { list[id: $0]?.tags == [$0] })
            #expect(older.ids == Array(0 ..< count) && older[id: position]?.tags == [position], "the older version is untouched")
            #expect(journal.writes.contains { $0.kind == .element(_ElementKey(position)) }, "the id's removal journaled")
            #expect(journal.chains(list.nodeID, from: older._trackingIdentity.version, to: list._trackingIdentity.version))
            #if FASTSTORE_INTERNAL_CHECKS
            list._invariantCheck()
            #endif
            // The list stays usable: an insert and a write through the id.
            list.append(Tagged(id: 1_000))
            list[id: 1_000]?.tags.append(1)
            #expect(list.ids == ids + [1_000] && list[id: 1_000]?.tags == [1])
        }
    }

    @Test func dictionaryValueIsMutatedWithoutACopy() {
        var dict = VersionedDictionary(uniqueKeysWithValues: (0 ..< 500).map { ($0, Tagged(id: $0)) })
        let older = dict
        let journal = _WriteJournal()
        journal.record {
            dict[250]?.tags.append(1)
        }
        #expect(dict[250]?.tags == [1])
        #expect(older[250]?.tags == [])
        #expect(journal.writes.map(\.kind) == [.element(_ElementKey(250))])
        #expect(journal.chains(dict.nodeID, from: older._trackingIdentity.version, to: dict._trackingIdentity.version))
        #expect(dict.difference(from: older).updated == [250])
        var alone = VersionedDictionary(uniqueKeysWithValues: (0 ..< 500).map { ($0, Tagged(id: $0)) })
        alone[251]?.tags.append(2)
        #expect(alone[251]?.storageIsUnique() == true, "not shared with another version: moved, not copied")
        #expect(dict[251]?.storageIsUnique() == false, "shared with `older`, as persistence requires")
        func clear(_ value: inout Tagged?) { value = nil }
        clear(&dict[3])
        #expect(dict[3] == nil && dict.count == 499)
        clear(&dict[9999])
        #expect(dict.count == 499)
    }
}
