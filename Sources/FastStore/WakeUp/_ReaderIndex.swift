/// Which consumers read what from which versioned node: the inverse of the
/// consumers' dependency lists, keyed by node.
///
/// A consume looks up only the nodes a drain wrote, so its cost follows the
/// writes and the consumers they affect, never the number of consumers or
/// the size of the state.
@usableFromInline
internal struct _ReaderIndex {
    /// The readers of one node, by what they read.
    ///
    /// NB: a class, so that a lookup borrows the entry instead of copying
    /// four collections out of the dictionary (four retains and releases),
    /// and an update mutates it in place. Owned by one index, never shared.
    @usableFromInline
    internal final class _Readers {
        // NB: unchecked exclusivity: an entry is touched only under its
        // consumer's lock, and the dynamic check of a class's stored
        // properties costs more than the lookup it guards.
        @exclusivity(unchecked) @usableFromInline var whole = _ReaderSet()
        @exclusivity(unchecked) @usableFromInline var member = _ReaderSet()
        /// Readers of the node's structure (``_ReadKind/structure``).
        @exclusivity(unchecked) @usableFromInline var structure = _ReaderSet()
        /// Readers of elements that one consumer reads, by element.
        ///
        /// NB: apart from `elements`: an id is a word where a reader set
        /// takes two (its tag), and a row consumer's element is usually
        /// read by that consumer alone (13 bytes per row consumer).
        @exclusivity(unchecked) @usableFromInline var soleElementReaders: [_ElementKey: Int] = [:]
        /// Readers of elements that two or more consumers read, by element
        /// (never an element of `soleElementReaders`).
        @exclusivity(unchecked) @usableFromInline var elements: [_ElementKey: _ReaderSet] = [:]
        /// Readers of stored fields, by field. NB: a write scans these
        /// linearly for overlaps; there are at most as many as the node's
        /// value has stored fields read by some consumer.
        @exclusivity(unchecked) @usableFromInline var fields: [_FieldRange: _ReaderSet] = [:]

        @inlinable init() {}

        @inlinable var isEmpty: Bool {
            whole.isEmpty && member.isEmpty && structure.isEmpty && soleElementReaders.isEmpty && elements.isEmpty
                && fields.isEmpty
        }

        /// Registers `id` as a reader of element `key`.
        @inlinable
        func insertElementReader(_ key: _ElementKey, _ id: Int) {
            if let sole = soleElementReaders.removeValue(forKey: key) {
                var ids = _ReaderSet()
                ids.insert(sole)
                ids.insert(id)
                elements[key] = ids
            } else if elements.isEmpty || elements[key] == nil {
                // NB: read first, not `elements[key]?.insert(id)`: the
                // optional-chained modify of a missing key allocated the
                // dictionary's storage each time.
                soleElementReaders[key] = id
            } else {
                elements[key]!.insert(id)
            }
        }

        /// Unregisters `id` as a reader of element `key`.
        @inlinable
        func removeElementReader(_ key: _ElementKey, _ id: Int) {
            if let sole = soleElementReaders[key] {
                if sole == id { soleElementReaders.removeValue(forKey: key) }
            } else if var ids = elements.removeValue(forKey: key) {
                ids.remove(id)
                if let last = ids.sole {
                    soleElementReaders[key] = last
                } else if !ids.isEmpty {
                    elements[key] = ids
                }
            }
        }

        /// Appends the readers of element `key` to `candidates`.
        @inlinable
        func appendElementReaders(_ key: _ElementKey, to candidates: inout [Int]) {
            if let sole = soleElementReaders[key] {
                candidates.append(sole)
            } else if !elements.isEmpty {
                elements[key]?.append(to: &candidates)
            }
        }
    }

    @usableFromInline var nodes: [NodeID: _Readers] = [:]
    /// How many nodes have whole-node readers: while none has, a write
    /// that affects only those (a pass-through: every level of a deep
    /// write) is settled without looking its node up.
    @usableFromInline var _nodesReadWhole = 0

    @inlinable init() {}

