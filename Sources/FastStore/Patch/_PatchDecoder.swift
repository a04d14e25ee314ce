// A `Decoder` that applies patch operations: it decodes the state from
// its own lazy encoding (versioned nodes left as references), with the
// operations pending along their paths (a group on unrelated paths:
// `_PatchPending.swift`). Off the path, a versioned type finds a
// reference to its older self and returns it as it is (O(1), same
// identity: `_patchDecodeNode`); on the path, it rebuilds itself from its
// older self (`_PatchRebuildable`): a node re-decodes its value one level
// deep, a list applies the edit to its persistent tree. Where the path
// ends, a `set` is checked against the value there and replaces it.

internal final class _PatchDecoder: Decoder {
    /// The value to decode (`nil`: absent).
    let tree: _PatchTree?
    let pending: _PatchPendingGroup?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The pending operations by the next step of their paths, for a group
    /// of several.
    private lazy var pendingBelow: [PatchPath.Component: _PatchPendingGroup] = pending?.byNextStep() ?? [:]

    /// The pending operations whose paths go on through `component`.
    func pending(below component: PatchPath.Component) -> _PatchPendingGroup? {
        guard let pending else { return nil }
        if pending.others.isEmpty { return pending.single(below: component) }
        return pendingBelow[component]
    }

    /// Throws `_PatchRunConflict` when two next steps name one element of a
    /// collection found by decoded `Element` (a dictionary's key, an
    /// `IdentifiedList`'s id) in two spellings: called before any step is
    /// applied. `encoded` gives a step's encoded key (`nil`: not one).
    ///
    /// - Complexity: O(steps) decodings, for a group of several; O(1)
    ///   otherwise (one step cannot conflict).
    func requireOneStepPerElement<Element: Decodable & Hashable>(
        _ type: Element.Type, _ encoded: (PatchPath.Component) -> PatchValue?
    ) throws {
        guard let pending, !pending.others.isEmpty else { return }
        var seen = Set<Element>()
        try forEachPendingStep { component, _ in
            guard let value = encoded(component) else { return }
            guard seen.insert(try _PatchDecoder.decode(Element.self, from: value)).inserted else { throw _PatchRunConflict() }
        }
    }

    /// Calls `body` with each next step of the pending operations' paths
    /// and the operations going on through it.
    func forEachPendingStep(_ body: (PatchPath.Component, _PatchPendingGroup) throws -> Void) rethrows {
        guard let pending else { return }
        if pending.others.isEmpty {
            if let next = pending.first.rest.first { try body(next, _PatchPendingGroup(pending.first.stepped)) }
            return
        }
        for (component, group) in pendingBelow { try body(component, group) }
    }

    init(tree: _PatchTree?, pending: _PatchPendingGroup?, codingPath: [any CodingKey] = []) {
        // NB: an unordered leaf decodes as its plain value.
        if case .unordered(_, let value)? = tree { self.tree = .value(value) } else { self.tree = tree }
        self.pending = pending
        self.codingPath = codingPath
    }

    /// Decodes a plain value (no operation pending).
    static func decode<T: Decodable>(_ type: T.Type, from value: PatchValue) throws -> T {
        try _PatchDecoder(tree: .value(value), pending: nil).decodeValue(T.self)
    }

    /// What lies at `component` below this value, `base` there before the
    /// operations: the new value of a `set` whose path ends there (after
    /// checking `base` is its old value), else `base` with the operations
    /// whose paths go on through `component` pending.
    func resolve(_ component: PatchPath.Component, base: _PatchTree?) throws -> (_PatchTree?, _PatchPendingGroup?) {
        guard let group = pending(below: component) else { return (base, nil) }
        if let ending = group.endingHere, case .set(let path, let old, let new) = ending.operation {
            guard try _patchOldMatches(base, old) else { throw PatchError.mismatch(path: path.description) }
            ending.consume()
            return (new.map { .value($0) }, nil)
        }
        return (base, group)
    }

    /// A decoder for `component` below this one.
    func child(_ component: PatchPath.Component, base: _PatchTree?, key: any CodingKey) throws -> _PatchDecoder {
        let (tree, pending) = try resolve(component, base: base)
        return _PatchDecoder(tree: tree, pending: pending, codingPath: codingPath + [key])
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if pending == nil, case .value(let value)? = tree, let scalar = try _PatchDecoder.scalar(T.self, value, codingPath) {
            return scalar
        }
        return try T(from: self)
    }

