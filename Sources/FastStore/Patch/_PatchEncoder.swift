// An `Encoder` into a `_PatchTree`. In lazy mode the versioned types do not
// encode their contents: they leave a `.node` reference to themselves
// (see `_patchEncodeNode`), which the diff compares by identity and stamp
// and expands only when the two sides differ. In plain mode everything is
// encoded (the values a patch carries).

/// A value encoded for the diff: plain parts, plus references to versioned
/// nodes not yet expanded.
internal indirect enum _PatchTree {
    case value(PatchValue)
    case array([_PatchTree])
    case object([String: _PatchTree])
    case node(any _PatchNode)
    /// A `Set`, or a `Dictionary` encoded as an array (keys neither `String`
    /// nor `Int`): its plain value, in the instance's iteration order, which
    /// says nothing. Compared as a whole, order aside (`_PatchUnordered`).
    case unordered(_PatchUnorderedKind, PatchValue)

    /// The whole value, nodes expanded.
    ///
    /// - Complexity: O(size of the value).
    func plain() throws -> PatchValue {
        switch self {
        case .value(let v): return v
        case .array(let a): return .array(try a.map { try $0.plain() })
        case .object(let o): return .object(try o.mapValues { try $0.plain() })
        case .node(let node): return try node._patchPlain()
        case .unordered(_, let v): return v
        }
    }

    /// Encodes `value`, with lazy node references when `lazy`.
    static func of<T: Encodable>(_ value: T, lazy: Bool) throws -> _PatchTree {
        let slot = _PatchSlot()
        try value.encode(to: _PatchEncoder(slot: slot, lazy: lazy, codingPath: []))
        _PatchUnorderedSupport.mark(value, slot)
        return slot.finish()
    }

    /// Whether this value (read from a state) is the `old` value an operation
    /// recorded: equal, each `unordered` part as a whole and order aside.
    ///
    /// - Complexity: O(size of the value).
    func matches(_ old: PatchValue) throws -> Bool {
        switch (self, old) {
        case (.value(let v), _): return v == old
        case (.unordered(let kind, let v), _): return _PatchUnorderedSupport.equal(kind, v, old)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where try !x.matches(y) { return false }
            return true
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (key, x) in a {
                guard let y = b[key], try x.matches(y) else { return false }
            }
            return true
        case (.node(let node), _): return try node._patchFullTree().matches(old)
        default: return false
        }
    }
}

/// Whether `current` (nil: absent) is a patch's recorded `old` value (see
/// `_PatchTree.matches`).
func _patchOldMatches(_ current: _PatchTree?, _ old: PatchValue?) throws -> Bool {
    guard let current, let old else { return current == nil && old == nil }
    return try current.matches(old)
}

/// The collections whose encoding lists their contents in an order that
/// means nothing: a `Set`, and a `Dictionary` whose keys encode it as an
/// array (`[k0, v0, k1, v1, …]`). The patch encoder keeps them as one
/// `unordered` leaf: a diff compares them whole, order aside, and replaces
/// them whole; applying checks the old value the same way. (Inside, the
/// instance's order of two equal collections differs, and a path by
/// position into one would name another element in a decoded copy.)
internal protocol _PatchUnordered {}
extension Set: _PatchUnordered {}
extension Dictionary: _PatchUnordered {}

/// Which unordered collection a leaf holds.
internal enum _PatchUnorderedKind { case elements, pairs }

internal enum _PatchUnorderedSupport {

    /// Turns `slot`, which `value` was just encoded into, into an unordered
    /// leaf when `value` is such a collection encoded as an array.
    static func mark<T>(_ value: T, _ slot: _PatchSlot) {
        guard value is any _PatchUnordered, case .unkeyed = slot.content,
              let plain = try? slot.finish().plain() else { return }
        slot.content = .single(.unordered(value is any _PatchSetMarker ? .elements : .pairs, plain))
    }

