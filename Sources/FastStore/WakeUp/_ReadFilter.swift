/// A summary of a reader index, checked before it: whether a write *may*
/// affect some reader the index holds, in a few instructions and with no
/// lookup, no lock of its own and no retain.
///
/// A bit array in the manner of a Bloom filter. Filing a dependency sets
/// one bit for it (two for an element read); a write probes the bits of the
/// classes of reads it affects, as the trigger rule names them
/// (``_WriteKind/visitAffected(_:)``, through ``_Probe``). A clear bit
/// proves that no dependency filed since the last rebuild is affected; a
/// set bit may be a reader, a collision, or a reader gone since (removing
/// a dependency clears nothing). So the filter may send a write to the
/// index for nothing, never skip one that affects a reader: the index
/// stays the only judge of whom a write wakes.
///
/// The bits per node, by the class of reads filed:
///
/// | filed read | bit |
/// |---|---|
/// | `.whole` | `whole(node)` |
/// | `.member`, `.structure`, `.field(r)` | `members(node)` |
/// | `.element(k)` | `element(node, k)` and `elements(node)` |
///
/// A write's probe tests `whole(node)` for the rule's `whole()`,
/// `members(node)` for `member()`, `structure()` and the field visits,
/// `element(node, k)` for `element(k)`, and `elements(node)` for
/// `everyElement()`.
///
/// The array is rebuilt from the index once the bits filed since the last
/// rebuild (an element read files two; refiling a dependency the filter
/// has counts again) exceed an eighth of it, at the size that gives every
/// dependency the index holds then 16 bits or more (4,096 bits at least):
/// larger as readers come, smaller once they went, and never more than an
/// eighth set, so a filter filled by readers that came and went sends few
/// writes to the index for nothing.
///
/// Owned and locked by its user (the wake-up hub files and probes it under
/// the hub's lock).
@usableFromInline
internal final class _ReadFilter {
    /// The bits: `1 << (64 - shift)` of them.
    @exclusivity(unchecked) @usableFromInline var _words: UnsafeMutablePointer<UInt64>
    /// 64 less the number of bits of a bit's position.
    @exclusivity(unchecked) @usableFromInline var _shift: UInt64
    /// The bits filed since the array was cleared (each bit a filing sets
    /// counts, set already or not): at least the number of bits set.
    @exclusivity(unchecked) @usableFromInline var _filed = 0

    /// The least number of bits: 4,096 (512 bytes).
    @usableFromInline static var minimumBitCountLog2: UInt64 { 12 }

    @inlinable var _bitCount: Int { 1 &<< Int(64 &- _shift) }

    @usableFromInline
    init() {
        _shift = 64 &- Self.minimumBitCountLog2
        let words = (1 &<< Int(Self.minimumBitCountLog2)) &>> 6
        _words = .allocate(capacity: words)
        _words.initialize(repeating: 0, count: words)
    }

    deinit {
        _words.deallocate()
    }

    // MARK: Bit positions

    // NB: multiply-shift hashing: the product's top bits, by an odd
    // constant, spread node identities (a counter) and keys over the array.
    @inlinable @inline(__always)
    static func _whole(_ node: NodeID) -> UInt64 { node.rawValue &* 0x9E37_79B9_7F4A_7C15 }
    @inlinable @inline(__always)
    static func _members(_ node: NodeID) -> UInt64 { (node.rawValue ^ 0x5555_5555_5555_5555) &* 0xBF58_476D_1CE4_E5B9 }
    @inlinable @inline(__always)
    static func _elements(_ node: NodeID) -> UInt64 { (node.rawValue ^ 0xAAAA_AAAA_AAAA_AAAA) &* 0x94D0_49BB_1331_11EB }
    @inlinable @inline(__always)
    static func _element(_ node: NodeID, _ key: _ElementKey) -> UInt64 {
        (node.rawValue &* 0xD6E8_FEB8_6659_FD93 &+ UInt64(bitPattern: Int64(key.bits))) &* 0x9E37_79B9_7F4A_7C15
    }

