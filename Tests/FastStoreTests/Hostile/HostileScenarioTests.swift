@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

// Scenarios the review tried that held: the fast consumer delivers exactly
// what the naive one does.

@Suite struct HostileScenarioTests {
    /// Many selectors over every part of the review state.
    static func addEverything(_ pair: HostilePair<RState>) {
        pair.add("a.title") { $0.a.title }
        pair.add("b.title") { $0.b.title }
        pair.add("a") { $0.a.value }
        pair.add("b node", show: { rowTitles([$0]) }) { $0.b }
        pair.add("[a, b]", show: rowTitles) { [$0.a, $0.b] }
        pair.add("rows[0].title") { $0.rows[0].title }
        pair.add("rows[1]", show: { rowTitles([$0]) }) { $0.rows[1] }
        pair.add("rows.count") { $0.rows.count }
        pair.add("rows titles") { $0.rows.map(\.title) }
        pair.add("rows as array", show: rowTitles) { Array($0.rows) }
        pair.add("rows normalized", show: rowTitles) { state in
            state.rows.map { row -> Versioned<RRow> in
                var copy = row
                copy.n = 0
                return copy
            }
        }
        pair.add("items[1].node.title") { $0.items[id: 1]?.node.title ?? "-" }
        pair.add("items[1]") { $0.items[id: 1].map { "\($0.id):\($0.node.title)" } ?? "-" }
        pair.add("items ids") { $0.items.ids }
        pair.add("items as array") { Array($0.items) }
        pair.add("dict x title") { $0.dict["x"]?.title ?? "-" }
        pair.add("dict x", show: { $0.map { rowTitles([$0]) } ?? "-" }) { $0.dict["x"] }
        pair.add("dict count") { $0.dict.count }
        pair.add("plainDict k") { $0[dynamicMember: \.plainDict["k"]] ?? -1 }
        pair.add("plainDict j") { $0.plainDict["j"] ?? -1 }
        pair.add("array[0].node.title") { $0[dynamicMember: \.array[0].node].title }
        pair.add("array[1].node", show: { rowTitles([$0]) }) { $0[dynamicMember: \.array[1].node] }
        pair.add("mode title") { state -> String in
            if case .editing(let row) = state.mode { return row.title }
            return "idle"
        }
        pair.add("mode") { $0.mode }
        pair.add("pair.0.title") { $0.pair.0.title }
        pair.add("pair.0 node", show: { rowTitles([$0]) }) { $0[dynamicMember: \.pair.0] }
        pair.add("settings.title") { $0.settings.title }
        pair.add("settings wrapped", show: { rowTitles($0.values.map { $0 }) }) { ["s": $0.settings] }
        pair.add("built node", show: { rowTitles([$0.value.value.0]) }) { state in
            Versioned(RPairBox(state.settings, 1))
        }
        pair.add("counter") { $0.counter }
    }

