@_spi(Testing) @testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

private struct Settings: Hashable, Codable, Sendable {
    var theme = "light"
    var fontSize = 12
}

private struct Todo: Hashable, Codable, Sendable {
    var title: String
    var done = false
}

private struct TodoState: Hashable, Codable, Sendable {
    var items: [Todo] = []
    var filter = "all"
    var settings = Versioned(Settings())
    var count: Int { items.count }
}

/// The field dependency or write kind of a stored property.
private func field<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> _FieldRange {
    _FieldRange.of(keyPath)!
}

/// What a body journals: every write as (node, kind), in order.
private func journaled(_ body: () -> Void) -> [(node: NodeID, kind: _WriteKind)] {
    let journal = _WriteJournal()
    journal.record(body)
    return journal.writes
}

/// What a body reads, deduplicated in order.
private func reads(_ body: () -> Void) -> [_Dependency] {
    let recorder = _ReadRecorder()
    recorder.record(body)
    var unique: [_Dependency] = []
    for read in recorder.dependencies where !unique.contains(read) { unique.append(read) }
    return unique
}

@Suite struct VersionedTests {
    @Test func reducersCompileUnchangedThroughDynamicMembers() {
        var state = Versioned(TodoState())
        state.items.append(Todo(title: "a"))
        state.items[0].done.toggle()
        state.filter = "done"
        state.settings.theme = "dark"
        state.settings.fontSize += 2
        #expect(state.items == [Todo(title: "a", done: true)])
        #expect(state.filter == "done")
        #expect(state.settings.value == Settings(theme: "dark", fontSize: 14))
        #expect(state.count == 1)  // a read-only (computed) member
    }

    @Test func copiesShareUntilWrittenAndKeepTheirValues() {
        var state = Versioned(TodoState())
        let copy = state
        #expect(state._box === copy._box)
        state.settings.theme = "dark"
        #expect(state._box !== copy._box)
        #expect(copy.settings.theme == "light")
        #expect(state.settings.theme == "dark")
        #expect(state.nodeID == copy.nodeID)
        #expect(state.settings.nodeID == copy.settings.nodeID)
        #expect(state.version != copy.version)
    }

    @Test func aWriteStampsTheNodesOnItsPathAndNoOthers() {
        var rng = SeededGenerator(seed: 7)
        var tree = TreeGen.state(&rng)
        let before = tree
        tree.m1.inner.left.a += 1
        #expect(tree.version != before.version)
        #expect(tree.m1.version != before.m1.version)
        #expect(tree.m1.inner.version != before.m1.inner.version)
        #expect(tree.m1.inner.left.version != before.m1.inner.left.version)
        // Off the path: same stamp, same storage.
        #expect(tree.m1.inner.right.version == before.m1.inner.right.version)
        #expect(tree.m2.version == before.m2.version)
        #expect(tree.m2._box === before.m2._box)
        #expect(tree.leaf._box === before.leaf._box)
    }

    @Test func stampsNeverRepeat() {
        var node = Versioned(Settings())
        var seen: Set<VersionStamp> = [node.version]
        for i in 0..<100 {
            node.fontSize = i % 3  // equal values too take a fresh stamp
            #expect(seen.insert(node.version).inserted)
        }
        let other = Versioned(Settings())
        #expect(other.nodeID != node.nodeID)
        #expect(!seen.contains(other.version))
    }

    @Test func equalityUsesIdentityThenValues() {
        let a = Versioned(Settings())
        var b = a
        #expect(a == b)
        b.theme = "dark"
        #expect(a != b)
        b.theme = "light"  // same value again, new stamp
        #expect(a == b)
        #expect(a == Versioned(Settings()))  // another node, equal value
        #expect(Set([a, b, Versioned(Settings())]).count == 1)
    }

    @Test func codableAsThePlainValue() throws {
        let state = Versioned(TodoState(items: [Todo(title: "x")], filter: "all"))
        let data = try JSONEncoder().encode(state)
        let plain = try JSONDecoder().decode(TodoState.self, from: data)
        #expect(plain == state.value)
        let decoded = try JSONDecoder().decode(Versioned<TodoState>.self, from: data)
        #expect(decoded == state)
        #expect(decoded.nodeID != state.nodeID)
        #expect(String(describing: Versioned(Settings())) == String(describing: Settings()))
    }

