import CFastStore
@_spi(Reflection) import Swift

// What a consumer's selection holds.
//
// A selector's reads are recorded as it runs, but a selection can also hold
// a versioned node that the selector never read into: `{ [$0.settings] }`
// reaches `settings` through its parent's field and wraps it in an array,
// and comparing the array with itself stops at the shared buffer. A write
// through `settings` journals a write of `settings` and a pass-through of
// its parent, which the parent's field readers do not see. So after the
// selector, the consumer looks at the selection itself: every versioned
// node in it is a whole-node dependency. Values whose type cannot hold a
// node (numbers, strings, plain structs of them, arrays of them: decided
// once per type from the type's layout) are not looked at.

/// The counters of identities and stamps at some moment: a node whose
/// identity or stamp is newer was made or written after it.
@usableFromInline
internal struct _TrackingMark {
    @usableFromInline let node: UInt64
    @usableFromInline let stamp: UInt64

    @inlinable
    static var now: _TrackingMark {
        _TrackingMark(
            node: _cfaststore_nodes_load(), stamp: _cfaststore_stamps_load())
    }

    @inlinable init(node: UInt64, stamp: UInt64) { self.node = node; self.stamp = stamp }

    /// Whether the node of `identity` existed at this mark.
    @inlinable
    func knows(_ identity: _TrackingIdentity) -> Bool { identity.node.rawValue <= node }

    /// Whether the version of `identity` existed at this mark (it was not
    /// written since).
    @inlinable
    func knowsVersion(_ identity: _TrackingIdentity) -> Bool {
        identity.node.rawValue <= node && identity.version.rawValue <= stamp
    }
}

/// Types that cannot hold a versioned node, whatever their value.
@usableFromInline internal protocol _NodeFreeValue {}

extension Bool: _NodeFreeValue {}
extension Int: _NodeFreeValue {}
extension Int8: _NodeFreeValue {}
extension Int16: _NodeFreeValue {}
extension Int32: _NodeFreeValue {}
extension Int64: _NodeFreeValue {}
extension UInt: _NodeFreeValue {}
extension UInt8: _NodeFreeValue {}
extension UInt16: _NodeFreeValue {}
extension UInt32: _NodeFreeValue {}
extension UInt64: _NodeFreeValue {}
extension Float: _NodeFreeValue {}
extension Double: _NodeFreeValue {}
extension String: _NodeFreeValue {}
extension Substring: _NodeFreeValue {}
extension Character: _NodeFreeValue {}
extension Unicode.Scalar: _NodeFreeValue {}
extension NodeID: _NodeFreeValue {}
extension VersionStamp: _NodeFreeValue {}
extension VersionedListChanges: _NodeFreeValue {}
extension ObjectIdentifier: _NodeFreeValue {}
extension Range: _NodeFreeValue where Bound: _NodeFreeValue {}
extension ClosedRange: _NodeFreeValue where Bound: _NodeFreeValue {}

/// The standard containers a selection may wrap nodes in: looked at element
/// by element (their mirrors would do the same, slower).
@usableFromInline
internal protocol _SelectionContainer {
    /// The types of what the container holds.
    static var _elementTypes: [Any.Type] { get }
    /// Calls `body` with each thing the container holds.
    func _forEachHeld(_ body: (Any) -> Void)
}

extension Optional: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Wrapped.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { if let self { body(self) } }
}

extension Array: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Element.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension ContiguousArray: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Element.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension ArraySlice: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Element.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension Set: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Element.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension Dictionary: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Key.self, Value.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) {
        for (key, value) in self {
            body(key)
            body(value)
        }
    }
}

extension AnyHashable: _SelectionContainer {
    @usableFromInline static var _elementTypes: [Any.Type] { [Any.self] }
    @usableFromInline func _forEachHeld(_ body: (Any) -> Void) { body(base) }
}

