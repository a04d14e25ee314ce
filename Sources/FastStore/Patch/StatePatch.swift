/// The difference between two versions of a `Codable` state, as operations
/// on paths: what changed, with the values before and after.
///
///     let patch = try StatePatch(from: before, to: after)
///     print(patch)                        // todos[id: 42].done: false → true
///     let data = try JSONEncoder().encode(patch)
///     let rebuilt = try patch.apply(to: before)   // == after
///
/// Making a patch skips every versioned subtree the two versions share
/// (same ``NodeID``, same stamp) without looking inside, and lists are
/// compared with their structural `difference(from:)`: a patch's size and
/// the time to make it follow the changes, not the state. A list edit is an
/// ``PatchOperation/edit(path:removed:inserted:)`` of elements by offset
/// (``VersionedList``) or by id (``IdentifiedList``); a dictionary value is
/// set or removed by key; an updated element or value gets operations at
/// its own path.
///
/// Applying rebuilds the state from the base it is given: versioned
/// subtrees off the patch's paths are reused as they are (same identity),
/// touched nodes keep their identity, and lists apply their edits to their
/// persistent trees.
///
/// Every operation records the value it replaces, so a patch is checked as
/// it applies (a patch applied to another base throws ``PatchError`` naming
/// the path) and inverts without the base state (``inverted()``).
///
/// Plain (unversioned) parts are compared by value: a plain array whose
/// length changed is replaced whole, and so is a list with no element kept
/// (a sort, another list).
public struct StatePatch<State: Codable>: Hashable, CustomStringConvertible {
    /// The operations, applied in order.
    public var operations: [PatchOperation]

    /// A patch of `operations`.
    public init(operations: [PatchOperation] = []) {
        self.operations = operations
    }

    /// The patch that turns `old` into `new`.
    ///
    /// - Complexity: O(c × (log n + p)) for c changed elements or fields in
    ///   lists of n elements, p the plain (unversioned) size of each node on
    ///   the changed paths; a subtree two versions share costs O(1).
    /// - Throws: what encoding the states throws.
    public init(from old: State, to new: State) throws {
        var operations: [PatchOperation] = []
        try _PatchDiff.diff(old, new, at: PatchPath(), into: &operations)
        self.init(operations: operations)
    }

    /// Whether the patch changes nothing.
    public var isEmpty: Bool { operations.isEmpty }

    /// `state` with the patch applied: for `state` equal to the patch's
    /// `old`, a state equal to its `new`.
    ///
    /// Operations on unrelated paths (none a prefix of another) are applied
    /// in one walk from the root, each node on their paths rebuilt once:
    /// the operations of many patches (``compose(_:)``) cost one walk per
    /// run of such operations, not one per operation. Consecutive `set`s
    /// at one path, each starting from the value the one before left, are
    /// applied as one.
    ///
    /// - Complexity: per run of operations on unrelated paths, O(log n) per
    ///   list and O(p) per node on their paths (p the node's plain size),
    ///   each node once, plus the size of the values they carry; subtrees
    ///   off the paths are reused in O(1).
    /// - Throws: ``PatchError`` naming the path where the patch does not fit
    ///   `state` (another base, a missing id or key, a position out of
    ///   range, a value of another type). `state` itself is never changed.
    public func apply(to state: State) throws -> State {
        var result = state
        for run in _PatchRuns.split(operations) {
            result = try Self._apply(run, to: result)
        }
        return result
    }

    /// This patch, then `next`: from this patch's `old` to `next`'s `new`.
    ///
    /// The operations of both, in order (nothing is merged).
    ///
    /// - Complexity: O(operations of both).
    public func then(_ next: StatePatch) -> StatePatch {
        StatePatch(operations: operations + next.operations)
    }

    /// The patches one after the other.
    ///
    /// - Complexity: O(operations of all).
    public static func compose<S: Sequence>(_ patches: S) -> StatePatch where S.Element == StatePatch {
        StatePatch(operations: patches.flatMap(\.operations))
    }