    @Test func readsRecordWhatTheyTouch() {
        let state = Versioned(TodoState())
        let root = state.nodeID, settings = state.settings.nodeID
        let settingsField = _ReadKind.field(field(\TodoState.settings))
        #expect(reads { _ = state.filter } == [_Dependency(node: root, kind: .field(field(\TodoState.filter)))])
        #expect(reads { _ = state.settings.theme } == [
            _Dependency(node: root, kind: settingsField),
            _Dependency(node: settings, kind: .field(field(\Settings.theme))),
        ])
        #expect(reads { _ = state.settings } == [_Dependency(node: root, kind: settingsField)])
        #expect(reads { _ = state.count } == [_Dependency(node: root, kind: .member)])  // computed
        #expect(reads { _ = state.value } == [_Dependency(node: root, kind: .whole)])
        #expect(reads { _ = state.settings.version } == [
            _Dependency(node: root, kind: settingsField), _Dependency(node: settings, kind: .whole),
        ])
        #expect(field(\TodoState.filter) != field(\TodoState.items))
        #expect(!field(\TodoState.filter).overlaps(field(\TodoState.items)))
        #expect(field(\TreeMid.pair).overlaps(field(\TreeMid.pair.tag)))
        #expect(_FieldRange.of(\TodoState.count) == nil)
        let node = state.settings
        #expect(reads { _ = node == node } == [_Dependency(node: settings, kind: .whole)])
        #expect(reads { _ = node.nodeID }.isEmpty)
        // Nothing is recorded without a recorder installed.
        _ = state.settings.theme
    }

    @Test func writesJournalContentAtTheBottomAndPassThroughAbove() {
        var rng = SeededGenerator(seed: 7)
        var tree = TreeGen.state(&rng)
        let root = tree.nodeID, m1 = tree.m1.nodeID, inner = tree.m1.inner.nodeID, left = tree.m1.inner.left.nodeID
        var writes = journaled { tree.m1.inner.left.a += 1 }
        #expect(writes.map(\.node) == [left, inner, m1, root])
        #expect(writes.map(\.kind) == [.field(field(\TreeLeaf.a)), .passThrough, .passThrough, .passThrough])

        // Replacing a child: content where it happened.
        writes = journaled { tree.m1.inner.left = Versioned(TreeLeaf(a: 0, b: 0)) }
        #expect(writes.map(\.node) == [inner, m1, root])
        #expect(writes.map(\.kind) == [.field(field(\TreeInner.left)), .passThrough, .passThrough])

        // Replacing a child through an inout argument: the child came back
        // as another node, so the parent journals content.
        writes = journaled { Self.replace(&tree.m1.inner, with: TreeGen.inner(&rng)) }
        #expect(writes.map(\.node) == [m1, root])
        #expect(writes.map(\.kind) == [.field(field(\TreeMid.inner)), .passThrough])

        // A node inside a plain container: a field write of the
        // container's owner.
        // (The plain member journals before it yields, the node inside it
        // during, the root after.)
        writes = journaled { tree.m2.pair.node.b += 1 }
        #expect(writes.map(\.node) == [tree.m2.nodeID, tree.m2.pair.node.nodeID, root])
        #expect(writes.map(\.kind) == [.field(field(\TreeMid.pair)), .field(field(\TreeLeaf.b)), .passThrough])

        // Whole value.
        writes = journaled { tree.value.count += 1 }
        #expect(writes.map(\.node) == [root])
        #expect(writes.map(\.kind) == [.content])

        // A mutation that writes nothing journals nothing.
        writes = journaled { Self.leaveAlone(&tree.m1.inner) }
        #expect(writes.isEmpty)
    }

    @Test func aChildRestoredToAnOlderVersionIsAFieldChange() {
        var rng = SeededGenerator(seed: 7)
        var tree = TreeGen.state(&rng)
        let saved = tree.m1.inner
        tree.m1.inner.x += 1
        let writes = journaled { Self.restore(&tree.m1.inner, to: saved) }
        // Same node identity, but not the stamp the journal last saw: the
        // parent journals a change of that field, not a pass-through.
        #expect(writes.first?.node == tree.m1.nodeID)
        #expect(writes.first?.kind == .field(field(\TreeMid.inner)))
    }

    @Test func journalProvesTheRootChain() {
        var rng = SeededGenerator(seed: 7)
        var tree = TreeGen.state(&rng)
        let history = tree
        func changes(_ body: (inout TreeState) -> Void) -> _DrainChanges {
            let journal = _WriteJournal()
            let old = _RootVersion(node: tree.nodeID, version: tree.version)
            journal.record { body(&tree) }
            return _DrainChanges(journal: journal, oldRoot: old, newRoot: _RootVersion(node: tree.nodeID, version: tree.version))
        }
        #expect(changes { $0.m1.y += 1 }.isChained)
        #expect(changes { _ in }.isChained)
        #expect(!changes { $0 = history }.isChained)            // undo: not journaled
        #expect(changes { $0.m1.y += 1 }.isChained)
        #expect(!changes { $0 = history; $0.count += 1 }.isChained)  // first write not from the old root
        #expect(!changes { $0 = TreeGen.state(&rng) }.isChained)
        // A chain is proved link by link, from the new stamp back to the old
        // one: a write from a copy outside the chain does not extend it.
        let journal = _WriteJournal()
        let old = tree
        tree.count += 1  // not journaled
        let start = tree._trackingIdentity.version
        journal.record {
            tree.count += 1
            tree = old
            tree.count += 2
        }
        #expect(journal.writes.map(\.kind) == [.field(field(\TreeRoot.count)), .field(field(\TreeRoot.count))])
        #expect(!journal.chains(tree.nodeID, from: start, to: tree._trackingIdentity.version),
                "the last write started from a copy older than the start: no chain")
        #expect(journal.chains(tree.nodeID, from: old._trackingIdentity.version, to: tree._trackingIdentity.version),
                "from the copy's own stamp, the chain holds: its content is that copy's plus a journaled write")
    }

    private static func replace(_ inner: inout Versioned<TreeInner>, with value: TreeInner) {
        inner = Versioned(value)
    }
    private static func leaveAlone(_ inner: inout Versioned<TreeInner>) {}
    private static func restore(_ inner: inout Versioned<TreeInner>, to saved: Versioned<TreeInner>) {
        inner = saved
    }
}
