/// A dictionary stored as a persistent hash array mapped trie, with a
/// version stamp per node.
///
/// Copies share their nodes; a write copies only the nodes on its key's path
/// (at most 13, about 3 for 1,000,000 keys) when another version holds them.
/// Comparing two versions and ``difference(from:)-84uh2`` skip the nodes
/// they share.
///
/// A dictionary has a stable ``nodeID`` and a ``version`` every write
/// renews. For FastStore's consumers, reading a key records that key; count,
/// iteration, comparison and description record the whole dictionary.
/// Writing, inserting or removing a key journals that key.
public struct VersionedDictionary<Key: Hashable, Value> {
    @usableFromInline var _root: _MapNode<Key, Value>
    @usableFromInline var _count: Int
    @usableFromInline var _nodeID: NodeID

    /// An empty dictionary with a new identity.
    @inlinable
    public init() {
        _root = _MapNode(stamp: VersionStamp.next())
        _count = 0
        _nodeID = NodeID.make()
    }

    /// A dictionary of the given pairs, with a new identity.
    ///
    /// - Precondition: the keys are unique ("Duplicate key ...").
    /// - Complexity: O(n log n).
    @inlinable
    public init<S: Sequence>(uniqueKeysWithValues pairs: S) where S.Element == (Key, Value) {
        self.init()
        let stamp = _root.stamp
        for (key, value) in pairs {
            let old = _root.update(value, for: key, hash: _MapNode<Key, Value>.hash(key), shift: 0, stamp: stamp)
            _usagePrecondition(old == nil, "Duplicate key: \(key)")
            _count += 1
        }
        _checkAfterWrite()
    }
}

extension VersionedDictionary: VersionedValue {
    /// The dictionary's identity and stamp, for the tracking layer (records
    /// nothing).
    @inlinable public var _trackingIdentity: _TrackingIdentity { _TrackingIdentity(node: _nodeID, version: _root.stamp) }

    /// Calls `body` with each key and value (for the tracking layer).
    @inlinable public func _forEachTrackedChild(_ body: (Any) -> Void) {
        _root.forEachEntry { entry in
            body(entry.key)
            body(entry.value)
        }
    }
}

extension VersionedDictionary: @unchecked Sendable where Key: Sendable, Value: Sendable {}

extension VersionedDictionary {
    @inlinable @inline(__always)
    internal func _checkAfterWrite() {
        #if FASTSTORE_INTERNAL_CHECKS
        if _WholeCheck.isDue(count: _count) { _invariantCheck() }
        #endif
    }

    #if FASTSTORE_INTERNAL_CHECKS
    /// Checks the whole trie and the count.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    internal func _invariantCheck() {
        let counted = _root._invariantCheck()
        precondition(counted == _count, "VersionedDictionary: count \(_count) != \(counted) entries")
    }
    #endif

    /// The value for `key`, without recording.
    @inlinable
    internal func _value(forKey key: Key) -> Value? {
        _root.entry(for: key, hash: _MapNode<Key, Value>.hash(key))?.value
    }

    /// Sets or removes the value for `key` without journaling; returns the
    /// old value. Takes a fresh stamp only when something changes.
    @inlinable
    @discardableResult
    internal mutating func _setValue(
        _ value: Value?, forKey key: Key, check: Bool = true
    ) -> (old: Value?, stamps: (VersionStamp, VersionStamp)?) {
        let hash = _MapNode<Key, Value>.hash(key)
        let oldStamp = _root.stamp
        if let value {
            let new = VersionStamp.next()
            _MapNode.makeUnique(&_root, stamp: new)
            let old = _root.update(value, for: key, hash: hash, shift: 0, stamp: new)
            if old == nil { _count += 1 }
            if check { _checkAfterWrite() }
            return (old ?? nil, (oldStamp, new))
        }
        guard _root.entry(for: key, hash: hash) != nil else { return (nil, nil) }
        let new = VersionStamp.next()
        _MapNode.makeUnique(&_root, stamp: new)
        let old = _root.remove(key, hash: hash, shift: 0, stamp: new)
        _count -= 1
        if check { _checkAfterWrite() }
        return (old, (oldStamp, new))
    }
}

// MARK: Access

