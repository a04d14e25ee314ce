@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

// Regression tests for the consumer's known correctness holes (issue 8),
// each driven through a real `Store` and compared with the naive reference
// (see `StoreTrio`), or with the exact callbacks expected. A consumer that
// misses an update is the failure.

private struct Settings: Hashable, Sendable {
    var theme = "light"
    var fontSize = 12
}

private struct Page: Hashable, Sendable {
    var title = "p"
}

private struct HoleRow: Hashable, Sendable, Identifiable {
    var id: Int
    var label = ""
}

private struct App: Hashable {
    var filter = "all"
    var settings = Versioned(Settings())
    var useSettings = true
    var items = VersionedList<Int>([1, 2, 3])
    var rows = IdentifiedList<HoleRow>([HoleRow(id: 1, label: "a")])
    var dict: VersionedDictionary<String, Int> = ["a": 1]
    var pages = VersionedList<Versioned<Page>>([Versioned(Page(title: "first"))])
    var ratio = Double.nan

    /// The settings in use, if any: an optional node from a computed
    /// property.
    var activeSettings: Versioned<Settings>? { useSettings ? settings : nil }
}

/// A plain `Equatable` struct holding an array of nodes (synthesized `==`).
private struct SettingsGroup: Hashable {
    var nodes: [Versioned<Settings>]
}

/// An enum wrapping a node (synthesized `==`).
private enum Wrapped: Hashable {
    case settings(Versioned<Settings>)
}

/// A row of an identified list holding a node.
private struct NodeRow: Hashable, Identifiable {
    var id: Int
    var node: Versioned<Settings>
}

// MARK: - 1. A node inside a container is the selection

/// `selection == selection` on a container whose storage is shared with
/// itself short-circuits before reaching the node, so the node inside it is
/// never recorded; a write through the node must still be delivered.
@Suite struct ConsumerHoleNodeInContainerTests {
    /// Selects `select`, then writes through `state.settings` twice: both
    /// consumers must match the naive one, which sees both writes.
    private static func writesThroughTheNodeAreSeen<T: Hashable>(
        _ name: String, _ select: @escaping (Versioned<App>) -> T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let trio = StoreTrio(App())
        trio.add(name, select)
        trio.start()
        #expect(trio.check("start", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        trio.dispatch { $0.settings.theme = "dark" }
        #expect(trio.check("settings.theme = dark", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        trio.dispatch { $0.settings.fontSize += 1 }
        #expect(trio.check("settings.fontSize += 1", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        // A write elsewhere changes nothing for either.
        trio.dispatch { $0.filter = "done" }
        #expect(trio.check("filter = done", sourceLocation: sourceLocation).isEmpty, sourceLocation: sourceLocation)
    }

    @Test func aNodeInAnArray() {
        Self.writesThroughTheNodeAreSeen("[settings]") { [$0.settings] }
    }

    @Test func aNodeInADictionary() {
        Self.writesThroughTheNodeAreSeen("[k: settings]") { ["k": $0.settings] }
    }

    /// Passes today: building the set hashes the node, which reads its
    /// whole value. Kept as a guard.
    @Test func aNodeInASet() {
        Self.writesThroughTheNodeAreSeen("Set([settings])") { Set([$0.settings]) }
    }

    @Test func aNodeInAnArrayInAStruct() {
        Self.writesThroughTheNodeAreSeen("SettingsGroup([settings])") { SettingsGroup(nodes: [$0.settings]) }
    }

    @Test func aNodeInNestedArrays() {
        Self.writesThroughTheNodeAreSeen("[[settings]]") { [[$0.settings]] }
    }

    @Test func anOptionalNodeInAnArray() {
        Self.writesThroughTheNodeAreSeen("[Optional(settings)]") { [Optional($0.settings)] }
    }

    @Test func aNodeInAVersionedList() {
        Self.writesThroughTheNodeAreSeen("VersionedList([settings])") { VersionedList([$0.settings]) }
    }

