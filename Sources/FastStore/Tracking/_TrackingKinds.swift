/// What a selector read from a versioned node.
@usableFromInline
internal enum _ReadKind: Hashable {
    /// The node's whole value (a selector returned it, iterated it, counted
    /// it, compared it, described it). Any write at or below the node can
    /// change it.
    case whole
    /// A computed member of a struct node. Changes when the node's own
    /// contents change, not when a child node is merely written through
    /// (``_WriteKind/passThrough``).
    case member
    /// One element of a collection node, by key (an index for lists, a key
    /// or an id otherwise), as an ``_ElementKey``.
    case element(_ElementKey)
    /// One stored field of a struct node (``Versioned``), by its storage
    /// range. Changes when a write to an overlapping range changes it, or
    /// when the node's contents change as a whole.
    case field(_FieldRange)
    /// The structure of a collection node: how many elements it has and,
    /// for an ``IdentifiedList``, which ids in what order (its `count`,
    /// `isEmpty`, `endIndex`, `ids`, `index(id:)`). Changes with any write
    /// that may insert, remove or reorder elements; not with a write of one
    /// element's value in place (``_WriteKind/elementValue(_:)``) or a
    /// write through an element node (``_WriteKind/passThrough``).
    case structure
}

/// The key of one element of a collection node, as the tracking compares
/// it: the key itself when it is an `Int` (list positions, integer ids),
/// else the key's hash value.
///
/// NB: a hash, not the key (no `AnyHashable`): a plain 8-byte value, so a
/// dependency costs no allocation, no retain and no dynamic cast to record,
/// compare or index. Two keys with the same hash are taken for the same
/// element; that can only make a write of one wake the readers of the other
/// (who then compare their selection and find it unchanged), never hide a
/// write: the tracking may over-approximate, never under-approximate.
@usableFromInline
internal struct _ElementKey: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let bits: Int

    /// The tracking key of `key`.
    ///
    /// - Complexity: O(1) for `Int` keys; else the cost of hashing `key`.
    @inlinable @inline(__always)
    init<Key: Hashable>(_ key: Key) {
        let raw = Key.self == Int.self ? unsafeBitCast(key, to: Int.self) : key.hashValue
        // NB: 62 bits, sign-extended, so that a dependency packs it in two
        // words (`_Dependency`): keys in ±2^61 stay themselves; beyond, two
        // keys may share one, which only over-approximates.
        bits = (raw &<< 2) &>> 2
    }

    /// A key whose bits are already canonical (62 bits, sign-extended).
    @inlinable
    init(_canonicalBits bits: Int) { self.bits = bits }

    @usableFromInline
    var description: String { "key \(bits)" }

    @inlinable static func == (lhs: Self, rhs: Self) -> Bool { lhs.bits == rhs.bits }
    @inlinable func hash(into hasher: inout Hasher) { hasher.combine(bits) }
    /// NB: see `_mixedHash`.
    @inlinable func _rawHashValue(seed: Int) -> Int { _mixedHash(UInt64(bitPattern: Int64(bits)), seed: seed) }
}

/// The bytes a stored property occupies within its struct: what tells two
/// fields of a ``Versioned`` node apart.
///
/// NB: ranges rather than key paths: a key path reaching two levels deep
/// (`\.pair.tag`) overlaps the field it lies in (`\.pair`), and comparing
/// ranges captures that without knowing the struct's layout. Computed
/// properties, and stored properties with `willSet`/`didSet` observers, have
/// no range (`MemoryLayout.offset(of:)` is `nil`): they are tracked
/// coarsely, as ``_ReadKind/member`` and ``_WriteKind/content``.
@usableFromInline
internal struct _FieldRange: Hashable, Sendable, CustomStringConvertible {
    // NB: 32 bits each, and each under 2^31: a write kind is one word and
    // a tag (a journaled write takes 24 bytes), and a dependency packs a
    // range in 62 bits (see `_Dependency`). A range that does not fit is
    // not made (`of` returns nil: the member is tracked coarsely).
    @usableFromInline let _offset: UInt32
    @usableFromInline let _size: UInt32

    @inlinable var offset: Int { Int(_offset) }
    @inlinable var size: Int { Int(_size) }

    /// A range of `size` bytes (at least one, so that zero-sized fields
    /// still compare by position) at `offset`.
    ///
    /// - Precondition: both fit in 31 bits (a dependency packs a range in
    ///   62 bits); ``init(fitting:size:)`` checks it.
    @inlinable
    init(offset: Int, size: Int) {
        _offset = UInt32(offset)
        _size = UInt32(Swift.max(1, size))
    }

    /// A range of `size` bytes at `offset`, or `nil` when either lies past
    /// 2 GiB (the caller then tracks the member coarsely).
    @inlinable
    init?(fitting offset: Int, size: Int) {
        guard offset >= 0, offset <= Int(UInt32.max / 2), size <= Int(UInt32.max / 2) else { return nil }
        self.init(offset: offset, size: size)
    }

    /// The range of the stored property `keyPath` leads to, or `nil` when
    /// `keyPath` is not a chain of plain stored properties (or lies past
    /// the first 2 GiB of its root).
    @inlinable
    static func of<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> _FieldRange? {
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { return nil }
        return _FieldRange(fitting: offset, size: MemoryLayout<Value>.size)
    }