extension VersionedDictionary {
    /// The value for `key`, or nil. Setting nil removes the key.
    ///
    /// Reading records that key; writing journals it.
    ///
    /// - Complexity: O(log n) nodes visited; a write copies at most one node
    ///   per level when shared.
    @inlinable
    public subscript(key: Key) -> Value? {
        get {
            _Tracking.recordElementRead(_nodeID, key)
            return _value(forKey: key)
        }
        set {
            let (_, stamps) = _setValue(newValue, forKey: key)
            if let (old, new) = stamps { _Tracking.journalElementWrite(_nodeID, from: old, to: new, key) }
        }
        _modify {
            let hash = _MapNode<Key, Value>.hash(key)
            guard _root.entry(for: key, hash: hash) != nil else {
                var value: Value? = nil
                // NB: in a `defer`, so that a value set before the caller
                // throws is kept, as `Dictionary` keeps it.
                defer { if let value { self[key] = value } }
                yield &value
                return
            }
            // NB: the value is moved out of the trie (not copied), so a
            // mutation through it (`dict[k]?.append(x)`) finds its storage
            // unique; it goes back under the same key as one write of it.
            let old = _root.stamp
            let new = VersionStamp.next()
            _MapNode.makeUnique(&_root, stamp: new)
            var value = _root.remove(key, hash: hash, shift: 0, stamp: new)
            _count -= 1
            defer {
                if let value {
                    _ = _root.update(value, for: key, hash: hash, shift: 0, stamp: new)
                    _count += 1
                }
                _Tracking.journalElementWrite(_nodeID, from: old, to: new, key)
                _checkAfterWrite()
            }
            yield &value
        }
    }

    /// The value for `key`, or `defaultValue`.
    @inlinable
    public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[key] ?? defaultValue() }
        set { self[key] = newValue }
    }

    /// Sets `value` for `key`; returns the previous value.
    @inlinable
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        // NB: the previous value it returns is a read of that key.
        _Tracking.recordElementRead(_nodeID, key)
        let (old, stamps) = _setValue(value, forKey: key)
        if let (from, to) = stamps { _Tracking.journalElementWrite(_nodeID, from: from, to: to, key) }
        return old
    }

    /// Removes `key`; returns its value, or nil (and writes nothing) when absent.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        // NB: the value it returns is a read of that key.
        _Tracking.recordElementRead(_nodeID, key)
        let (old, stamps) = _setValue(nil, forKey: key)
        if let (from, to) = stamps { _Tracking.journalElementWrite(_nodeID, from: from, to: to, key) }
        return old
    }

    /// Removes every key (keeping the identity). Journals a structural write.
    @inlinable
    public mutating func removeAll() {
        guard _count > 0 else { return }
        let old = _root.stamp
        _root = _MapNode(stamp: VersionStamp.next())
        _count = 0
        _Tracking.journalWrite(_nodeID, from: old, to: _root.stamp, .content)
    }

    /// The number of keys. Records a read of the whole dictionary.
    @inlinable public var count: Int {
        _Tracking.recordWholeRead(_nodeID)
        return _count
    }

    /// Whether there is no key. Records a read of the whole dictionary.
    @inlinable public var isEmpty: Bool {
        _Tracking.recordWholeRead(_nodeID)
        return _count == 0
    }

    /// The keys, in the trie's order. Records a read of the whole dictionary.
    public var keys: [Key] {
        _Tracking.recordWholeRead(_nodeID)
        var keys: [Key] = []
        keys.reserveCapacity(_count)
        _root.forEachEntry { keys.append($0.key) }
        return keys
    }

    /// The values, in the order of ``keys``. Records a read of the whole dictionary.
    public var values: [Value] {
        _Tracking.recordWholeRead(_nodeID)
        var values: [Value] = []
        values.reserveCapacity(_count)
        _root.forEachEntry { values.append($0.value) }
        return values
    }
}

// MARK: Sequence

extension VersionedDictionary: Sequence {
    public typealias Element = (key: Key, value: Value)

    /// Iterates the pairs in the trie's order. Records a read of the whole
    /// dictionary (once).
    @inlinable
    public func makeIterator() -> Iterator {
        _Tracking.recordWholeRead(_nodeID)
        return Iterator(root: _root)
    }

    /// The number of keys. Records a read of the whole dictionary.
    @inlinable public var underestimatedCount: Int {
        _Tracking.recordWholeRead(_nodeID)
        return _count
    }

    /// An iterator over a dictionary's pairs.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var _stack: [(node: _MapNode<Key, Value>, entry: Int, child: Int)]

        @inlinable init(root: _MapNode<Key, Value>) { _stack = [(root, 0, 0)] }

        @inlinable
        public mutating func next() -> (key: Key, value: Value)? {
            while let top = _stack.last {
                if top.entry < top.node.entries.count {
                    _stack[_stack.count - 1].entry += 1
                    let e = top.node.entries[top.entry]
                    return (e.key, e.value)
                }
                if top.child < top.node.children.count {
                    _stack[_stack.count - 1].child += 1
                    _stack.append((top.node.children[top.child], 0, 0))
                    continue
                }
                _stack.removeLast()
            }
            return nil
        }
    }
}
