import FastStore

// A small versioned state tree for the consumer tests: nodes nesting nodes
// four levels deep, plain fields, a plain struct holding a node and a plain
// array of nodes.

public struct TreeLeaf: Hashable, Sendable, CustomStringConvertible {
    public var a: Int
    public var b: Int
    public init(a: Int, b: Int) { self.a = a; self.b = b }
    public var description: String { "L(\(a),\(b))" }
}

public struct TreeInner: Hashable, Sendable {
    public var x: Int
    public var left: Versioned<TreeLeaf>
    public var right: Versioned<TreeLeaf>
    public init(x: Int, left: Versioned<TreeLeaf>, right: Versioned<TreeLeaf>) {
        self.x = x; self.left = left; self.right = right
    }
}

/// A plain (unversioned) struct holding a node.
public struct TreePair: Hashable, Sendable {
    public var tag: Int
    public var node: Versioned<TreeLeaf>
    public init(tag: Int, node: Versioned<TreeLeaf>) { self.tag = tag; self.node = node }
}

public struct TreeMid: Hashable, Sendable {
    public var y: Int
    public var inner: Versioned<TreeInner>
    public var leaves: [Versioned<TreeLeaf>]
    public var pair: TreePair
    /// A versioned list (per-element tracking); never shorter than 2.
    public var list: VersionedList<Int>
    /// A versioned list of nodes (writes through an element are
    /// pass-throughs of the list); never shorter than 2.
    public var rows: VersionedList<Versioned<TreeLeaf>>
    public init(y: Int, inner: Versioned<TreeInner>, leaves: [Versioned<TreeLeaf>], pair: TreePair,
                list: VersionedList<Int>, rows: VersionedList<Versioned<TreeLeaf>>) {
        self.y = y; self.inner = inner; self.leaves = leaves; self.pair = pair; self.list = list; self.rows = rows
    }
}

public struct TreeRoot: Hashable, Sendable {
    public var count: Int
    public var name: String?
    public var m1: Versioned<TreeMid>
    public var m2: Versioned<TreeMid>
    /// Kept equal to `leaf.a` by `leaf`'s `didSet`: a sibling field written
    /// whenever the child node is, even through it.
    public private(set) var leafCache: Int
    /// An observed child node: it has no storage range
    /// (`MemoryLayout.offset(of:)` is nil), and a write through it also
    /// writes `leafCache`.
    public var leaf: Versioned<TreeLeaf> { didSet { leafCache = leaf.a } }
    public init(count: Int, name: String?, m1: Versioned<TreeMid>, m2: Versioned<TreeMid>, leaf: Versioned<TreeLeaf>) {
        self.count = count; self.name = name; self.m1 = m1; self.m2 = m2; self.leaf = leaf; self.leafCache = leaf.a
    }
}

/// A plain `Hashable` struct holding an array of nodes taken from a state
/// (a selection whose `==` stops at the array's shared storage).
public struct TreeLeafBundle: Hashable, Sendable {
    public var tag: Int
    public var leaves: [Versioned<TreeLeaf>]
    public init(tag: Int, leaves: [Versioned<TreeLeaf>]) { self.tag = tag; self.leaves = leaves }
}

public typealias TreeState = Versioned<TreeRoot>

/// Random trees and random mutations of them. Values are drawn from small
/// ranges so that writes often store a value equal to the old one.
public enum TreeGen {
    public static func int<G: RandomNumberGenerator>(_ rng: inout G) -> Int { Int.random(in: 0...3, using: &rng) }

    public static func leaf<G: RandomNumberGenerator>(_ rng: inout G) -> TreeLeaf {
        TreeLeaf(a: int(&rng), b: int(&rng))
    }

    public static func inner<G: RandomNumberGenerator>(_ rng: inout G) -> TreeInner {
        TreeInner(x: int(&rng), left: Versioned(leaf(&rng)), right: Versioned(leaf(&rng)))
    }