    /// Whether `a` and `b` hold the same contents, order aside.
    static func equal(_ kind: _PatchUnorderedKind, _ a: PatchValue, _ b: PatchValue) -> Bool {
        if a == b { return true }
        guard case .array(let x) = a, case .array(let y) = b, x.count == y.count else { return false }
        switch kind {
        case .elements:
            var counts: [PatchValue: Int] = [:]
            for e in x { counts[e, default: 0] += 1 }
            for e in y {
                guard let n = counts[e], n > 0 else { return false }
                counts[e] = n - 1
            }
            return true
        case .pairs:
            guard x.count % 2 == 0 else { return false }
            var pairs: [PatchValue: PatchValue] = [:]
            for k in stride(from: 0, to: x.count, by: 2) { pairs[x[k]] = x[k + 1] }
            guard pairs.count * 2 == x.count else { return false }
            for k in stride(from: 0, to: y.count, by: 2) where pairs[y[k]] != y[k + 1] { return false }
            return true
        }
    }
}

/// Marks `Set` among the unordered collections (its elements, not pairs).
internal protocol _PatchSetMarker {}
extension Set: _PatchSetMarker {}

/// Encodes `value` fully into a `PatchValue`.
internal func _plainValue<T: Encodable>(_ value: T) throws -> PatchValue {
    try _PatchTree.of(value, lazy: false).plain()
}

/// Where a value under encoding goes: filled by one container.
internal final class _PatchSlot {
    enum Content {
        case none
        case single(_PatchTree)
        case keyed([String: _PatchSlot])
        case unkeyed([_PatchSlot])
    }

    var content: Content = .none

    init() {}

    func finish() -> _PatchTree {
        switch content {
        case .none: return .object([:])
        case .single(let tree): return tree
        case .keyed(let slots): return .object(slots.mapValues { $0.finish() })
        case .unkeyed(let slots): return .array(slots.map { $0.finish() })
        }
    }

    // NB: the slots are taken out of `content` before they grow, so that
    // the array or dictionary is uniquely referenced and grows in place (a
    // copy per element made encoding an n-element array O(n²)).
    func keyedSlot(_ key: String) -> _PatchSlot {
        var slots: [String: _PatchSlot]
        if case .keyed(let existing) = content { slots = existing } else { slots = [:] }
        if let slot = slots[key] { return slot }
        content = .none
        let slot = _PatchSlot()
        slots[key] = slot
        content = .keyed(slots)
        return slot
    }

    func appendSlot() -> _PatchSlot {
        var slots: [_PatchSlot]
        if case .unkeyed(let existing) = content { slots = existing } else { slots = [] }
        content = .none
        let slot = _PatchSlot()
        slots.append(slot)
        content = .unkeyed(slots)
        return slot
    }

    func hasKeyedSlot(_ key: String) -> Bool {
        if case .keyed(let slots) = content { return slots[key] != nil }
        return false
    }

    func removeKeyedSlot(_ key: String) {
        guard case .keyed(var slots) = content else { return }
        content = .none
        slots[key] = nil
        content = .keyed(slots)
    }

    func removeLastSlot() {
        guard case .unkeyed(var slots) = content, !slots.isEmpty else { return }
        content = .none
        slots.removeLast()
        content = .unkeyed(slots)
    }

    var unkeyedCount: Int {
        if case .unkeyed(let slots) = content { return slots.count }
        return 0
    }
}