    @Test func aNodeInAVersionedDictionary() {
        Self.writesThroughTheNodeAreSeen("VersionedDictionary([k: settings])") {
            VersionedDictionary(uniqueKeysWithValues: [("k", $0.settings)])
        }
    }

    @Test func aNodeInAnIdentifiedList() {
        Self.writesThroughTheNodeAreSeen("IdentifiedList([NodeRow(settings)])") {
            IdentifiedList([NodeRow(id: 1, node: $0.settings)])
        }
    }

    /// Guards: wrappers whose `==` reaches the node's own `==`.
    @Test func aNodeInAnOptional() {
        Self.writesThroughTheNodeAreSeen("Optional.some(settings)") { Optional.some($0.settings) }
    }

    @Test func aNodeInAnEnum() {
        Self.writesThroughTheNodeAreSeen("Wrapped.settings(settings)") { Wrapped.settings($0.settings) }
    }

    /// A node element of a versioned list inside an array.
    @Test func aListElementNodeInAnArray() {
        let trio = StoreTrio(App())
        trio.add("[pages[0]]") { [$0.pages[0]] }
        trio.start()
        trio.check("start")
        trio.dispatch { $0.pages[0].title = "edited" }
        #expect(trio.check("pages[0].title = edited").count == 1)
    }
}

// MARK: - 2. Public reads that record nothing

/// Public reads of a versioned value must record a read, so that a write
/// changing their result re-runs the selector.
@Suite struct ConsumerHoleUnrecordedReadTests {
    /// Selects `select`, then runs `edit`: both consumers must match the
    /// naive one, which must see a change.
    private static func editIsSeen<T: Hashable>(
        _ name: String, _ select: @escaping (Versioned<App>) -> T,
        after edit: @escaping (inout Versioned<App>) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let trio = StoreTrio(App())
        trio.add(name, select)
        trio.start()
        trio.check("start", sourceLocation: sourceLocation)
        trio.dispatch(edit)
        #expect(trio.check("the edit", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        trio.dispatch { $0.filter = "done" }
        #expect(trio.check("filter = done", sourceLocation: sourceLocation).isEmpty, sourceLocation: sourceLocation)
    }

    @Test func stringReflectingANode() {
        Self.editIsSeen("String(reflecting: settings)", { String(reflecting: $0.settings) }, after: { $0.settings.theme = "dark" })
    }

    @Test func debugDescriptionOfANode() {
        Self.editIsSeen("settings.debugDescription", { $0.settings.debugDescription }, after: { $0.settings.theme = "dark" })
    }

    /// What string interpolation of an optional node (`"\(node)"`)
    /// produces: `Optional`'s description is the node's debug description.
    @Test func describingAnOptionalNode() {
        Self.editIsSeen("String(describing: activeSettings)", { String(describing: $0.activeSettings) },
                        after: { $0.settings.theme = "dark" })
    }

    @Test func mirrorOfANode() {
        Self.editIsSeen("Mirror of settings", { reflectedDescription($0.settings) }, after: { $0.settings.theme = "dark" })
    }

    @Test func dumpOfANode() {
        Self.editIsSeen("dump(settings)", { state -> String in
            var text = ""
            dump(state.settings, to: &text)
            return text
        }, after: { $0.settings.theme = "dark" })
    }

    @Test func underestimatedCountOfAVersionedList() {
        Self.editIsSeen("items.underestimatedCount", { $0.items.underestimatedCount }, after: { $0.items.append(4) })
    }

    @Test func underestimatedCountOfAnIdentifiedList() {
        Self.editIsSeen("rows.underestimatedCount", { $0.rows.underestimatedCount }, after: { $0.rows.append(HoleRow(id: 2)) })
    }

    @Test func underestimatedCountOfAVersionedDictionary() {
        Self.editIsSeen("dict.underestimatedCount", { $0.dict.underestimatedCount }, after: { $0.dict["b"] = 2 })
    }