    public static func mid<G: RandomNumberGenerator>(_ rng: inout G) -> TreeMid {
        TreeMid(y: int(&rng), inner: Versioned(inner(&rng)),
                leaves: (0..<Int.random(in: 0...3, using: &rng)).map { _ in Versioned(leaf(&rng)) },
                pair: TreePair(tag: int(&rng), node: Versioned(leaf(&rng))),
                list: VersionedList((0..<Int.random(in: 2...5, using: &rng)).map { _ in int(&rng) }),
                rows: VersionedList((0..<Int.random(in: 2...4, using: &rng)).map { _ in Versioned(leaf(&rng)) }))
    }

    public static func root<G: RandomNumberGenerator>(_ rng: inout G) -> TreeRoot {
        TreeRoot(count: int(&rng), name: Bool.random(using: &rng) ? nil : ["a", "b"].randomElement(using: &rng),
                 m1: Versioned(mid(&rng)), m2: Versioned(mid(&rng)), leaf: Versioned(leaf(&rng)))
    }

    public static func state<G: RandomNumberGenerator>(_ rng: inout G) -> TreeState { Versioned(root(&rng)) }

    /// Applies one random mutation to `state` and describes it. `history`
    /// holds earlier states a mutation may restore (undo).
    @discardableResult
    public static func mutate<G: RandomNumberGenerator>(
        _ state: inout TreeState, history: [TreeState], _ rng: inout G
    ) -> String {
        let v = int(&rng)
        let first = Bool.random(using: &rng)
        func mid(_ state: inout TreeState, _ body: (inout Versioned<TreeMid>) -> Void) {
            if first { body(&state.m1) } else { body(&state.m2) }
        }
        let m = first ? "m1" : "m2"
        switch Int.random(in: 0..<48, using: &rng) {
        case 0: state.count = v; return "count = \(v)"
        case 1: state.count += 0; return "count += 0"
        case 2: let n = Bool.random(using: &rng) ? nil : "n\(v)"; state.name = n; return "name = \(n ?? "nil")"
        case 3: mid(&state) { $0.y = v }; return "\(m).y = \(v)"
        case 4: mid(&state) { $0.inner.x = v }; return "\(m).inner.x = \(v)"
        case 5: mid(&state) { $0.inner.left.a = v }; return "\(m).inner.left.a = \(v)"
        case 6: mid(&state) { $0.inner.right.b = v }; return "\(m).inner.right.b = \(v)"
        case 7: let l = leaf(&rng); mid(&state) { $0.inner.left = Versioned(l) }; return "\(m).inner.left = new \(l)"
        case 8: let l = leaf(&rng); mid(&state) { $0.inner.left.value = l }; return "\(m).inner.left.value = \(l)"
        case 9:
            var description = "\(m).leaves[?] (empty)"
            mid(&state) { node in
                if !node.leaves.isEmpty {
                    let i = Int.random(in: 0..<node.leaves.count, using: &rng)
                    node.leaves[i].a = v
                    description = "\(m).leaves[\(i)].a = \(v)"
                }
            }
            return description
        case 10: let l = leaf(&rng); mid(&state) { $0.leaves.append(Versioned(l)) }; return "\(m).leaves.append(\(l))"
        case 11: mid(&state) { if !$0.leaves.isEmpty { $0.leaves.removeLast() } }; return "\(m).leaves.removeLast()"
        case 12: mid(&state) { $0.pair.node.b = v }; return "\(m).pair.node.b = \(v)"
        case 13: mid(&state) { $0.pair.tag = v }; return "\(m).pair.tag = \(v)"
        case 14: state.leaf.a = v; return "leaf.a = \(v)"
        case 15: state.m2 = state.m1; return "m2 = m1 (aliased node)"
        case 16: let n = self.mid(&rng); mid(&state) { $0 = Versioned(n) }; return "\(m) = new subtree"
        case 17: state = self.state(&rng); return "state = new tree"
        case 18: state.value = root(&rng); return "state.value = new root value"
        case 19: mid(&state) { $0.inner.left.a = $0.inner.left.a }; return "\(m).inner.left.a = itself"
        case 20: state.m1.inner = state.m2.inner; return "m1.inner = m2.inner"
        case 21:
            guard let past = history.randomElement(using: &rng) else { return "undo (no history)" }
            state = past; return "state = past state (undo)"
        case 22: let t = state.m1; state.m1 = state.m2; state.m2 = t; return "swap m1 m2"
        case 23: bump(&state.leaf); mid(&state) { bump(&$0.inner.right) }; return "bump(leaf), bump(\(m).inner.right) inout"
        case 24:
            guard let past = history.randomElement(using: &rng) else { return "m1 = past m1 (no history)" }
            state.m1 = past.m1; return "m1 = past m1"
        case 25:
            // Generic code writing through a key path two levels deep.
            mid(&state) { $0[dynamicMember: \TreeMid.pair.tag] = v }; return "\(m)[\\.pair.tag] = \(v)"
        case 26:
            let pair = TreePair(tag: v, node: Versioned(leaf(&rng)))
            mid(&state) { $0.pair = pair }; return "\(m).pair = \(pair.tag), new node"
        case 27:
            mid(&state) { $0[dynamicMember: \TreeMid.pair.node].a = v }; return "\(m)[\\.pair.node].a = \(v)"
        case 28:
            var description = ""
            mid(&state) { node in
                let i = Int.random(in: 0..<node.list.count, using: &rng)
                node.list[i] = v
                description = "\(m).list[\(i)] = \(v)"
            }
            return description
        case 29:
            var description = ""
            mid(&state) { node in
                let i = Int.random(in: 0..<node.list.count, using: &rng)
                node.list[i] += 1
                description = "\(m).list[\(i)] += 1"
            }
            return description
        case 30: mid(&state) { $0.list.insert(v, at: 0) }; return "\(m).list.insert(\(v), at: 0)"
        case 31: mid(&state) { if $0.list.count > 2 { _ = $0.list.removeLast() } }; return "\(m).list.removeLast()"
        case 32: mid(&state) { $0.list = VersionedList([v, v, v]) }; return "\(m).list = new [\(v), \(v), \(v)]"
        case 33:
            var description = ""
            mid(&state) { node in
                let i = Int.random(in: 0..<node.rows.count, using: &rng)
                node.rows[i].a = v
                description = "\(m).rows[\(i)].a = \(v)"
            }
            return description
        case 34:
            var description = ""
            let l = leaf(&rng)
            mid(&state) { node in
                let i = Int.random(in: 0..<node.rows.count, using: &rng)
                node.rows[i] = Versioned(l)
                description = "\(m).rows[\(i)] = new \(l)"
            }
            return description
        case 35:
            var description = ""
            mid(&state) { node in
                let i = Int.random(in: 0..<node.rows.count, using: &rng)
                writeThenRestore(&node.rows[i], v)
                description = "writeThenRestore(&\(m).rows[\(i)]) inout"
            }
            return description
        case 36:
            var description = ""
            mid(&state) { node in
                let i = Int.random(in: 0..<node.rows.count, using: &rng)
                bump(&node.rows[i])
                description = "bump(&\(m).rows[\(i)]) inout"
            }
            return description
        case 37: let l = leaf(&rng); mid(&state) { $0.rows.append(Versioned(l)) }; return "\(m).rows.append(\(l))"
        case 38: mid(&state) { if $0.rows.count > 2 { _ = $0.rows.remove(at: 0) } }; return "\(m).rows.remove(at: 0)"
        case 39:
            var description = ""
            let l = leaf(&rng)
            mid(&state) { node in
                let i = Int.random(in: 0..<node.rows.count, using: &rng)
                replace(&node.rows[i], with: Versioned(l))
                description = "replace(&\(m).rows[\(i)], with: new \(l)) inout"
            }
            return description
        case 40: mid(&state) { $0.rows.swapAt(0, 1) }; return "\(m).rows.swapAt(0, 1)"
        case 41:
            // Undo of the mid node from a past state through an undo stack,
            // the past copy visited (an inout access writing nothing) while
            // the restored node is yielded: the journal's one stamp per node
            // now names the past copy's, so the restore looks like a
            // pass-through.
            guard let past = pastVersion(of: { first ? $0.m1 : $0.m2 }, in: state, history: history, &rng) else {
                return "undo \(m), visiting (no history)"
            }
            var stack = VersionedList([first ? past.m1 : past.m2])
            mid(&state) { node in
                node = stack[0]
                visit(&stack[0])
            }
            return "undo \(m) = past \(m), visiting it in an undo stack"
        case 42:
            // The same, the past copy written (one field, equal value)
            // through the undo stack before it is restored.
            guard let past = pastVersion(of: { first ? $0.m1 : $0.m2 }, in: state, history: history, &rng) else {
                return "undo \(m), touching (no history)"
            }
            var stack = VersionedList([first ? past.m1 : past.m2])
            mid(&state) { node in
                stack[0].y = stack[0].y
                node = stack[0]
            }
            return "undo \(m) = past \(m), touching its y in an undo stack"
        case 43:
            // Undo of the whole state from an undo stack of states, after a
            // first write and a visit of the past copy: the root's chain then
            // runs from the old root to the restored one.
            guard let past = pastVersion(of: { $0 }, in: state, history: history, &rng) else { return "undo state, visiting (no history)" }
            var stack = VersionedList([past])
            state.count = state.count
            visit(&stack[0])
            state = stack[0]
            return "count = itself; undo state = past, visiting it in an undo stack"
        case 44:
            // The same, the past copy written (equal value) through the stack.
            guard let past = pastVersion(of: { $0 }, in: state, history: history, &rng) else { return "undo state, touching (no history)" }
            var stack = VersionedList([past])
            state.count = state.count
            stack[0].m2.inner.right.b = stack[0].m2.inner.right.b
            state = stack[0]
            return "count = itself; undo state = past, touching its m2.inner.right.b in an undo stack"
        case 45:
            // A write through the observed child (`didSet` writes leafCache).
            state.leaf.a = (state.leaf.a + 1 + v) % 4; return "leaf.a = (leaf.a + 1 + \(v)) % 4 (didSet)"
        case 46:
            // Undo of one leaf, the past copy (in a plain struct node)
            // visited while the restored leaf is yielded.
            guard let past = pastVersion(of: { (first ? $0.m1 : $0.m2).inner.left }, in: state, history: history, &rng) else {
                return "undo \(m).inner.left, visiting (no history)"
            }
            var saved = Versioned(TreePair(tag: 0, node: (first ? past.m1 : past.m2).inner.left))
            mid(&state) { node in
                modify(&node.inner.left) { left in
                    left = saved.node
                    visit(&saved.node)
                }
            }
            return "undo \(m).inner.left = past, visiting the past copy"
        default: mid(&state) { $0.inner.value.x = v }; return "\(m).inner.value.x = \(v)"
        }
    }