    /// Registers consumer `id` as a reader of `dependency`.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func insert(_ dependency: _Dependency, reader id: Int) {
        let readers: _Readers
        if let existing = nodes[dependency.node] {
            readers = existing
        } else {
            readers = _Readers()
            nodes[dependency.node] = readers
        }
        switch dependency.kind {
        case .whole:
            if readers.whole.isEmpty { _nodesReadWhole &+= 1 }
            readers.whole.insert(id)
        case .member: readers.member.insert(id)
        case .structure: readers.structure.insert(id)
        case .element(let key): readers.insertElementReader(key, id)
        case .field(let range): readers.fields[range, default: _ReaderSet()].insert(id)
        }
    }

    /// Unregisters consumer `id` as a reader of `dependency`, dropping the
    /// node's entry once nobody reads it.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func remove(_ dependency: _Dependency, reader id: Int) {
        guard let readers = nodes[dependency.node] else { return }
        switch dependency.kind {
        case .whole:
            let wasRead = !readers.whole.isEmpty
            readers.whole.remove(id)
            if wasRead && readers.whole.isEmpty { _nodesReadWhole &-= 1 }
        case .member: readers.member.remove(id)
        case .structure: readers.structure.remove(id)
        case .element(let key): readers.removeElementReader(key, id)
        case .field(let range):
            if var ids = readers.fields.removeValue(forKey: range) {
                ids.remove(id)
                if !ids.isEmpty { readers.fields[range] = ids }
            }
        }
        if readers.isEmpty { nodes[dependency.node] = nil }
    }

    /// Appends to `candidates` the readers a write of `kind` to `node`
    /// affects: the readers of every class of reads the trigger rule
    /// (`_WriteKind.visitAffected`, `Tracking/_TriggerRule.swift`) names.
    ///
    /// - Complexity: O(1) plus the number of readers appended; O(fields
    ///   read of the node) more for a field write.
    @inlinable
    func collect(_ node: NodeID, _ kind: _WriteKind, into candidates: inout [Int]) {
        guard mayAffectSomeNode(kind), let readers = nodes[node] else { return }
        // NB: the array is moved in and out, not copied.
        var collector = _Collector(readers: readers)
        swap(&candidates, &collector.candidates)
        kind.visitAffected(&collector)
        swap(&candidates, &collector.candidates)
    }

    /// Whether a write of `kind` may affect a reader of some node: `false`
    /// for a pass-through (which affects whole-node readers only) while no
    /// node has whole-node readers.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func mayAffectSomeNode(_ kind: _WriteKind) -> Bool {
        if case .passThrough = kind { return _nodesReadWhole != 0 }
        return true
    }

    /// Sorts `candidates` (readers collected by ``collect(_:_:into:)``,
    /// which may repeat) and calls `body` with each one once, in order: how
    /// every user of an index (the wake-up hub, a consumer's registry, the
    /// Observation hub) turns what a publish wrote into whom it tells.
    ///
    /// - Complexity: O(c log c) for `c` candidates.
    @inlinable @inline(__always)
    static func forEachDistinct(_ candidates: inout [Int], _ body: (Int) -> Void) {
        if candidates.count > 1 { candidates.sort() }
        var previous = -1
        for reader in candidates where reader != previous {
            previous = reader
            body(reader)
        }
    }

    /// Appends the readers of the classes of reads the rule names.
    @usableFromInline
    internal struct _Collector: _AffectedReadsVisitor {
        @usableFromInline let readers: _Readers
        @usableFromInline var candidates: [Int] = []

        @inlinable init(readers: _Readers) { self.readers = readers }

        @inlinable mutating func whole() { readers.whole.append(to: &candidates) }
        @inlinable mutating func member() { readers.member.append(to: &candidates) }
        @inlinable mutating func structure() { readers.structure.append(to: &candidates) }
        @inlinable mutating func element(_ key: _ElementKey) { readers.appendElementReaders(key, to: &candidates) }
        @inlinable mutating func everyElement() {
            for id in readers.soleElementReaders.values { candidates.append(id) }
            for ids in readers.elements.values { ids.append(to: &candidates) }
        }
        @inlinable mutating func fields(overlapping range: _FieldRange) {
            for (field, ids) in readers.fields where field.overlaps(range) { ids.append(to: &candidates) }
        }
        @inlinable mutating func everyField() {
            for ids in readers.fields.values { ids.append(to: &candidates) }
        }
    }

    /// Whether some reader is registered for `dependency` (its node and
    /// exactly its read kind).
    ///
    /// - Complexity: O(1) expected.
    @inlinable
    func hasReaders(_ dependency: _Dependency) -> Bool {
        guard let readers = nodes[dependency.node] else { return false }
        switch dependency.kind {
        case .whole: return !readers.whole.isEmpty
        case .member: return !readers.member.isEmpty
        case .structure: return !readers.structure.isEmpty
        case .element(let key): return readers.soleElementReaders[key] != nil || readers.elements[key] != nil
        case .field(let range): return readers.fields[range] != nil
        }
    }

    /// Calls `body` with every dependency that has readers, once each.
    ///
    /// - Complexity: O(dependencies registered).
    @inlinable
    func forEachDependency(_ body: (_Dependency) -> Void) {
        for (node, readers) in nodes {
            if !readers.whole.isEmpty { body(_Dependency(node: node, kind: .whole)) }
            if !readers.member.isEmpty { body(_Dependency(node: node, kind: .member)) }
            if !readers.structure.isEmpty { body(_Dependency(node: node, kind: .structure)) }
            for key in readers.soleElementReaders.keys { body(_Dependency(node: node, kind: .element(key))) }
            for key in readers.elements.keys { body(_Dependency(node: node, kind: .element(key))) }
            for range in readers.fields.keys { body(_Dependency(node: node, kind: .field(range))) }
        }
    }

    /// Whether ``_nodesReadWhole`` counts the nodes with whole-node readers
    /// (an invariant check).
    @usableFromInline
    var _wholeCountHolds: Bool {
        _nodesReadWhole == nodes.values.reduce(0) { $0 + ($1.whole.isEmpty ? 0 : 1) }
    }

    /// Whether no element has readers in both of a node's element maps (an
    /// invariant check).
    @usableFromInline
    var _elementReadersDisjoint: Bool {
        nodes.values.allSatisfy { readers in readers.soleElementReaders.keys.allSatisfy { readers.elements[$0] == nil } }
    }

    /// The number of (node, kind, reader) registrations, for invariant
    /// checks and tests.
    @usableFromInline
    var registrationCount: Int {
        nodes.values.reduce(0) { total, readers in
            total + readers.whole.count + readers.member.count + readers.structure.count
                + readers.soleElementReaders.count + readers.elements.values.reduce(0) { $0 + $1.count }
                + readers.fields.values.reduce(0) { $0 + $1.count }
        }
    }

    /// Whether consumer `id` is registered as a reader of `dependency`.
    @usableFromInline
    func contains(_ dependency: _Dependency, reader id: Int) -> Bool {
        guard let readers = nodes[dependency.node] else { return false }
        switch dependency.kind {
        case .whole: return readers.whole.contains(id)
        case .member: return readers.member.contains(id)
        case .structure: return readers.structure.contains(id)
        case .element(let key):
            if let sole = readers.soleElementReaders[key] { return sole == id }
            return readers.elements[key]?.contains(id) ?? false
        case .field(let range): return readers.fields[range]?.contains(id) ?? false
        }
    }
}