    /// A "changed since saved" flag: the list saved outside the store, the
    /// state's list diffed against it.
    @Test func differenceOfAVersionedListFromASavedOne() {
        let saved = App().items
        let trio = StoreTrio(App(items: saved))
        trio.add("items changed since saved") { !$0.items.difference(from: saved).isEmpty }
        trio.start()
        #expect(trio.check("start") == [ConsumerEvent(id: 0, old: nil, new: false)])
        trio.dispatch { $0.items.append(4) }
        #expect(trio.check("items.append(4)") == [ConsumerEvent(id: 0, old: false, new: true)])
        // Back to the saved elements: whatever the diff says, both
        // consumers must agree with the naive one.
        trio.dispatch { $0.items.removeLast() }
        trio.check("items.removeLast()")
    }

    @Test func differenceOfAnIdentifiedListFromASavedOne() {
        let saved = App().rows
        let trio = StoreTrio(App(rows: saved))
        trio.add("rows changed since saved") { !$0.rows.difference(from: saved).isEmpty }
        trio.start()
        #expect(trio.check("start") == [ConsumerEvent(id: 0, old: nil, new: false)])
        trio.dispatch { $0.rows.append(HoleRow(id: 2)) }
        #expect(trio.check("rows.append") == [ConsumerEvent(id: 0, old: false, new: true)])
    }

    @Test func differenceOfAVersionedDictionaryFromASavedOne() {
        let saved = App().dict
        let trio = StoreTrio(App(dict: saved))
        trio.add("dict changed since saved") { !$0.dict.difference(from: saved).isEmpty }
        trio.start()
        #expect(trio.check("start") == [ConsumerEvent(id: 0, old: nil, new: false)])
        trio.dispatch { $0.dict["b"] = 2 }
        #expect(trio.check("dict[b] = 2") == [ConsumerEvent(id: 0, old: false, new: true)])
    }

    /// The diff the other way round (the state's list as the older side).
    @Test func differenceOfASavedListFromTheStatesOne() {
        let saved = App().items
        let trio = StoreTrio(App(items: saved))
        trio.add("saved differs from items") { !saved.difference(from: $0.items).isEmpty }
        trio.start()
        trio.check("start")
        trio.dispatch { $0.items[0] = 9 }
        #expect(trio.check("items[0] = 9") == [ConsumerEvent(id: 0, old: false, new: true)])
    }
}

// MARK: - 3. Journal aliasing: another copy of a node passed inout

/// Copies of the state kept outside the store, as an undo history does.
private final class UndoHistory {
    /// An older copy of the whole state (same root identity).
    var savedState: Versioned<App>
    /// Older copies of the settings node, as an undo stack of nodes.
    var settingsStack: VersionedList<Versioned<Settings>>
    /// Older copies of the whole state, as an undo stack of states.
    var stateStack: VersionedList<Versioned<App>>
    /// Older copies of the first page node.
    var pageStack: VersionedList<Versioned<Page>>
    /// A plain stack of settings nodes.
    var plainStack: [Versioned<Settings>]

    init(_ state: Versioned<App>) {
        savedState = state
        settingsStack = VersionedList([state.settings])
        stateStack = VersionedList([state])
        pageStack = VersionedList([state.pages[0]])
        plainStack = [state.settings]
    }
}

/// `x.settings.theme = x.settings.theme`: writes through `x.settings`
/// without changing it.
private func touch(_ state: inout Versioned<App>) {
    state.settings.theme = state.settings.theme
}

/// Restoring an older copy of a subtree (or of the whole state) must always
/// be delivered, whatever the reducer did to other copies of the same node
/// meanwhile: the journal keeps one stamp per node, and an `inout` access to
/// another copy overwrites it.
@Suite struct ConsumerHoleJournalAliasingTests {
    /// A store at theme "light", its state saved into an ``UndoHistory``,
    /// then set to "dark"; consumers of the theme and the font size.
    private static func darkStoreWithHistory() -> (StoreTrio<App>, UndoHistory) {
        let trio = StoreTrio(App())
        let history = UndoHistory(trio.store.state)
        trio.add("settings.theme") { $0.settings.theme }
        trio.add("settings.fontSize") { $0.settings.fontSize }
        trio.add("filter") { $0.filter }
        trio.start()
        trio.check("start")
        trio.dispatch { $0.settings.theme = "dark" }
        #expect(trio.check("theme = dark") == [ConsumerEvent(id: 0, old: "light", new: "dark")])
        return (trio, history)
    }

