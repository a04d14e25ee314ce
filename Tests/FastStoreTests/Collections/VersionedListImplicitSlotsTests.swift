import Testing

@testable import FastStore

/// A bulk-built leaf keeps implicit slots through its first written element
/// (its offset and stamp in the header), and gets slots when a second
/// element is written: versions along one such leaf, each pair diffed and
/// compared against arrays.
@Suite struct VersionedListImplicitSlotsTests {
    /// A heap string, so that the element is not trivial (the slot
    /// shortcuts of equality apply), and a `Double` that may be NaN.
    struct Element: Equatable, Sendable {
        var name: String
        var x: Double
    }
    static func e(_ x: Double) -> Element { Element(name: String(repeating: "h", count: 40), x: x) }

    static func leaf(_ list: VersionedList<Element>, holding position: Int) -> _ListNode<Element> {
        var node = list._root
        var offset = position
        while node.height > 0 {
            let (k, o) = node.child(containing: offset)
            node = node.children[k]
            offset = o
        }
        return node
    }

    @Test func versionsAlongOneLeafDiffAndCompareAsArrays() {
        let base = VersionedList((0 ..< 200).map { Self.e(Double($0)) })
        var v1 = base; v1[3] = Self.e(3)   // an equal value, written
        var v2 = v1; v2[3] = Self.e(-3)    // the same element again
        var v3 = v2; v3[4] = Self.e(4)     // a second element: slots
        var v4 = v1; v4[5] = Self.e(-5)    // from v1 (shared), a second element
        var v5 = base; v5[5] = Self.e(5)   // from the build, another element
        var v6 = v5; v6[5] = Self.e(5)
        // The layouts this test is about.
        #expect(!Self.leaf(v1, holding: 3)._hasExplicitSlots && Self.leaf(v1, holding: 3)._header.pointee.writtenIndex == 3)
        #expect(!Self.leaf(v2, holding: 3)._hasExplicitSlots)
        #expect(Self.leaf(v3, holding: 3)._hasExplicitSlots && Self.leaf(v4, holding: 3)._hasExplicitSlots)
        #expect(!Self.leaf(v5, holding: 3)._hasExplicitSlots && Self.leaf(v5, holding: 3)._header.pointee.writtenIndex == 5)
        let versions = [base, v1, v2, v3, v4, v5, v6]
        // Which write each version last made to each element.
        let written: [[Int: Int]] = [[:], [3: 1], [3: 2], [3: 2, 4: 3], [3: 1, 5: 4], [5: 5], [5: 6]]
        for (i, a) in versions.enumerated() {
            for (j, b) in versions.enumerated() {
                #expect((a == b) == (Array(a) == Array(b)), "versions \(i) and \(j)")
                let changes = b.difference(from: a)
                let expected = Set(written[i].keys).union(written[j].keys).filter { written[i][$0] != written[j][$0] }.sorted()
                #expect(changes.updated == expected && changes.removed.isEmpty && changes.inserted.isEmpty, "\(i) → \(j): \(changes)")
            }
        }
    }

    /// The slot rule of `==` (as `Array`'s on shared storage): a written
    /// element is compared, an element neither version wrote is equal
    /// uncompared, whatever the layouts of the two leaves.
    @Test func anUnwrittenNaNIsEqualUncomparedAWrittenOneIsCompared() {
        let base = VersionedList((0 ..< 200).map { $0 == 7 ? Self.e(.nan) : Self.e(Double($0)) })
        var v1 = base; v1[7] = Self.e(.nan)
        #expect(v1 != base)
        var v2 = base; v2[6] = Self.e(6)   // implicit slots, one written element
        #expect(v2 == base)
        var v3 = v2; v3[5] = Self.e(5)     // slots, against the build's implicit ones
        #expect(v3 == base && v3 == v2)
    }
}
