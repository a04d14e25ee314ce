// Operations on their way down the state, and how a patch's operations are
// cut into runs that one pass of `_PatchDecoder` applies together.
//
// A pass walks the state once from the root with a group of operations
// pending: at each node it hands every child the operations whose path goes
// on through it, so that a node rebuilt for many operations (a list updated
// at a hundred ids) is rebuilt once, and the root once per run instead of
// once per operation. Operations in a run are on unrelated paths (none is a
// prefix of another, nor equal to it): they touch disjoint parts of the
// state, so they commute, and the pass's order (the tree's) gives the result
// the patch's order gives. Paths compare as `PatchValue`s, exactly, while a
// dictionary or an `IdentifiedList` finds its element by the decoded key's
// own `==` (`"é"` precomposed and decomposed, `0.0` and `-0.0` are one
// key): a rebuild that finds two steps naming one element throws
// `_PatchRunConflict` before it applies any, and the run is applied one
// operation at a time.

/// Which of a pass's operations were applied: an operation whose path
/// leads nowhere in the state is an error, not a no-op.
internal final class _PatchApplyState {
    private let operations: Int
    private var count = 0
    /// Which were applied, when there are several.
    private var applied: [Bool]

    init(operations: Int) {
        self.operations = operations
        applied = operations > 1 ? Array(repeating: false, count: operations) : []
    }

    /// Whether every operation was applied.
    var all: Bool { count == operations }

    func record(_ operation: Int) {
        if applied.isEmpty {
            count = 1
            return
        }
        guard !applied[operation] else { return }
        applied[operation] = true
        count += 1
    }
}

/// An operation on its way down: the part of its path still ahead.
internal struct _PatchPending {
    let operation: PatchOperation
    var rest: ArraySlice<PatchPath.Component>
    let state: _PatchApplyState
    /// The operation's place in its pass.
    let index: Int

    /// The path walked so far.
    var here: PatchPath { PatchPath(Array(operation.path.components.dropLast(rest.count))) }

    /// Records that the operation was applied.
    func consume() { state.record(index) }

    /// This operation one step further down.
    var stepped: _PatchPending {
        var next = self
        next.rest = rest.dropFirst()
        return next
    }
}

/// The operations pending at one place of the state, on unrelated paths.
///
/// NB: the first apart, so that a group of one (an undo, a patch of one
/// write) allocates nothing on its way down.
internal struct _PatchPendingGroup {
    let first: _PatchPending
    let others: [_PatchPending]

    init(_ first: _PatchPending, _ others: [_PatchPending] = []) {
        self.first = first
        self.others = others
    }

    /// The path walked so far (the same for every member).
    var here: PatchPath { first.here }

    /// The operation whose path ends here. Paths in a group are unrelated, so
    /// it is then the group's only one.
    var endingHere: _PatchPending? {
        others.isEmpty && first.rest.isEmpty ? first : nil
    }

    /// The group going on through `component`, for a group of one.
    func single(below component: PatchPath.Component) -> _PatchPendingGroup? {
        first.rest.first == component ? _PatchPendingGroup(first.stepped) : nil
    }

    /// The operations going on below, by the next step of their paths, with
    /// that step taken.
    ///
    /// - Complexity: O(members).
    func byNextStep() -> [PatchPath.Component: _PatchPendingGroup] {
        var grouped: [PatchPath.Component: [_PatchPending]] = [:]
        for member in CollectionOfOne(first).lazy + others {
            guard let next = member.rest.first else { continue }
            grouped[next, default: []].append(member.stepped)
        }
        return grouped.mapValues { _PatchPendingGroup($0[0], Array($0.dropFirst())) }
    }
}

/// Thrown by a walk that finds two of its operations at one element under
/// two spellings of its key or id (`"é"` precomposed and decomposed, `0.0`
/// and `-0.0`): paths that differ as `PatchValue`s, so the run took them
/// for unrelated, but that name one element once decoded. The run is then
/// applied one operation at a time, in order.
internal struct _PatchRunConflict: Error {}

internal enum _PatchRuns {
    /// `operations` cut into runs applied one after the other, each of
    /// operations on unrelated paths, in the patch's order.
    ///
    /// Consecutive `set`s at one path, where each starts from the value the
    /// one before left, are one `set` from the first's old value to the
    /// last's new one: the result is the same, and a history that wrote a
    /// field ten times is one write on a jump across it.
    ///
    /// - Complexity: O(operations × path depth) dictionary steps.
    static func split(_ operations: [PatchOperation]) -> [[PatchOperation]] {
        guard operations.count > 1 else { return [operations] }
        var runs: [[PatchOperation]] = []
        var run: [PatchOperation] = []
        var trie = _Trie()
        for operation in operations {
            switch trie.place(operation.path.components, at: run.count) {
            case .placed:
                run.append(operation)
            case .samePath(let k):
                if case .set(let path, let old, let middle) = run[k], case .set(_, let start, let new) = operation, middle == start {
                    run[k] = .set(path: path, old: old, new: new)
                    continue
                }
                fallthrough
            case .related:
                runs.append(run)
                run = [operation]
                trie = _Trie()
                _ = trie.place(operation.path.components, at: 0)
            }
        }
        runs.append(run)
        return runs
    }

    /// The paths of a run, as a trie.
    private struct _Trie {
        final class Node {
            var children: [PatchPath.Component: Node] = [:]
            /// The operation whose path ends here (its place in the run).
            var operation: Int?
        }

        enum Placement {
            case placed
            /// An operation of the run has this path.
            case samePath(Int)
            /// An operation of the run has a path that is a prefix of this
            /// one, or goes on from it.
            case related
        }

        let root = Node()

        /// Adds `path` for the operation at `index` in the run, unless it
        /// is related to a path already there.
        func place(_ path: [PatchPath.Component], at index: Int) -> Placement {
            var node = root
            for component in path {
                if node.operation != nil { return .related }
                if let next = node.children[component] {
                    node = next
                } else {
                    let next = Node()
                    node.children[component] = next
                    node = next
                }
            }
            if let existing = node.operation { return .samePath(existing) }
            if !node.children.isEmpty { return .related }
            node.operation = index
            return .placed
        }
    }
}