    /// Runs `restore`, which must bring the theme back to "light", and
    /// expects every consumer to see it.
    private static func restoreIsSeen(
        _ restore: @escaping (inout Versioned<App>, UndoHistory) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (trio, history) = darkStoreWithHistory()
        trio.dispatch { restore(&$0, history) }
        #expect(trio.store.state.settings.theme == "light", "the restore restores", sourceLocation: sourceLocation)
        let events = trio.check("the restore", sourceLocation: sourceLocation)
        #expect(events.contains(ConsumerEvent(id: 0, old: "dark", new: "light")), sourceLocation: sourceLocation)
        // And the consumers keep working afterwards.
        trio.dispatch { $0.settings.theme = "blue" }
        #expect(trio.check("theme = blue", sourceLocation: sourceLocation) == [ConsumerEvent(id: 0, old: "light", new: "blue")],
                sourceLocation: sourceLocation)
    }

    // Failing orderings: the saved copy is visited (an inout child access
    // that writes nothing) while the restored node is yielded, so the
    // journal's last stamp for the node is the saved copy's.

    @Test func assignTheSavedNodeThenVisitTheSavedCopy() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                settings = history.savedState.settings
                visit(&history.savedState.settings)
            }
        }
    }

    @Test func visitTheSavedCopyThenAssignIt() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                visit(&history.savedState.settings)
                settings = history.savedState.settings
            }
        }
    }

    @Test func restoreFromANodeStackVisitingTheSavedElement() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                settings = history.settingsStack[0]
                visit(&history.settingsStack[0])
            }
        }
    }

    /// The saved copy is written (another field, equal value) through the
    /// undo stack before being restored.
    @Test func restoreFromANodeStackAfterTouchingAnotherField() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                history.settingsStack[0].fontSize = history.settingsStack[0].fontSize
                settings = history.settingsStack[0]
            }
        }
    }

    /// The same trick on a node element of a versioned list.
    @Test func restoreAListElementNodeVisitingTheSavedCopy() {
        let trio = StoreTrio(App())
        let history = UndoHistory(trio.store.state)
        trio.add("pages[0].title") { $0.pages[0].title }
        trio.start()
        trio.check("start")
        trio.dispatch { $0.pages[0].title = "edited" }
        #expect(trio.check("title = edited") == [ConsumerEvent(id: 0, old: "first", new: "edited")])
        trio.dispatch { state in
            modify(&state.pages[0]) { page in
                page = history.pageStack[0]
                visit(&history.pageStack[0])
            }
        }
        #expect(trio.store.state.pages[0].title == "first")
        #expect(trio.check("restore pages[0]") == [ConsumerEvent(id: 0, old: "edited", new: "first")])
    }

    /// The whole state restored from an undo stack of states after a first
    /// write and a visit of the saved state: the root's journaled chain then
    /// runs from the old root to the restored one, as if written in place.
    @Test func restoreTheWholeStateVisitingTheSavedCopy() {
        Self.restoreIsSeen { state, history in
            state.filter = "undone"
            visit(&history.stateStack[0])
            state = history.stateStack[0]
        }
    }

    /// The same, the saved state touched (another field, equal value)
    /// through the undo stack rather than visited.
    @Test func restoreTheWholeStateTouchingTheSavedCopy() {
        Self.restoreIsSeen { state, history in
            state.filter = "undone"
            history.stateStack[0].settings.fontSize = history.stateStack[0].settings.fontSize
            state = history.stateStack[0]
        }
    }

    // Orderings the journal already sees through (kept as guards).

    /// `touch` writes through the saved copy of the whole state (same root
    /// identity): the root's chain breaks.
    @Test func assignTheSavedNodeThenTouchTheSavedState() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                settings = history.savedState.settings
                touch(&history.savedState)
            }
        }
    }

    @Test func touchTheSavedStateThenAssignItsNode() {
        Self.restoreIsSeen { state, history in
            modify(&state.settings) { settings in
                touch(&history.savedState)
                settings = history.savedState.settings
            }
        }
    }

    /// Visiting the saved copy before the restored node is yielded: the
    /// yield notes the current stamp again.
    @Test func visitTheSavedCopyBeforeTheInoutAccess() {
        Self.restoreIsSeen { state, history in
            visit(&history.savedState.settings)
            modify(&state.settings) { $0 = history.savedState.settings }
        }
    }

    // Natural undo and redo.

    @Test func undoByAssigningTheSavedNode() {
        Self.restoreIsSeen { state, history in state.settings = history.plainStack.removeLast() }
    }

    @Test func undoByAssigningTheSavedNodeThroughAnInoutAccess() {
        Self.restoreIsSeen { state, history in modify(&state.settings) { $0 = history.settingsStack[0] } }
    }

    @Test func undoByAssigningTheSavedState() {
        Self.restoreIsSeen { state, history in state = history.savedState }
    }

    @Test func undoThenRedo() {
        let (trio, history) = Self.darkStoreWithHistory()
        var redo: [Versioned<Settings>] = []
        trio.dispatch { state in
            redo.append(state.settings)
            state.settings = history.plainStack.removeLast()
        }
        #expect(trio.check("undo") == [ConsumerEvent(id: 0, old: "dark", new: "light")])
        trio.dispatch { state in
            history.plainStack.append(state.settings)
            state.settings = redo.removeLast()
        }
        #expect(trio.check("redo") == [ConsumerEvent(id: 0, old: "light", new: "dark")])
        trio.dispatch { state in state = history.savedState }
        #expect(trio.check("undo to the saved state") == [ConsumerEvent(id: 0, old: "dark", new: "light")])
    }
}

