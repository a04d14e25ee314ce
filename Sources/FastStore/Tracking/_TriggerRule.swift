/// The trigger rule: which reads of a node a write of that node affects.
///
/// This is its one statement. A write names the classes of reads it
/// reaches through ``_WriteKind/visitAffected(_:)``; what is done with them
/// is the visitor's: ``_WriteKind/affects(_:)`` asks whether one read is
/// among them (how a derived value checks its memo), and ``_ReaderIndex``
/// collects the readers registered for them (how consumers, the wake-up
/// hub, scopes and Observation find whom a drain's writes concern).
///
/// | write | reads it affects (besides `.whole`, which every write affects) |
/// |---|---|
/// | `.content` | every read of the node |
/// | `.passThrough` | none |
/// | `.order` | `.structure` |
/// | `.element(k)` | `.structure`, `.element(k)` |
/// | `.elementValue(k)` | `.element(k)` |
/// | `.field(r)` | `.member`, `.structure`, every `.field` overlapping `r` |
///
/// A field is a struct node's and a structure a collection's, never both of
/// one node: a field write reaching `.structure` only over-approximates.
@usableFromInline
internal protocol _AffectedReadsVisitor {
    /// Reads of the whole node.
    mutating func whole()
    /// Reads of the node's members coarsely (`.member`).
    mutating func member()
    /// Reads of a collection's structure: its count, ids and order.
    mutating func structure()
    /// Reads of the element with key `key`.
    mutating func element(_ key: _ElementKey)
    /// Reads of any element.
    mutating func everyElement()
    /// Reads of fields overlapping `range`.
    mutating func fields(overlapping range: _FieldRange)
    /// Reads of any field.
    mutating func everyField()
}

extension _WriteKind {
    /// Tells `visitor` every class of reads of the same node this write
    /// affects (the table of ``_AffectedReadsVisitor``).
    ///
    /// - Complexity: O(1) calls to `visitor`.
    @inlinable @inline(__always)
    func visitAffected<Visitor: _AffectedReadsVisitor>(_ visitor: inout Visitor) {
        visitor.whole()
        switch self {
        case .passThrough:
            break
        case .order:
            visitor.structure()
        case .content:
            visitor.member()
            visitor.structure()
            visitor.everyElement()
            visitor.everyField()
        case .element(let key):
            visitor.structure()
            visitor.element(key)
        case .elementValue(let key):
            visitor.element(key)
        case .field(let range):
            visitor.member()
            visitor.structure()
            visitor.fields(overlapping: range)
        }
    }

    /// Whether this write affects `read`, a read of the same node.
    ///
    /// - Complexity: O(1).
    @inlinable
    func affects(_ read: _ReadKind) -> Bool {
        var probe = _ReadProbe(read)
        visitAffected(&probe)
        return probe.isAffected
    }
}

/// Asks the rule about one read (see ``_WriteKind/affects(_:)``).
@usableFromInline
internal struct _ReadProbe: _AffectedReadsVisitor {
    @usableFromInline let read: _ReadKind
    @usableFromInline var isAffected = false

    @inlinable init(_ read: _ReadKind) { self.read = read }

    @inlinable mutating func whole() { if case .whole = read { isAffected = true } }
    @inlinable mutating func member() { if case .member = read { isAffected = true } }
    @inlinable mutating func structure() { if case .structure = read { isAffected = true } }
    @inlinable mutating func element(_ key: _ElementKey) { if case .element(key) = read { isAffected = true } }
    @inlinable mutating func everyElement() { if case .element = read { isAffected = true } }
    @inlinable mutating func fields(overlapping range: _FieldRange) {
        if case .field(let field) = read, field.overlaps(range) { isAffected = true }
    }
    @inlinable mutating func everyField() { if case .field = read { isAffected = true } }
}
