@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

// Regressions of the selection walk found by a hostile review: before the
// fix, each made the fast consumer miss an update the naive consumer
// delivers.

@Suite struct SelectionWalkRegressionTests {
    // MARK: Hole 1: a state node written (copied) inside the selector

    /// The selector copies a state node, writes the copy, and wraps it in
    /// an array. The copy has the state node's NodeID but a stamp newer than
    /// the selector's mark, so the selection walk "looks inside" it instead
    /// of recording it; `[copy] == [copy]` stops at the shared buffer, so
    /// `==` records nothing either. The only dependency left is the root's
    /// `settings` field, which a write *through* settings (a pass-through
    /// of the root) does not trigger.
    @Test func aWrittenCopyOfAStateNodeInAnArrayStaysADependency() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        pair.add("settings ignoring n", show: rowTitles) { state -> [Versioned<RRow>] in
            var copy = state.settings
            copy.n = 0
            return [copy]
        }
        pair.connect(to: store)
        _ = pair.take()

        store.dispatch(HostileEdit { $0.settings.title = "changed" })
        let (fast, naive) = pair.take()
        #expect(naive == ["settings ignoring n: s/0 -> changed/0"])
        #expect(fast == naive, "fast consumer missed the write through settings")
    }

    /// The same hole with a versioned collection selection of
    /// non-`Equatable` elements (the identity-predicted diff consumer):
    /// a selector that drops hidden rows from a copy (`removeAll(where:)`
    /// records nothing, unlike `filter`) is never re-evaluated when the
    /// store appends a row.
    @Test func aCollectionConsumerOfAListWrittenInTheSelector() {
        let store = hostileStore(RState(RApp()))
        let consumer = StateConsumer<RState>()
        var calls: [String] = []
        consumer.add({ state -> VersionedList<RDoc> in
            var visible = state.docs
            visible.removeAll { $0.hidden }
            return visible
        }) { (old: VersionedList<RDoc>?, new: VersionedList<RDoc>, changes: VersionedListChanges) in
            calls.append(new.map(\.name).joined(separator: ","))
        }
        let subscription = consumer.connect(to: store)
        #expect(calls == ["d0,d2"])

        store.dispatch(HostileEdit { $0.docs.append(RDoc(name: "d3")) })
        #expect(calls == ["d0,d2", "d0,d2,d3"], "fast consumer missed the appended row")

        store.dispatch(HostileEdit { $0.docs[0].name = "renamed" })
        #expect(calls.last == "renamed,d2,d3", "fast consumer missed the renamed row")
        _ = subscription
    }

    /// The same hole through a `VersionedList` built in the selector around
    /// a written copy (its `==` stops at the shared root).
    @Test func aWrittenCopyInsideANewVersionedList() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        pair.add("wrapped", show: { rowTitles(Array($0)) }) { state -> VersionedList<Versioned<RRow>> in
            var copy = state.a
            copy.n = 7
            return VersionedList([copy])
        }
        pair.connect(to: store)
        _ = pair.take()

        store.dispatch(HostileEdit { $0.a.title = "A!" })
        let (fast, naive) = pair.take()
        #expect(naive == ["wrapped: a/7 -> A!/7"])
        #expect(fast == naive)
    }

    // MARK: Hole 2: recursive selection types misclassified

    /// A recursive selection type (a tree of folders, each with an optional
    /// document node). Classifying `RFolder` meets `[RFolder]` while
    /// `RFolder` is in progress: the recursion answers `false` and that
    /// partial answer is cached for `[RFolder]`. From then on the selection
    /// walk skips every `children` array, so a node held only by a child
    /// folder is never a dependency, and `==` on the selection with itself
    /// stops at the shared `children` buffer.
    @Test func aRecursiveSelectionTypeIsNotCachedOnAnAssumption() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        pair.add("tree", show: { $0.render() }) { state in
            RFolder(name: "root", children: [RFolder(name: "leaf", children: [], doc: state.treeDoc)], doc: nil)
        }
        pair.connect(to: store)
        _ = pair.take()

        store.dispatch(HostileEdit { $0.treeDoc.title = "edited" })
        let (fast, naive) = pair.take()
        #expect(naive == ["tree: root[leaf(tree)] -> root[leaf(edited)]"])
        #expect(fast == naive, "fast consumer missed the write to the child folder's document")
    }
}

/// A recursive selection type, used only by the test above (the
/// classification cache is per type).
struct RFolder: Hashable {
    // NB: `children` before `doc`: the classification walks the fields in
    // order and stops at the first that can hold a node.
    var name: String
    var children: [RFolder]
    var doc: Versioned<RRow>?

    func render() -> String {
        let own = doc.map { "\(name)(\($0.title))" } ?? name
        return children.isEmpty ? own : own + "[" + children.map { $0.render() }.joined(separator: ",") + "]"
    }
}