// MARK: - 4. Observed and computed child properties

private struct Observed: Hashable {
    var count = 1
    var items = VersionedList<Int>([1]) { didSet { count = items.count } }
    var cachedTheme = "light"
    var settings = Versioned(Settings()) { didSet { cachedTheme = settings.theme } }
    var edits = 0
    var watched = Versioned(Settings()) { willSet { edits += 1 } }
    var pages = [Versioned(Page(title: "a")), Versioned(Page(title: "b"))]
    var index = 0
    var lastEdited = ""
    var current: Versioned<Page> {
        get { pages[index] }
        set {
            pages[index] = newValue
            lastEdited = newValue.title
        }
    }
}

/// Child nodes declared with `didSet`/`willSet`, and settable computed
/// properties returning a child: a write through them also writes the
/// parent's other fields (`MemoryLayout.offset(of:)` is nil for them).
@Suite struct ConsumerHoleObservedChildTests {
    private static func editIsSeen<T: Hashable>(
        _ name: String, _ select: @escaping (Versioned<Observed>) -> T,
        after edit: @escaping (inout Versioned<Observed>) -> Void, expected: [ConsumerEvent],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let trio = StoreTrio(Observed())
        trio.add(name, select)
        trio.start()
        trio.check("start", sourceLocation: sourceLocation)
        trio.dispatch(edit)
        #expect(trio.check("the edit", sourceLocation: sourceLocation) == expected, sourceLocation: sourceLocation)
    }

    @Test func aListWithDidSet() {
        Self.editIsSeen("count", { $0.count }, after: { $0.items.append(2) },
                        expected: [ConsumerEvent(id: 0, old: 1, new: 2)])
    }

    @Test func aNodeWithDidSet() {
        Self.editIsSeen("cachedTheme", { $0.cachedTheme }, after: { $0.settings.theme = "dark" },
                        expected: [ConsumerEvent(id: 0, old: "light", new: "dark")])
    }

    @Test func aNodeWithWillSet() {
        Self.editIsSeen("edits", { $0.edits }, after: { $0.watched.theme = "dark" },
                        expected: [ConsumerEvent(id: 0, old: 0, new: 1)])
    }