    /// The patch from this patch's `new` back to its `old`, made from the
    /// old values the operations record (no base state needed).
    ///
    /// - Complexity: O(operations).
    public func inverted() -> StatePatch {
        StatePatch(operations: operations.reversed().map(\.inverted))
    }

    /// One line per change: `path: old → new` (`∅` for an absent value),
    /// and for list edits `path: - [offset] value` and `path: + [offset] value`.
    public var description: String {
        if operations.isEmpty { return "(no changes)" }
        var lines: [String] = []
        for operation in operations {
            switch operation {
            case .set(let path, let old, let new):
                lines.append("\(path): \(old?.description ?? "∅") → \(new?.description ?? "∅")")
            case .edit(let path, let removed, let inserted):
                for entry in removed { lines.append("\(path): - [\(entry.offset)] \(entry.value)") }
                for entry in inserted { lines.append("\(path): + [\(entry.offset)] \(entry.value)") }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `state` with `run`, operations on unrelated paths, applied in one
    /// walk. Where the walk fails, the operations are applied one by one,
    /// so that the error is the first operation's that does not fit.
    static func _apply(_ run: [PatchOperation], to state: State) throws -> State {
        guard run.count > 1 else { return try run.first.map { try _apply($0, to: state) } ?? state }
        do {
            return try _walk(run, to: state, errorPath: nil)
        } catch is _PatchRunConflict {
            return try StatePatch(operations: run)._applyOneByOne(to: state)
        } catch {
            let result = try StatePatch(operations: run)._applyOneByOne(to: state)
            #if FASTSTORE_INTERNAL_CHECKS
            // NB: the operations one by one fit where the walk failed: the
            // walk is wrong. Checked in debug builds, where the tests run.
            preconditionFailure("FastStore: internal error: a patch's run failed in one walk (\(error)) but applies one operation at a time")
            #else
            return result
            #endif
        }
    }

    /// The patch applied one operation at a time, each in a walk of its
    /// own: the reference the runs' single walks are checked against.
    func _applyOneByOne(to state: State) throws -> State {
        var result = state
        for operation in operations { result = try Self._apply(operation, to: result) }
        return result
    }

    static func _apply(_ operation: PatchOperation, to state: State) throws -> State {
        let path = operation.path
        if path.components.isEmpty, case .set(_, let old, let new) = operation {
            do {
                guard try _patchOldMatches(_PatchTree.of(state, lazy: true), old), let new else {
                    throw PatchError.mismatch(path: path.description)
                }
                return try _PatchDecoder.decode(State.self, from: new)
            } catch let error as DecodingError {
                throw PatchError.typeMismatch(path: path.description, message: Self._message(error))
            }
        }
        return try _walk([operation], to: state, errorPath: path)
    }

    /// One walk from the root with `operations` (on unrelated paths, none
    /// the root's) pending. A decoding error is a type mismatch at
    /// `errorPath`.
    private static func _walk(_ operations: [PatchOperation], to state: State, errorPath: PatchPath?) throws -> State {
        do {
            let tree = try _PatchTree.of(state, lazy: true)
            let applied = _PatchApplyState(operations: operations.count)
            func pending(_ k: Int) -> _PatchPending {
                _PatchPending(operation: operations[k], rest: operations[k].path.components[...], state: applied, index: k)
            }
            let group = _PatchPendingGroup(pending(0), operations.indices.dropFirst().map(pending))
            let result = try _PatchDecoder(tree: tree, pending: group).decodeValue(State.self)
            guard applied.all else { throw PatchError.mismatch(path: (errorPath ?? PatchPath()).description) }
            return result
        } catch let error as DecodingError {
            throw PatchError.typeMismatch(path: (errorPath ?? PatchPath()).description, message: Self._message(error))
        }
    }

    static func _message(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
             .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}

extension StatePatch: Sendable {}

extension StatePatch: Codable {
    /// Encodes the operations as an array (see ``PatchOperation``'s format).
    public func encode(to encoder: any Encoder) throws {
        try operations.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self.init(operations: try [PatchOperation](from: decoder))
    }
}