    static func bump(_ leaf: inout Versioned<TreeLeaf>) { leaf.a = (leaf.a + 1) % 4 }

    /// A past state from `history` in which the node `node` selects is the
    /// same node as in `state` at another version, if there is one (an
    /// undo that changes something); else any past state; `nil` without
    /// history.
    static func pastVersion<G: RandomNumberGenerator, N: VersionedValue>(
        of node: (TreeState) -> N, in state: TreeState, history: [TreeState], _ rng: inout G
    ) -> TreeState? {
        let current = node(state)
        let older = history.filter { node($0).nodeID == current.nodeID && node($0).version != current.version }
        return older.randomElement(using: &rng) ?? history.randomElement(using: &rng)
    }

    /// One `inout` access for the length of `body`.
    static func modify<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }

    /// An `inout` access that changes nothing.
    static func visit<T>(_ value: inout T) {}

    /// One `inout` access that replaces the node with another one.
    static func replace(_ leaf: inout Versioned<TreeLeaf>, with other: Versioned<TreeLeaf>) { leaf = other }

    /// One `inout` access that writes through the node, then puts back the
    /// copy it kept: the node comes back with its identity but an older
    /// stamp, which the parent must not take for a pass-through.
    static func writeThenRestore(_ leaf: inout Versioned<TreeLeaf>, _ v: Int) {
        let saved = leaf
        leaf.a = (leaf.a + 1 + v) % 4
        leaf = saved
    }
}