internal final class _PatchEncoder: Encoder {
    let slot: _PatchSlot
    let lazy: Bool
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(slot: _PatchSlot, lazy: Bool, codingPath: [any CodingKey]) {
        self.slot = slot
        self.lazy = lazy
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = slot.content {} else { slot.content = .keyed([:]) }
        return KeyedEncodingContainer(_Keyed<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = slot.content {} else { slot.content = .unkeyed([]) }
        return _Unkeyed(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { _Single(encoder: self) }

    /// Encodes `value` into `slot`.
    func encode<T: Encodable>(_ value: T, into slot: _PatchSlot, key: any CodingKey) throws {
        if let scalar = try _PatchEncoder.scalar(value) {
            slot.content = .single(.value(scalar))
        } else {
            try value.encode(to: _PatchEncoder(slot: slot, lazy: lazy, codingPath: codingPath + [key]))
            _PatchUnorderedSupport.mark(value, slot)
        }
    }

    /// `value` when it is a standard library scalar.
    static func scalar<T: Encodable>(_ value: T) throws -> PatchValue? {
        switch value {
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int32: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as UInt: return try unsigned(UInt64(v))
        case let v as UInt8: return .int(Int64(v))
        case let v as UInt16: return .int(Int64(v))
        case let v as UInt32: return .int(Int64(v))
        case let v as UInt64: return try unsigned(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        default: return nil
        }
    }

    static func unsigned(_ v: UInt64) throws -> PatchValue {
        guard let i = Int64(exactly: v) else {
            throw EncodingError.invalidValue(v, EncodingError.Context(codingPath: [], debugDescription: "StatePatch: \(v) exceeds Int64"))
        }
        return .int(i)
    }

    struct _Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
    }

    struct _Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: _PatchEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) throws {
            encoder.slot.keyedSlot(key.stringValue).content = .single(.value(.null))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let isNew = !encoder.slot.hasKeyedSlot(key.stringValue)
            do {
                try encoder.encode(value, into: encoder.slot.keyedSlot(key.stringValue), key: key)
            } catch {
                // NB: a value that failed leaves no key (a type may catch
                // the error and go on), as JSONEncoder leaves none.
                if isNew { encoder.slot.removeKeyedSlot(key.stringValue) }
                throw error
            }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            _PatchEncoder(slot: encoder.slot.keyedSlot(key.stringValue), lazy: encoder.lazy, codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            _PatchEncoder(slot: encoder.slot.keyedSlot(key.stringValue), lazy: encoder.lazy, codingPath: codingPath + [key])
                .unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            _PatchEncoder(slot: encoder.slot.keyedSlot("super"), lazy: encoder.lazy, codingPath: codingPath)
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            _PatchEncoder(slot: encoder.slot.keyedSlot(key.stringValue), lazy: encoder.lazy, codingPath: codingPath + [key])
        }
    }

    struct _Unkeyed: UnkeyedEncodingContainer {
        let encoder: _PatchEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { encoder.slot.unkeyedCount }

        mutating func encodeNil() throws { encoder.slot.appendSlot().content = .single(.value(.null)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let key = _Key(intValue: count)
            do {
                try encoder.encode(value, into: encoder.slot.appendSlot(), key: key)
            } catch {
                // NB: an element that failed leaves no element (a lossy
                // array catches the error and goes on), as JSONEncoder.
                encoder.slot.removeLastSlot()
                throw error
            }
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let key = _Key(intValue: count)
            return _PatchEncoder(slot: encoder.slot.appendSlot(), lazy: encoder.lazy, codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let key = _Key(intValue: count)
            return _PatchEncoder(slot: encoder.slot.appendSlot(), lazy: encoder.lazy, codingPath: codingPath + [key])
                .unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            let key = _Key(intValue: count)
            return _PatchEncoder(slot: encoder.slot.appendSlot(), lazy: encoder.lazy, codingPath: codingPath + [key])
        }
    }

    struct _Single: SingleValueEncodingContainer {
        let encoder: _PatchEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.slot.content = .single(.value(.null)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            if let scalar = try _PatchEncoder.scalar(value) {
                encoder.slot.content = .single(.value(scalar))
            } else {
                try value.encode(to: _PatchEncoder(slot: encoder.slot, lazy: encoder.lazy, codingPath: codingPath))
                _PatchUnorderedSupport.mark(value, encoder.slot)
            }
        }
    }
}

/// Called first by the versioned types' `encode(to:)`: under a lazy patch
/// encoder, leaves a reference to `node` in place of its contents and
/// returns `true`; otherwise returns `false` (encode as usual).
///
/// NB: `node` is taken as `Any` and cast only under a patch encoder: the
/// other encoders pay one failed class cast.
internal func _patchEncodeNode(_ node: Any, to encoder: any Encoder) -> Bool {
    guard let patchEncoder = encoder as? _PatchEncoder, patchEncoder.lazy,
          let node = node as? any _PatchNode else { return false }
    patchEncoder.slot.content = .single(.node(node))
    return true
}