@usableFromInline
internal enum _SelectionTracking {
    /// `type` → whether its values can hold a versioned node.
    nonisolated(unsafe) static var _cache: [ObjectIdentifier: Bool] = [:]
    static let _lock = _Lock()

    /// Whether values of `type` can hold a versioned node (`false`: they
    /// certainly cannot, and the consumer need not look at them).
    ///
    /// - Complexity: O(1) after the first call for a type (a lock and a
    ///   dictionary lookup); the first call walks the type's stored fields.
    @usableFromInline
    static func mayHoldNodes(_ type: Any.Type) -> Bool {
        _lock.lock()
        defer { _lock.unlock() }
        if let known = _cache[ObjectIdentifier(type)] { return known }
        var inProgress: Set<ObjectIdentifier> = []
        let (result, _) = _classify(type, &inProgress)
        _cache[ObjectIdentifier(type)] = result
        return result
    }

    /// Classifies `type`. Returns whether it can hold a node, and whether a
    /// `false` answer assumed that a type being classified further up holds
    /// none (such an answer is cached only once that assumption is known to
    /// hold, i.e. by the outermost call). Must hold the lock.
    static func _classify(_ type: Any.Type, _ inProgress: inout Set<ObjectIdentifier>) -> (Bool, assumed: Bool) {
        let key = ObjectIdentifier(type)
        if let known = _cache[key] { return (known, false) }
        // NB: a type met again while it is being classified (a struct holding
        // an array of itself) adds nothing to what its other fields say; the
        // answers that relied on that are not cached on their own.
        guard inProgress.insert(key).inserted else { return (false, true) }
        defer { inProgress.remove(key) }
        var assumed = false
        func classify(_ type: Any.Type) -> Bool {
            let (holds, usedAssumption) = _classify(type, &inProgress)
            if usedAssumption { assumed = true }
            return holds
        }
        let result: Bool
        if type is any _NodeFreeValue.Type {
            result = false
        } else if type is any VersionedValue.Type {
            result = true
        } else if let container = type as? any _SelectionContainer.Type {
            result = container._elementTypes.contains { classify($0) }
        } else if _size(of: type) < MemoryLayout<UnsafeRawPointer>.size {
            // Too small to hold a reference, so no node (enums without
            // payloads, small integers, empty structs).
            result = false
        } else {
            switch _kind(of: type) {
            case .struct?, .tuple?:
                var holds = false
                let complete = _forEachField(of: type, options: []) { _, _, fieldType, _ in
                    holds = classify(fieldType)
                    return !holds
                }
                result = holds || !complete
            case .metatype?, .existentialMetatype?:
                result = false
            default:
                // Classes, enums with payloads, existentials, functions:
                // what they hold depends on the value.
                result = true
            }
        }
        if result || !assumed { _cache[key] = result }
        return (result, !result && assumed)
    }

    static func _size(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }

    static func _kind(of type: Any.Type) -> _MetadataKind? {
        func kind<T>(_: T.Type) -> _MetadataKind? {
            var kind: _MetadataKind?
            _ = _forEachField(of: _Probe<T>.self, options: []) { _, _, _, fieldKind in
                kind = fieldKind
                return false
            }
            return kind
        }
        return _openExistential(type, do: kind)
    }

    /// A struct with one field, whose reported kind is the kind of `T`.
    struct _Probe<T> { var value: T }