    @inlinable
    func overlaps(_ other: _FieldRange) -> Bool {
        // NB: in 64 bits: each end is under 2^32.
        offset < other.offset + other.size && other.offset < offset + size
    }

    @usableFromInline
    var description: String { "[\(offset)..<\(offset + size)]" }

    @inlinable static func == (lhs: Self, rhs: Self) -> Bool { lhs._offset == rhs._offset && lhs._size == rhs._size }
    @inlinable func hash(into hasher: inout Hasher) { hasher.combine(UInt64(_offset) &<< 32 | UInt64(_size)) }
    /// NB: see `_mixedHash` (the readers of a node's fields are keyed by
    /// range; the synthesized hash ran SipHash over both words).
    @inlinable func _rawHashValue(seed: Int) -> Int { _mixedHash(UInt64(_offset) &<< 32 | UInt64(_size), seed: seed) }
}

/// What a write did to a versioned node.
@usableFromInline
internal enum _WriteKind: Hashable {
    /// The node's contents changed in a way no finer kind describes: every
    /// reader of the node is affected.
    case content
    /// Only a child node changed, in place, through journaled writes of its
    /// own: only ``_ReadKind/whole`` readers of this node are affected.
    case passThrough
    /// Only the order of a collection's elements changed (a sort or a move
    /// of an ``IdentifiedList``): each key still holds the same element, so
    /// only ``_ReadKind/whole`` and ``_ReadKind/structure`` readers of this
    /// node are affected (position reads of an identified list record
    /// `.whole`).
    case order
    /// One element of a collection changed, or was inserted or removed under
    /// a stable key: readers of the whole node, of that element and of the
    /// node's structure are affected.
    case element(_ElementKey)
    /// One element's value changed in place: the element is present before
    /// and after, under the same key and at the same position (a list's
    /// element assigned or mutated, an identified list's element updated
    /// under its id). Readers of the whole node and of that element are
    /// affected, not the node's ``_ReadKind/structure`` readers. Only a
    /// write that is known to be one journals it; anything else that may
    /// touch one element journals ``element(_:)``.
    case elementValue(_ElementKey)
    /// One stored field of a struct node changed (assigned, mutated in
    /// place, or a child node there replaced): readers of the whole node, of
    /// an overlapping field, and coarse ``_ReadKind/member`` readers are
    /// affected.
    case field(_FieldRange)
}

/// One dependency of a selector: a node and what was read from it.
///
/// NB: two words, the read kind packed into the second (its case in the
/// top two bits, its payload in the other 62: an element key is 62 bits,
/// a field range two 31-bit halves): 16 bytes instead of 24 (the kind's
/// tag byte took a word of padding), so that a consumer's usual two
/// dependencies fit a 64-byte allocation, and comparing two is comparing
/// two words.
@usableFromInline
internal struct _Dependency: Hashable, CustomStringConvertible {
    @usableFromInline let node: NodeID
    @usableFromInline let _packedKind: UInt64

    @inlinable
    init(node: NodeID, kind: _ReadKind) {
        self.node = node
        switch kind {
        case .whole: _packedKind = 0
        case .member: _packedKind = 1 &<< 62
        // NB: the member case's tag with a payload, which `.member` never has.
        case .structure: _packedKind = 1 &<< 62 | 1
        case .element(let key): _packedKind = 2 &<< 62 | UInt64(bitPattern: Int64(key.bits)) & Self._payloadMask
        case .field(let range):
            assert(range._offset < 1 << 31 && range._size < 1 << 31, "FastStore: a field range past 31 bits cannot be packed")
            _packedKind = 3 &<< 62 | UInt64(range._offset) &<< 31 | UInt64(range._size)
        }
    }

    /// A dependency from its two words as they are (see
    /// ``_DependencyList/_absent``).
    @inlinable
    init(_node node: NodeID, packedKind: UInt64) {
        self.node = node
        self._packedKind = packedKind
    }

    @inlinable static var _payloadMask: UInt64 { (1 &<< 62) &- 1 }

    @inlinable static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.node == rhs.node && lhs._packedKind == rhs._packedKind
    }
    @inlinable func hash(into hasher: inout Hasher) {
        hasher.combine(node.rawValue)
        hasher.combine(_packedKind)
    }
    /// NB: see `_mixedHash`: the node's word mixed, then the kind's with
    /// it (the sets of a consumer's, a hub entry's and a look's
    /// dependencies call it; the synthesized one ran SipHash over both).
    @inlinable func _rawHashValue(seed: Int) -> Int {
        _mixedHash(_packedKind ^ UInt64(bitPattern: Int64(_mixedHash(node.rawValue, seed: seed))), seed: seed)
    }

    @usableFromInline
    var description: String { "\(node) \(kind)" }

    /// What was read.
    @inlinable
    var kind: _ReadKind {
        let payload = _packedKind & Self._payloadMask
        switch _packedKind &>> 62 {
        case 0: return .whole
        case 1: return payload == 0 ? .member : .structure
        // NB: the key's 62 bits, sign-extended: `_ElementKey` keeps only
        // keys that survive that.
        case 2: return .element(_ElementKey(_canonicalBits: Int(Int64(bitPattern: payload &<< 2)) &>> 2))
        default: return .field(_FieldRange(offset: Int(payload &>> 31), size: Int(payload & ((1 &<< 31) &- 1))))
        }
    }
}
