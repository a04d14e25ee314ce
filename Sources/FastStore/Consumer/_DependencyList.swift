/// A consumer's dependencies (deduplicated, in first-read order), as its
/// handle stores them: up to two inline, more in an array.
///
/// NB: a row consumer reads two things (the state's field that holds the
/// list, and its element); inline, they cost the handle 32 bytes instead
/// of a 64-byte array of its own.
@usableFromInline
internal struct _DependencyList: RandomAccessCollection {
    /// The first dependency, or ``_absent``.
    @usableFromInline var _first: _Dependency
    /// The second dependency, or ``_absent``.
    @usableFromInline var _second: _Dependency
    /// Every dependency when there are more than two (then `_first` and
    /// `_second` are not read); empty otherwise.
    @usableFromInline var _spill: [_Dependency]

    /// The value an unused inline slot holds: a `.whole` read with a
    /// payload, which `_Dependency.init(node:kind:)` never makes.
    @inlinable static var _absent: _Dependency { _Dependency(_node: NodeID(rawValue: 0), packedKind: 1) }

    @inlinable
    init() {
        _first = Self._absent
        _second = Self._absent
        _spill = []
    }

    /// `recorded` without repeats, in first-read order.
    ///
    /// - Complexity: O(n²) for up to 16 reads (the usual case, no
    ///   allocation for up to two distinct ones), O(n) expected beyond.
    @inlinable
    init(deduplicating recorded: [_Dependency]) {
        self.init()
        if recorded.count <= 16 {
            for dependency in recorded where !contains(dependency) { append(dependency) }
        } else {
            var seen = Set<_Dependency>()
            _spill = recorded.filter { seen.insert($0).inserted }
            if _spill.count <= 2 {
                for dependency in _spill { _appendInline(dependency) }
                _spill = []
            }
        }
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var count: Int { endIndex }
    @inlinable var isEmpty: Bool { _spill.isEmpty && _first == Self._absent }

    @inlinable
    var endIndex: Int {
        if !_spill.isEmpty { return _spill.count }
        if _first == Self._absent { return 0 }
        return _second == Self._absent ? 1 : 2
    }

    @inlinable
    subscript(position: Int) -> _Dependency {
        if !_spill.isEmpty { return _spill[position] }
        assert(position >= 0 && position < endIndex, "FastStore: dependency index out of range")
        return position == 0 ? _first : _second
    }

    /// Appends `dependency` (not already present).
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func append(_ dependency: _Dependency) {
        if !_spill.isEmpty {
            _spill.append(dependency)
        } else if _second == Self._absent {
            _appendInline(dependency)
        } else {
            _spill = [_first, _second, dependency]
        }
    }

    @inlinable
    mutating func _appendInline(_ dependency: _Dependency) {
        if _first == Self._absent { _first = dependency } else { _second = dependency }
    }

    /// Whether `recorded` (with repeats) holds exactly these dependencies,
    /// for at most 32 of them (see ``_ConsumerRegistry/_sameSet(_:_:)``);
    /// `false` past 32.
    ///
    /// NB: `mutating` though it writes nothing: called on a handle's list
    /// in place, where a copy would retain (and release) its array.
    @inlinable
    mutating func isSameSet(as recorded: [_Dependency]) -> Bool {
        count <= 32 && _ConsumerRegistry<Never>._sameSet(recorded, self)
    }

    /// Empties the list (and frees its array, if any).
    @inlinable
    mutating func removeAll() { self = _DependencyList() }
}