    @inlinable @inline(__always)
    static func _test(_ words: UnsafePointer<UInt64>, _ shift: UInt64, _ hash: UInt64) -> Bool {
        let bit = hash &>> shift
        return words[Int(bit &>> 6)] & (1 &<< (bit & 63)) != 0
    }

    @inlinable @inline(__always)
    func _set(_ hash: UInt64) {
        let bit = hash &>> _shift
        _words[Int(bit &>> 6)] |= 1 &<< (bit & 63)
    }

    // MARK: Filing and probing

    /// Files `dependency` (call it when the index files it). `index` is
    /// the index after the filing: a rebuild reads it.
    ///
    /// - Complexity: O(1) amortized: a rebuild, O(dependencies filed), runs
    ///   after at least as many filings.
    @inlinable
    func insert(_ dependency: _Dependency, rebuildingFrom index: _ReaderIndex) {
        _filed &+= _fileBits(dependency)
        if _filed &* 8 > _bitCount { rebuild(from: index) }
    }

    /// Sets `dependency`'s bits; returns how many it set (one, or two for
    /// an element read).
    @inlinable @discardableResult
    func _fileBits(_ dependency: _Dependency) -> Int {
        let node = dependency.node
        switch dependency.kind {
        case .whole: _set(Self._whole(node))
        case .member, .structure, .field: _set(Self._members(node))
        case .element(let key):
            _set(Self._element(node, key))
            _set(Self._elements(node))
            return 2
        }
        return 1
    }

    /// Clears the bits and files every dependency of `index` again, in an
    /// array of at least 16 bits per dependency (and 4,096 bits).
    ///
    /// - Complexity: O(dependencies filed in `index`).
    @usableFromInline
    func rebuild(from index: _ReaderIndex) {
        var count = 0
        index.forEachDependency { _ in count &+= 1 }
        var log2 = Self.minimumBitCountLog2
        while (1 &<< Int(log2)) < count &* 16 { log2 &+= 1 }
        let words = (1 &<< Int(log2)) &>> 6
        if 64 &- log2 != _shift {
            _words.deallocate()
            _words = .allocate(capacity: words)
            _shift = 64 &- log2
        }
        _words.initialize(repeating: 0, count: words)
        _filed = 0
        index.forEachDependency { _filed &+= _fileBits($0) }
    }

    /// Whether a write of `kind` to `node` may affect a filed reader:
    /// `false` proves it affects none.
    ///
    /// - Complexity: O(1): at most four bit tests.
    @inlinable @inline(__always)
    func mayAffect(_ node: NodeID, _ kind: _WriteKind) -> Bool {
        var probe = _Probe(words: UnsafePointer(_words), shift: _shift, node: node)
        kind.visitAffected(&probe)
        return probe.hit
    }

    /// Tests the bits of the classes of reads the trigger rule names.
    @usableFromInline
    struct _Probe: _AffectedReadsVisitor {
        @usableFromInline let words: UnsafePointer<UInt64>
        @usableFromInline let shift: UInt64
        @usableFromInline let node: NodeID
        @usableFromInline var hit = false

        @inlinable init(words: UnsafePointer<UInt64>, shift: UInt64, node: NodeID) {
            self.words = words
            self.shift = shift
            self.node = node
        }

        @inlinable mutating func _test(_ hash: UInt64) {
            if !hit { hit = _ReadFilter._test(words, shift, hash) }
        }
        @inlinable mutating func whole() { _test(_ReadFilter._whole(node)) }
        @inlinable mutating func member() { _test(_ReadFilter._members(node)) }
        @inlinable mutating func structure() { _test(_ReadFilter._members(node)) }
        @inlinable mutating func element(_ key: _ElementKey) { _test(_ReadFilter._element(node, key)) }
        @inlinable mutating func everyElement() { _test(_ReadFilter._elements(node)) }
        @inlinable mutating func fields(overlapping range: _FieldRange) { _test(_ReadFilter._members(node)) }
        @inlinable mutating func everyField() { _test(_ReadFilter._members(node)) }
    }
}