    /// Records a whole read, into `recorder`, of every versioned node that
    /// `selection` holds and that existed before `mark`; also looks inside
    /// the versions written after `mark` (by the selector), and only inside
    /// the nodes made after it.
    ///
    /// - Returns: `false` when the selection holds something whose contents
    ///   cannot be seen or can change without a write to the state: a class
    ///   instance, or a value with a custom mirror that is not one of the
    ///   standard containers. The consumer must then evaluate its selector
    ///   at every consume.
    /// - Complexity: O(size of the parts of the selection whose type can
    ///   hold a node).
    @usableFromInline
    static func recordNodes(in selection: Any, since mark: _TrackingMark, into recorder: _ReadRecorder) -> Bool {
        guard mayHoldNodes(type(of: selection)) else { return true }
        if let node = selection as? any VersionedValue {
            let identity = node._trackingIdentity
            // NB: a node that existed before the selector ran (a state node,
            // or a copy of one the selector wrote) depends on that node as a
            // whole; a version the selector wrote also holds what it put in.
            if mark.knows(identity) {
                recorder.dependencies.append(_Dependency(node: identity.node, kind: .whole))
                if mark.knowsVersion(identity) { return true }
            }
            var seen = true
            node._forEachTrackedChild { if seen { seen = recordNodes(in: $0, since: mark, into: recorder) } }
            return seen
        }
        if let container = selection as? any _SelectionContainer {
            var seen = true
            container._forEachHeld { if seen { seen = recordNodes(in: $0, since: mark, into: recorder) } }
            return seen
        }
        if selection is CustomReflectable { return false }
        let mirror = Mirror(reflecting: selection)
        if mirror.displayStyle == .class { return false }
        for child in mirror.children where !recordNodes(in: child.value, since: mark, into: recorder) {
            return false
        }
        return true
    }
}

/// How a consumer inspects its selections, decided once per consumer from
/// the selection's type: not at all (it cannot hold a node), by reading the
/// identity of a selection that is itself a node (or an optional node)
/// without any dynamic cast, or by the general walk.
@usableFromInline
internal struct _SelectionInspector<Selection> {
    @usableFromInline let mayHoldNodes: Bool
    /// Reads the identity of a selection that is a node (`nil`: an absent
    /// optional node), when `Selection` is a node or an optional node.
    @usableFromInline let identity: ((Selection) -> _TrackingIdentity?)?

    @inlinable
    init() {
        identity = _SelectionInspector._identityReader()
        mayHoldNodes = identity != nil || _SelectionTracking.mayHoldNodes(Selection.self)
    }

    /// An inspector decided earlier (by ``init()``), from its parts: a
    /// consumer handle stores them as fields of its own, where they pack
    /// tighter than the struct.
    @inlinable
    init(mayHoldNodes: Bool, identity: ((Selection) -> _TrackingIdentity?)?) {
        self.mayHoldNodes = mayHoldNodes
        self.identity = identity
    }

    @usableFromInline
    static func _identityReader() -> ((Selection) -> _TrackingIdentity?)? {
        if let read = _TrackingIdentity.reader(for: Selection.self) { return { read($0) } }
        guard let optional = Selection.self as? any _OptionalNode.Type else { return nil }
        func make<O: _OptionalNode>(_: O.Type) -> (Selection) -> _TrackingIdentity? {
            // NB: `Selection == O` here; the bit cast spares a dynamic cast per call.
            { selection in unsafeBitCast(selection, to: O.self)._wrappedIdentity }
        }
        return make(optional)
    }

    /// Records the nodes `selection` holds (see
    /// ``_SelectionTracking/recordNodes(in:since:into:)``); `false` when the
    /// consumer must run at every consume.
    @inlinable
    func recordNodes(in selection: Selection, since mark: _TrackingMark, into recorder: _ReadRecorder) -> Bool {
        guard mayHoldNodes else { return true }
        if let identity {
            guard let node = identity(selection) else { return true }
            if mark.knowsVersion(node) {
                recorder.dependencies.append(_Dependency(node: node.node, kind: .whole))
                return true
            }
        }
        return _SelectionTracking.recordNodes(in: selection, since: mark, into: recorder)
    }
}

/// An optional versioned value, for ``_SelectionInspector``.
@usableFromInline
internal protocol _OptionalNode {
    var _wrappedIdentity: _TrackingIdentity? { get }
}

extension Optional: _OptionalNode where Wrapped: VersionedValue {
    @usableFromInline var _wrappedIdentity: _TrackingIdentity? { self?._trackingIdentity }
}