    func mismatch(_ expected: Any.Type) -> DecodingError {
        let found: String
        switch tree {
        case nil: found = "nothing"
        case .value(let v)?: found = v.description
        case .array?: found = "an array"
        case .object?: found = "an object"
        case .node(let n)?: found = "a \(type(of: n))"
        case .unordered?: found = "an unordered collection"
        }
        return DecodingError.typeMismatch(expected, DecodingError.Context(
            codingPath: codingPath, debugDescription: "expected \(expected), found \(found)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard var entries = tree?.objectEntries else { throw mismatch([String: Any].self) }
        var childPending: [String: _PatchPendingGroup] = [:]
        try forEachPendingStep { component, group in
            guard case .field(let name) = component else { return }
            if let ending = group.endingHere, case .set(let path, let old, let new) = ending.operation {
                guard try _patchOldMatches(entries[name], old) else { throw PatchError.mismatch(path: path.description) }
                entries[name] = new.map { .value($0) }
                ending.consume()
            } else {
                childPending[name] = group
            }
        }
        return KeyedDecodingContainer(_Keyed<Key>(decoder: self, entries: entries, childPending: childPending))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = tree?.arrayElements else { throw mismatch([Any].self) }
        return _Unkeyed(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { _Single(decoder: self) }

    static func scalar<T>(_ type: T.Type, _ value: PatchValue, _ codingPath: [any CodingKey]) throws -> T? {
        func integer<I: FixedWidthInteger>(_: I.Type) throws -> I {
            let result: I?
            switch value {
            case .int(let i): result = I(exactly: i)
            case .double(let d): result = I(exactly: d)
            default: result = nil
            }
            guard let result else {
                throw DecodingError.typeMismatch(I.self, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "expected \(I.self), found \(value)"))
            }
            return result
        }
        func fail() -> DecodingError {
            DecodingError.typeMismatch(T.self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "expected \(T.self), found \(value)"))
        }
        switch type {
        case is Bool.Type:
            guard case .bool(let b) = value else { throw fail() }
            return b as? T
        case is String.Type:
            guard case .string(let s) = value else { throw fail() }
            return s as? T
        case is Double.Type, is Float.Type:
            let d: Double
            switch value {
            case .double(let x): d = x
            case .int(let i): d = Double(i)
            default: throw fail()
            }
            return (T.self == Float.self ? Float(d) as Any : d as Any) as? T
        case is Int.Type: return try integer(Int.self) as? T
        case is Int8.Type: return try integer(Int8.self) as? T
        case is Int16.Type: return try integer(Int16.self) as? T
        case is Int32.Type: return try integer(Int32.self) as? T
        case is Int64.Type: return try integer(Int64.self) as? T
        case is UInt.Type: return try integer(UInt.self) as? T
        case is UInt8.Type: return try integer(UInt8.self) as? T
        case is UInt16.Type: return try integer(UInt16.self) as? T
        case is UInt32.Type: return try integer(UInt32.self) as? T
        case is UInt64.Type: return try integer(UInt64.self) as? T
        default: return nil
        }
    }

    struct _Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: _PatchDecoder
        let entries: [String: _PatchTree]
        /// The operations going on below a field, by the field.
        let childPending: [String: _PatchPendingGroup]

        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

        func childDecoder(_ key: Key) throws -> _PatchDecoder {
            guard let tree = entries[key.stringValue] else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value"))
            }
            return _PatchDecoder(tree: tree, pending: childPending[key.stringValue], codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let tree = entries[key.stringValue] else { return true }
            if case .value(.null) = tree { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try childDecoder(key).decodeValue(T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try childDecoder(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try childDecoder(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            _PatchDecoder(tree: entries["super"], pending: childPending["super"], codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { try childDecoder(key) }
    }

    struct _Unkeyed: UnkeyedDecodingContainer {
        let decoder: _PatchDecoder
        let elements: [_PatchTree]
        var currentIndex = 0

        init(decoder: _PatchDecoder, elements: [_PatchTree]) {
            self.decoder = decoder
            self.elements = elements
        }

        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        mutating func next() throws -> _PatchDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "at end"))
            }
            let key = _PatchEncoder._Key(intValue: currentIndex)
            let child = try decoder.child(.index(currentIndex), base: elements[currentIndex], key: key)
            currentIndex += 1
            return child
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            if case .value(.null) = elements[currentIndex], decoder.pending(below: .index(currentIndex)) == nil {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(T.self) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct _Single: SingleValueDecodingContainer {
        let decoder: _PatchDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            switch decoder.tree {
            case nil, .value(.null)?: return true
            default: return false
            }
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if case .value(let value)? = decoder.tree, let scalar = try _PatchDecoder.scalar(T.self, value, codingPath) {
                return scalar
            }
            if _PatchDecoder.isScalar(T.self) { throw decoder.mismatch(T.self) }
            return try T(from: decoder)
        }
    }

    static func isScalar(_ type: Any.Type) -> Bool {
        type == Bool.self || type == String.self || type == Double.self || type == Float.self
            || type == Int.self || type == Int8.self || type == Int16.self || type == Int32.self || type == Int64.self
            || type == UInt.self || type == UInt8.self || type == UInt16.self || type == UInt32.self || type == UInt64.self
    }
}

/// Called first by the versioned types' `init(from:)`: under a patch
/// decoder that holds a reference to an older version of type `N`, that
/// version as it is (nothing pending below it) or rebuilt with the pending
/// operations; `nil` otherwise (decode as usual).
internal func _patchDecodeNode<N>(_ type: N.Type, from decoder: any Decoder) throws -> N? {
    guard let decoder = decoder as? _PatchDecoder, case .node(let node)? = decoder.tree else { return nil }
    guard let old = node as? N else { throw decoder.mismatch(N.self) }
    guard decoder.pending != nil else { return old }
    guard let rebuildable = old as? any _PatchRebuildable else { throw decoder.mismatch(N.self) }
    return try rebuildable._patchRebuild(decoder) as? N
}

extension _PatchTree {
    /// The fields of an object, lazily encoded or plain.
    var objectEntries: [String: _PatchTree]? {
        switch self {
        case .object(let entries): return entries
        case .value(.object(let values)): return values.mapValues { .value($0) }
        default: return nil
        }
    }

    /// The elements of an array, lazily encoded or plain.
    var arrayElements: [_PatchTree]? {
        switch self {
        case .array(let elements): return elements
        case .value(.array(let values)): return values.map { .value($0) }
        default: return nil
        }
    }
}
