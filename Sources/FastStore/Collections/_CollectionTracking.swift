import Atomics

// Recording helpers shared by the versioned collections.
//
// NB: `_ReadRecorder.read` and `_WriteJournal.write` take their kind eagerly;
// building an `AnyHashable` key for every element read would cost even when
// nothing records. These helpers test the thread-local slot first and build
// the key only when a recorder or journal is installed.

/// Records a read of one element, keyed by `key()`, if a recorder is installed.
@inlinable @inline(__always)
internal func _recordElementRead(_ node: NodeID, _ key: () -> AnyHashable) {
    if let recorder = _ReadRecorder._current.value {
        recorder.dependencies.append(_Dependency(node: node, kind: .element(key())))
    }
}

/// Records a read of the whole value, if a recorder is installed.
@inlinable @inline(__always)
internal func _recordWholeRead(_ node: NodeID) {
    _ReadRecorder.read(node, .whole)
}

/// Whether a write journal is installed on the calling thread.
@inlinable @inline(__always)
internal var _isJournaling: Bool { _WriteJournal._current.value != nil }

/// Journals a write of one element, keyed by `key()`, if a journal is installed.
@inlinable @inline(__always)
internal func _journalElementWrite(
    _ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ key: () -> AnyHashable
) {
    if let journal = _WriteJournal._current.value {
        journal._write(node, from: old, to: new, .element(key()))
    }
}

/// Journals a structural write, if a journal is installed.
@inlinable @inline(__always)
internal func _journalContentWrite(_ node: NodeID, from old: VersionStamp, to new: VersionStamp) {
    _WriteJournal.write(node, from: old, to: new, .content)
}

/// Reserves `count` consecutive fresh stamps and returns the first raw value.
/// Element identities are drawn from the stamp counter, so that an identity
/// can double as the element's first write stamp.
@inlinable
internal func _reserveStamps(_ count: Int) -> UInt64 {
    precondition(count >= 0)
    return _stampCounter.loadThenWrappingIncrement(by: UInt64(count), ordering: .relaxed) &+ 1
}