    static func check(_ pair: HostilePair<RState>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, naive) = pair.take()
        #expect(fast == naive, "\(what)", sourceLocation: sourceLocation)
    }

    @Test func mutationsThroughEveryPath() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        Self.addEverything(pair)
        pair.connect(to: store)
        Self.check(pair, "first consume")

        let steps: [(String, (inout RState) -> Void)] = [
            ("swap child nodes a/b", { state in
                let a = state.a
                state.a = state.b
                state.b = a
            }),
            ("write through moved node", { $0.a.title = "a-after-move" }),
            ("write through b (same node as old a)", { $0.b.n += 1 }),
            ("alias: b = a, write a", { state in
                state.b = state.a
                state.a.title = "aliased"
            }),
            ("rows swapAt", { $0.rows.swapAt(0, 1) }),
            ("rows[0].title write", { $0.rows[0].title = "r-new" }),
            ("rows reverse", { $0.rows.reverse() }),
            ("rows sort", { $0.rows.sort { $0.title < $1.title } }),
            ("rows replaceSubrange", { state in
                let moved = state.rows[3]
                state.rows.replaceSubrange(0..<2, with: [moved, Versioned(RRow(title: "fresh"))])
            }),
            ("rows[1].n through node subscript", { $0.rows[1].n += 5 }),
            ("rows[1] untouched inout access", { state in
                func touch(_ row: inout Versioned<RRow>) {}
                touch(&state.rows[1])
            }),
            ("rows slice reverse", { $0.rows[1..<4].reverse() }),
            ("rows write then restore", { state in
                let saved = state.rows[2]
                state.rows[2].title = "temp"
                state.rows[2] = saved
            }),
            ("rows element replaced by itself via inout", { state in
                func replace(_ row: inout Versioned<RRow>) {
                    var copy = row
                    copy.title = "via-copy"
                    row = copy
                }
                replace(&state.rows[4])
            }),
            ("items[id:]?.node.title", { $0.items[id: 1]?.node.title = "i1-new" }),
            ("items[id:]?.node.n", { $0.items[id: 2]?.node.n += 1 }),
            ("items[id:] = nil through modify", { state in
                func drop(_ item: inout RItem?) { item = nil }
                drop(&state.items[id: 1])
            }),
            ("items[id:] reinsert through modify", { state in
                func add(_ item: inout RItem?) { item = RItem(id: 1, node: Versioned(RRow(title: "back"))) }
                add(&state.items[id: 1])
            }),
            ("items move", { $0.items.move(from: 0, to: 2) }),
            ("dict[x]?.title", { $0.dict["x"]?.title = "dx-new" }),
            ("dict[y]?.n", { $0.dict["y"]?.n += 1 }),
            ("dict[x] replaced through modify", { state in
                func swapIn(_ row: inout Versioned<RRow>?) { row = Versioned(RRow(title: "dx-other")) }
                swapIn(&state.dict["x"])
            }),
            ("dict[z] added through modify", { state in
                func add(_ row: inout Versioned<RRow>?) { row = Versioned(RRow(title: "dz")) }
                add(&state.dict["z"])
            }),
            ("plainDict via key path", { $0[dynamicMember: \.plainDict["k"]] = 10 }),
            ("plainDict direct", { $0.plainDict["j"] = 20 }),
            ("array[0].node via key path", { $0[dynamicMember: \.array[0].node].title = "arr0-new" }),
            ("array[1].node direct", { $0.array[1].node.n = 3 }),
            ("mode payload rewritten", { state in
                if case .editing(var row) = state.mode {
                    row.title = "m-new"
                    state.mode = .editing(row)
                }
            }),
            ("pair.0 via key path", { $0[dynamicMember: \.pair.0].title = "p-new" }),
            ("pair.0 direct", { $0.pair.0.n = 9 }),
            ("withUnsafeMutablePointer on a child", { state in
                withUnsafeMutablePointer(to: &state.settings) { $0.pointee.title = "via-pointer" }
            }),
            ("settings write then restore", { state in
                let saved = state.settings
                state.settings.title = "temp"
                state.settings = saved
            }),
            ("settings restored through inout", { state in
                let saved = state.settings
                func restore(_ s: inout Versioned<RRow>) {
                    s.title = "temp"
                    s = saved
                }
                restore(&state.settings)
            }),
            ("settings copy written then adopted through inout", { state in
                var copy = state.settings
                copy.title = "adopted"
                func adopt(_ s: inout Versioned<RRow>) { s = copy }
                adopt(&state.settings)
            }),
            ("value replaced", { $0.value.settings.n = 42 }),
            ("root = old copy + write", { state in
                var copy = state
                copy.counter += 1
                state.b.title = "b-lost"
                state = copy
            }),
        ]
        for (name, step) in steps {
            store.dispatch(HostileEdit(step))
            Self.check(pair, name)
        }
    }

    /// One consumer fed by two stores that share a root, interleaved; and
    /// states consumed out of order, twice, or skipped.
    @Test func twoStoresSharingARootAndOutOfOrderStates() {
        let initial = RState(RApp())
        let first = hostileStore(initial)
        let second = hostileStore(initial)
        let pair = HostilePair<RState>()
        Self.addEverything(pair)
        pair.consume(initial)
        Self.check(pair, "first")

        var kept: [RState] = [initial]
        func run(_ store: Store<RState, HostileEdit<RState>>, _ name: String, _ edit: @escaping (inout RState) -> Void) {
            store.dispatch(HostileEdit(edit))
            kept.append(store.state)
            pair.consume(store.state)
            Self.check(pair, name)
        }
        run(first, "first: a.title", { $0.a.title = "A1" })
        run(second, "second: a.title", { $0.a.title = "A2" })
        run(first, "first: rows[0]", { $0.rows[0].title = "R1" })
        run(second, "second: b.n", { $0.b.n = 5 })
        run(second, "second: settings", { $0.settings.title = "S2" })
        run(first, "first: counter", { $0.counter = 1 })

        // Skipped drains, then old states again, then newer ones.
        first.dispatch(HostileEdit { $0.items[id: 0]?.node.title = "skipped" })
        first.dispatch(HostileEdit { $0.dict["x"]?.n = 77 })
        pair.consume(first.state)
        Self.check(pair, "after two skipped drains")
        for state in [kept[0], kept[3], kept[1], kept[5], kept[2], first.state, first.state, kept[4], second.state] {
            pair.consume(state)
            Self.check(pair, "replayed state")
        }
        // A state mutated outside any store, then the store's next state.
        var outside = first.state
        outside.a.title = "outside"
        pair.consume(outside)
        Self.check(pair, "outside mutation")
        first.dispatch(HostileEdit { $0.b.title = "after-outside" })
        pair.consume(first.state)
        Self.check(pair, "store after outside mutation")
    }

    /// `consumeInstantly` and consumers added between consumes.
    @Test func consumeInstantlyAddsBetweenDrains() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        pair.fast.consumeInstantly = true
        pair.add("a.title") { $0.a.title }
        pair.connect(to: store)
        Self.check(pair, "first")
        store.dispatch(HostileEdit { $0.a.title = "x" })
        // Added now: the fast one is evaluated at once against the kept
        // state; the naive one waits for the next consume. Compare what
        // each has delivered once both have seen the next state.
        pair.add("settings.title") { $0.settings.title }
        _ = pair.take()
        store.dispatch(HostileEdit { $0.settings.title = "y" })
        let (fast, naive) = pair.take()
        #expect(fast == ["settings.title: s -> y"])
        #expect(naive == ["settings.title: nil -> y"])
    }

    /// Control for the recursive-type hole: when the array type is
    /// classified first, the same shape of selection is tracked.
    @Test func aRecursiveSelectionTypeClassifiedArrayFirst() {
        let store = hostileStore(RState(RApp()))
        let pair = HostilePair<RState>()
        pair.add("forest", show: { $0.map { $0.render() }.joined() }) { state in
            [RFolder2(name: "root", children: [RFolder2(name: "leaf", children: [], doc: state.treeDoc2)], doc: nil)]
        }
        pair.connect(to: store)
        _ = pair.take()
        store.dispatch(HostileEdit { $0.treeDoc2.title = "edited" })
        Self.check(pair, "tree doc write")
    }
}

struct RPairBox: Hashable {
    var value: (Versioned<RRow>, Int)
    init(_ a: Versioned<RRow>, _ b: Int) { value = (a, b) }
    static func == (l: Self, r: Self) -> Bool { l.value.0 == r.value.0 && l.value.1 == r.value.1 }
    func hash(into h: inout Hasher) { h.combine(value.0); h.combine(value.1) }
}

struct RFolder2: Hashable {
    // NB: `children` before `doc`: the classification walks the fields in
    // order and stops at the first that can hold a node.
    var name: String
    var children: [RFolder2]
    var doc: Versioned<RRow>?

    func render() -> String {
        let own = doc.map { "\(name)(\($0.title))" } ?? name
        return children.isEmpty ? own : own + "[" + children.map { $0.render() }.joined(separator: ",") + "]"
    }
}
