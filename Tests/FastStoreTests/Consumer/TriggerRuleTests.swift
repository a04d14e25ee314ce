@_spi(Testing) @testable import FastStore
import Testing

/// The trigger rule has one statement (`_WriteKind.visitAffected`) and two
/// visitors of it: `_WriteKind.affects` (one read, what derived values
/// check their memo with) and `_ReaderIndex.collect` (the registered
/// readers, what consumers and hubs look writes up in). The two agree on
/// every pair of kinds, element keys and overlapping or disjoint fields
/// included, and the rule is the table of the docs.
@Suite struct TriggerRuleTests {
    static var reads: [_ReadKind] { [
        .whole, .member, .structure, .element(_ElementKey(1)), .element(_ElementKey(2)),
        .field(_FieldRange(offset: 0, size: 8)), .field(_FieldRange(offset: 8, size: 8)),
        .field(_FieldRange(offset: 4, size: 8)), .field(_FieldRange(offset: 0, size: 0)),
    ] }
    static var writes: [_WriteKind] { [
        .content, .passThrough, .order, .element(_ElementKey(1)), .element(_ElementKey(2)),
        .elementValue(_ElementKey(1)), .elementValue(_ElementKey(2)),
        .field(_FieldRange(offset: 0, size: 8)), .field(_FieldRange(offset: 8, size: 8)),
        .field(_FieldRange(offset: 2, size: 1)), .field(_FieldRange(offset: 16, size: 4)),
    ] }

    @Test func theRuleAndTheReaderIndexAgree() {
        let node = NodeID(rawValue: 1)
        var index = _ReaderIndex()
        for (reader, read) in Self.reads.enumerated() {
            index.insert(_Dependency(node: node, kind: read), reader: reader)
        }
        for write in Self.writes {
            var collected: [Int] = []
            index.collect(node, write, into: &collected)
            let expected = Self.reads.indices.filter { write.affects(Self.reads[$0]) }
            #expect(Set(collected) == Set(expected), "write \(write)")
        }
    }

    @Test func theTableOfTheDocs() {
        let e1 = _ElementKey(1), e2 = _ElementKey(2)
        let low = _FieldRange(offset: 0, size: 8), high = _FieldRange(offset: 8, size: 8)
        #expect(Self.reads.allSatisfy { _WriteKind.content.affects($0) })
        #expect(Self.writes.allSatisfy { $0.affects(.whole) })
        #expect(!_WriteKind.passThrough.affects(.member) && !_WriteKind.order.affects(.element(e1)))
        #expect(_WriteKind.element(e1).affects(.element(e1)) && !_WriteKind.element(e1).affects(.element(e2)))
        #expect(!_WriteKind.element(e1).affects(.member) && !_WriteKind.element(e1).affects(.field(low)))
        #expect(_WriteKind.field(low).affects(.member) && _WriteKind.field(low).affects(.field(low)))
        #expect(!_WriteKind.field(low).affects(.field(high)) && !_WriteKind.field(low).affects(.element(e1)))
        // A collection's structure: its count and ids change with an
        // insertion, a removal or a reorder, not with an element's value.
        #expect(_WriteKind.element(e1).affects(.structure) && _WriteKind.order.affects(.structure))
        #expect(!_WriteKind.elementValue(e1).affects(.structure) && !_WriteKind.passThrough.affects(.structure))
        #expect(_WriteKind.elementValue(e1).affects(.element(e1)) && !_WriteKind.elementValue(e1).affects(.element(e2)))
        #expect(!_WriteKind.elementValue(e1).affects(.member) && !_WriteKind.element(e1).affects(.member))
    }

    /// Field ranges are kept in 32 bits: one that does not fit is not made,
    /// and the member is tracked coarsely instead (never a wrong range).
    @Test func fieldRangesPastTwoGiBAreNotMade() {
        let limit = Int(UInt32.max / 2)
        #expect(_FieldRange(fitting: 16, size: 8) == _FieldRange(offset: 16, size: 8))
        #expect(_FieldRange(fitting: limit, size: 8)?.offset == limit)
        #expect(_FieldRange(fitting: limit + 1, size: 8) == nil)
        #expect(_FieldRange(fitting: 0, size: limit + 1) == nil)
        #expect(_FieldRange(fitting: -1, size: 8) == nil)
        let wide = _FieldRange(offset: limit, size: limit)
        #expect(wide.overlaps(_FieldRange(offset: 2 * limit - 1, size: 1)), "ends are added in 64 bits")
        #expect(!wide.overlaps(_FieldRange(offset: 2 * limit, size: 1)))
    }
}