    @Test func aSettableComputedChild() {
        Self.editIsSeen("lastEdited", { $0.lastEdited }, after: { $0.current.title = "x" },
                        expected: [ConsumerEvent(id: 0, old: "", new: "x")])
    }

    /// Guard: the child itself, read through the computed property.
    @Test func aSettableComputedChildsOwnField() {
        Self.editIsSeen("current.title", { $0.current.title }, after: { $0.current.title = "x" },
                        expected: [ConsumerEvent(id: 0, old: "a", new: "x")])
    }

    /// Guard: assigning the observed child (not writing through it).
    @Test func assigningANodeWithDidSet() {
        Self.editIsSeen("cachedTheme", { $0.cachedTheme }, after: { $0.settings = Versioned(Settings(theme: "dark")) },
                        expected: [ConsumerEvent(id: 0, old: "light", new: "dark")])
    }
}

// MARK: - 5. consumeInstantly after a store

private struct Filtered: Hashable {
    var filter: String
}

/// A consumer added with `consumeInstantly` on is evaluated against the
/// last state this consumer consumed, and keeps firing afterwards, whatever
/// it was connected to before.
@Suite struct ConsumerHoleConsumeInstantlyTests {
    @Test func afterTheStoreSubscriptionIsCancelled() {
        let storeA = editStore(Filtered(filter: "A0"))
        let storeB = editStore(Filtered(filter: "B0"))
        let consumer = StateConsumer<Versioned<Filtered>>()
        consumer.consumeInstantly = true
        let subscriptionA = consumer.connect(to: storeA)
        subscriptionA.cancel()

        // Fed by hand.
        var state = Versioned(Filtered(filter: "H1"))
        consumer.consume(newState: state)
        var log: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in log.append("\(old ?? "nil")->\(new)") }
        #expect(log == ["nil->H1"], "evaluated against the state consumed last, not store A's")
        state.filter = "H2"
        consumer.consume(newState: state)
        #expect(log == ["nil->H1", "H1->H2"])
        storeA.dispatch(Edit { $0.filter = "A1" })
        #expect(log == ["nil->H1", "H1->H2"], "store A is disconnected")

        // Then from store B, through the raw subscription pattern.
        consumer.consume(newState: storeB.state)
        let subscriptionB = storeB.subscribe { consumer.consume(newState: $0) }
        #expect(log == ["nil->H1", "H1->H2", "H2->B0"])
        var added: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in added.append("\(old ?? "nil")->\(new)") }
        #expect(added == ["nil->B0"], "evaluated against the state consumed last, not store A's")
        storeB.dispatch(Edit { $0.filter = "B1" })
        #expect(log == ["nil->H1", "H1->H2", "H2->B0", "B0->B1"])
        #expect(added == ["nil->B0", "B0->B1"], "keeps firing on store B's drains")
        subscriptionB.cancel()
    }

    @Test func connectedToTwoStores() {
        let storeA = editStore(Filtered(filter: "A0"))
        let storeB = editStore(Filtered(filter: "B0"))
        let consumer = StateConsumer<Versioned<Filtered>>()
        consumer.consumeInstantly = true
        var log: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in log.append("\(old ?? "nil")->\(new)") }
        let subscriptionA = consumer.connect(to: storeA)
        let subscriptionB = consumer.connect(to: storeB)
        #expect(log == ["nil->A0", "A0->B0"])
        storeA.dispatch(Edit { $0.filter = "A1" })
        #expect(log == ["nil->A0", "A0->B0", "B0->A1"])

        // The last consumed state is store A's.
        var added: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in added.append("\(old ?? "nil")->\(new)") }
        #expect(added == ["nil->A1"], "evaluated against the state consumed last (store A's), not the last connected store's")
        storeA.dispatch(Edit { $0.filter = "A2" })
        #expect(log.last == "A1->A2")
        #expect(added == ["nil->A1", "A1->A2"], "keeps firing on store A's drains")
        storeB.dispatch(Edit { $0.filter = "B1" })
        #expect(log.last == "A2->B1")
        #expect(added == ["nil->A1", "A1->A2", "A2->B1"])

        // Now store B's state is the last consumed.
        var third: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in third.append("\(old ?? "nil")->\(new)") }
        #expect(third == ["nil->B1"])
        subscriptionA.cancel()
        subscriptionB.cancel()
    }
}

