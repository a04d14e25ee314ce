@_spi(Testing) import FastStore
import Observation
import FastStoreTestSupport
import Testing

/// A reducer that restores an earlier published state (`state = saved`)
/// publishes a root that looks older than the one before it (the saved
/// root's node at its old stamp). Every scope watcher must be told, and the
/// change back after it too.
@Suite struct ScopeRestoreTests {
    enum Action: Sendable {
        case app(ScopeAppAction)
        case restore(ScopeApp)
    }

    static func makeStore() -> Store<ScopeApp, Action> {
        let rows = IdentifiedList((0..<8).map { ScopeRow(id: $0, title: "row \($0)") })
        return Store(state: ScopeApp(ScopeAppState(rows: rows))) { state, action in
            switch action {
            case .app(let action): scopeReducer(&state, action)
            case .restore(let saved): state = saved
            }
        }
    }

    @Test func aScopeSubscriberIsToldOfARestoreAndOfTheChangeBack() {
        let store = Self.makeStore()
        let saved = store.state
        let row = store.scope(state: { $0.rows[id: 2]?.done }, action: { Action.app(.row(2, $0)) })
        let settings = store.scope(state: \.settings, action: { Action.app(.settings($0)) })
        var done: [Bool?] = []
        var themes: [String] = []
        let a = row.subscribe { done.append($0) }
        let b = settings.subscribe { themes.append($0.theme) }

        store.dispatch(.app(.row(2, .toggle)))
        store.dispatch(.app(.settings(.setTheme("dark"))))
        #expect(done == [true])
        #expect(themes == ["dark"])
        store.dispatch(.restore(saved))
        #expect(done == [true, false])
        #expect(themes == ["dark", "light"])
        #expect(row.state == false)
        store.dispatch(.app(.row(2, .toggle)))
        store.dispatch(.app(.settings(.setTheme("dark"))))
        #expect(done == [true, false, true])
        #expect(themes == ["dark", "light", "dark"])
        withExtendedLifetime((a, b)) {}
    }

    @Test func aConsumerConnectedToAScopeSeesARestore() {
        let store = Self.makeStore()
        let saved = store.state
        let row = store.scope(state: { $0.rows[id: 5] }, action: { Action.app(.row(5, $0)) })
        let consumer = StateConsumer<ScopeRow?>()
        var seen: [Bool?] = []
        consumer.add({ $0?.done }) { (_: Bool??, new: Bool?) in seen.append(new) }
        let subscription = consumer.connect(to: row)
        store.dispatch(.app(.row(5, .toggle)))
        store.dispatch(.restore(saved))
        store.dispatch(.app(.row(5, .toggle)))
        #expect(seen == [false, true, false, true])
        withExtendedLifetime(subscription) {}
    }

    @Test func observationOfAScopeSeesARestore() {
        let store = Self.makeStore()
        let saved = store.state
        let row = store.scope(state: { $0.rows[id: 1]?.done }, action: { Action.app(.row(1, $0)) })
        let fired = Shared(0)
        func track() {
            withObservationTracking { _ = row.state } onChange: { fired.mutate { $0 += 1 } }
        }
        track()
        store.dispatch(.app(.row(1, .toggle)))
        #expect(fired.value == 1)
        track()
        store.dispatch(.restore(saved))
        #expect(fired.value == 2)
        #expect(row.state == false)
        track()
        store.dispatch(.app(.row(1, .toggle)))
        #expect(fired.value == 3)
    }

    /// Restores at random among every published state, on scopes at three
    /// depths, against the scope's value read from the root after each
    /// dispatch (the reference: compare everything).
    @Test(arguments: [11, 29, 57] as [UInt64])
    func restoresOfAnyEarlierStateAgainstAReference(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let store = Self.makeStore()
        var published = [store.state]
        let settings = store.scope(state: \.settings, action: { Action.app(.settings($0)) })
        let theme = settings.scope(state: \.theme, action: { (a: ScopeSettingsAction) in a })
        let row = store.scope(state: { $0.rows[id: 3] }, action: { Action.app(.row(3, $0)) })
        var lastTheme = theme.state
        var lastRow = row.state
        var lastSettings = settings.state
        let a = theme.subscribe { lastTheme = $0 }
        let b = row.subscribe { lastRow = $0 }
        let c = settings.subscribe { lastSettings = $0 }
        for _ in 0..<400 {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: store.dispatch(.restore(published[Int.random(in: 0..<published.count, using: &random)]))
            case 1: store.dispatch(.app(.settings(.setTheme(["light", "dark", "blue"].randomElement(using: &random)!))))
            case 2: store.dispatch(.app(.row(Int.random(in: 2...4, using: &random), .toggle)))
            case 3: store.dispatch(.app(.settings(.setFontSize(Int.random(in: 10...12, using: &random)))))
            case 4: store.dispatch(.app(.increment))
            default: store.dispatch(.app(.row(3, .rename(["a", "b"].randomElement(using: &random)!))))
            }
            published.append(store.state)
            #expect(lastTheme == store.state.settings.theme)
            #expect(lastRow == store.state.rows[id: 3])
            #expect(lastSettings.theme == store.state.settings.theme)
            #expect(lastSettings.fontSize == store.state.settings.fontSize)
        }
        withExtendedLifetime((a, b, c)) {}
    }
}