// MARK: - 6. VersionedDictionary diff consumer with Equatable values

/// A collection consumer with the structural diff fires, for `Equatable`
/// values, only when the contents changed (as every `Equatable` selection
/// does): not on a write of an equal value.
@Suite struct ConsumerHoleDictionaryDiffTests {
    @Test func aDictionaryConsumerIgnoresAWriteOfAnEqualValue() {
        let store = editStore(App())
        let consumer = StateConsumer<Versioned<App>>()
        var log: [String] = []
        consumer.add({ $0.dict }) { old, new, changes in
            log.append("\(old.map { "\($0)" } ?? "nil")->\(new) \(changes.updated)")
        }
        let subscription = consumer.connect(to: store)
        #expect(log == ["nil->[a: 1] []"])
        store.dispatch(Edit { $0.dict["a"] = $0.dict["a"] })
        #expect(log.count == 1, "an equal value written: \(log)")
        store.dispatch(Edit { $0.dict["a"] = 2 })
        #expect(log.last == "[a: 1]->[a: 2] [\"a\"]")
        subscription.cancel()
    }

    /// Guards: the list consumers already behave so.
    @Test func aListConsumerIgnoresAWriteOfAnEqualValue() {
        let store = editStore(App())
        let consumer = StateConsumer<Versioned<App>>()
        var count = 0
        consumer.add({ $0.items }) { _, _, _ in count += 1 }
        let subscription = consumer.connect(to: store)
        store.dispatch(Edit { $0.items[0] = $0.items[0] })
        #expect(count == 1)
        store.dispatch(Edit { $0.items[0] = 7 })
        #expect(count == 2)
        subscription.cancel()
    }

    @Test func anIdentifiedListConsumerIgnoresAWriteOfAnEqualValue() {
        let store = editStore(App())
        let consumer = StateConsumer<Versioned<App>>()
        var count = 0
        consumer.add({ $0.rows }) { _, _, _ in count += 1 }
        let subscription = consumer.connect(to: store)
        store.dispatch(Edit { $0.rows[id: 1] = $0.rows[id: 1] })
        #expect(count == 1)
        store.dispatch(Edit { $0.rows[id: 1]?.label = "b" })
        #expect(count == 2)
        subscription.cancel()
    }
}

// MARK: - 7. A selection not equal to itself

/// Never equal to anything, itself included.
private struct NeverEqual: Hashable {
    var value: Int
    static func == (lhs: NeverEqual, rhs: NeverEqual) -> Bool { false }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// The naive consumer calls back at every consume a consumer whose
/// selection is not equal to itself; the fast one must too.
@Suite struct ConsumerHoleSelfUnequalSelectionTests {
    private static func calledAtEveryConsume<T: Hashable>(
        _ name: String, _ select: @escaping (Versioned<App>) -> T, log: @escaping (T) -> AnyHashable,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let trio = StoreTrio(App())
        trio.add(name, select, log: log)
        trio.start()
        trio.check("start", sourceLocation: sourceLocation)
        trio.dispatch { $0.filter = "done" }
        #expect(trio.check("a write elsewhere", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        trio.dispatch { _ in }
        #expect(trio.check("no write", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
        trio.dispatch { $0.settings.fontSize += 1 }
        #expect(trio.check("a write of what it reads", sourceLocation: sourceLocation).count == 1, sourceLocation: sourceLocation)
    }

    @Test func aNaNSelection() {
        Self.calledAtEveryConsume("ratio", { $0.ratio }, log: { AnyHashable("\($0)") })
    }

    @Test func aSelectionWhoseEqualityIsAlwaysFalse() {
        Self.calledAtEveryConsume("NeverEqual(fontSize)", { NeverEqual(value: $0.settings.fontSize) }, log: { AnyHashable($0.value) })
    }
}
