@_spi(Testing) import FastStore
import Testing

// ReSwiftConsumer's own selector forms on FastStore's StateConsumer: the
// selector takes the optional state (`{ state in state?.foreground }`), with
// every callback shape of ReSwiftConsumer's `add`; next to FastStore's
// `{ $0.counter }` forms, which must still resolve without ambiguity.

private struct PageAppState: Equatable {
    var foreground = false
}

private enum PageAppAction { case setForeground(Bool) }

private func pageAppReducer(_ state: inout PageAppState, _ action: PageAppAction) {
    switch action { case .setForeground(let value): state.foreground = value }
}

private struct MainState: Equatable {
    var count: Int = 10
}

private enum MainAction { case increaseCount }

private func mainReducer(_ state: inout MainState, _ action: MainAction) {
    switch action { case .increaseCount: state.count += 1 }
}

/// ReSwiftConsumer's second README example (`MainVc`), its consumer lines
/// unchanged, over FastStore's `Store` and `StateConsumer`.
private final class MainScreen {
    let appConsumer = StateConsumer<PageAppState>()
    let pageConsumer = StateConsumer<MainState>()
    var log: [String] = []
    private var subscriptions: [StoreSubscription] = []

    func bind(appStore: Store<PageAppState, PageAppAction>, pageStore: Store<MainState, MainAction>) {
        appConsumer.add({state in state?.foreground},  onForegroundChanged)
        pageConsumer.add({state in state?.count}, onCountChanged)
        subscriptions = [appConsumer.connect(to: appStore), pageConsumer.connect(to: pageStore)]
    }

    private func onForegroundChanged(curr: Bool) {
        log.append("AppState-  foreground \(curr)")
    }

    private func onCountChanged(prev: Int?, curr: Int) {
        log.append("MainState-  count: \(curr)")
    }
}

private struct Screen: Equatable {
    var count = 0
    var title: String? = nil
    var tags: [String] = []
    var unrelated = 0
}

private enum ScreenAction { case count(Int), title(String?), tags([String]), unrelated }

private func screenReducer(_ state: inout Versioned<Screen>, _ action: ScreenAction) {
    switch action {
    case .count(let value): state.count = value
    case .title(let value): state.title = value
    case .tags(let value): state.tags = value
    case .unrelated: state.unrelated += 1
    }
}

@Suite struct StateConsumerOptionalStateTests {
    @Test func readmePageExampleCompilesAndRuns() {
        let appStore = Store(state: PageAppState(), reducer: pageAppReducer)
        let pageStore = Store(state: MainState(), reducer: mainReducer)
        let screen = MainScreen()
        screen.bind(appStore: appStore, pageStore: pageStore)
        #expect(screen.log == ["AppState-  foreground false", "MainState-  count: 10"],
                "the first consume reports each non-nil selection")

        appStore.dispatch(.setForeground(true))
        pageStore.dispatch(.increaseCount)
        appStore.dispatch(.setForeground(true))
        pageStore.dispatch(.increaseCount)
        appStore.dispatch(.setForeground(false))
        #expect(screen.log == [
            "AppState-  foreground false", "MainState-  count: 10",
            "AppState-  foreground true", "MainState-  count: 11", "MainState-  count: 12",
            "AppState-  foreground false",
        ])
    }

    @Test func everyCallbackShapeOnPlainState() {
        let consumer = StateConsumer<Screen>()
        var log: [String] = []
        consumer.add({ state in state?.count }) { (old: Int?, new: Int?) in log.append("T?T? \(old as Any) \(new as Any)") }
        consumer.add({ state in state?.count }) { (new: Int?) in log.append("T? \(new as Any)") }
        consumer.add({ state in state?.count }) { (new: Int) in log.append("T \(new)") }
        consumer.add({ state in state?.count }) { (old: Int, new: Int) in log.append("TT \(old) \(new)") }
        consumer.add({ state in state?.count }) { (old: Int?, new: Int) in log.append("T?T \(old as Any) \(new)") }
        consumer.add({ state in state?.title }) { (state: Screen?, new: String?) in
            log.append("S?T? \(state?.count ?? -1) \(new ?? "nil")")
        }
        consumer.add({ state in state?.title }) { (state: Screen?, new: String) in log.append("S?T \(state?.count ?? -1) \(new)") }
        consumer.add({ state in state?.title }) { (state: Screen, new: String?) in log.append("ST? \(state.count) \(new ?? "nil")") }
        consumer.add({ state in state?.title }) { (state: Screen, new: String) in log.append("ST \(state.count) \(new)") }

        consumer.consume(newState: Screen(count: 1))
        #expect(log == ["T?T? nil Optional(1)", "T? Optional(1)", "T 1", "T?T nil 1"],
                "title stays nil: no change; (old, new) needs an old value")
        log = []
        consumer.consume(newState: Screen(count: 2, title: "a"))
        #expect(log == [
            "T?T? Optional(1) Optional(2)", "T? Optional(2)", "T 2", "TT 1 2", "T?T Optional(1) 2",
            "S?T? 2 a", "S?T 2 a", "ST? 2 a", "ST 2 a",
        ])
        log = []
        consumer.consume(newState: Screen(count: 2, title: "a"))
        #expect(log == [], "an unchanged selection calls nothing")
        consumer.consume(newState: Screen(count: 2, title: nil))
        #expect(log == ["S?T? 2 nil", "ST? 2 nil"], "forms with a non-optional value skip nil")
    }

    @Test func stateFormsGetTheStateTheSelectionCameFrom() {
        let store = Store(state: Versioned(Screen()), reducer: screenReducer)
        let consumer = StateConsumer<Versioned<Screen>>()
        var seen: [String] = []
        consumer.add({ state in state?.title }) { (state: Versioned<Screen>, new: String) in
            seen.append("\(new) count=\(state.count) unrelated=\(state.unrelated)")
        }
        let subscription = consumer.connect(to: store)
        store.dispatch(.count(3))
        store.dispatch(.unrelated)
        store.dispatch(.title("hello"))
        store.dispatch(.count(4))
        #expect(seen == ["hello count=3 unrelated=1"])
        subscription.cancel()
    }

    @Test func optionalStateSelectorsAreTrackedOnVersionedState() {
        let store = Store(state: Versioned(Screen()), reducer: screenReducer)
        let consumer = StateConsumer<Versioned<Screen>>()
        var counts: [Int] = []
        var tags: [[String]] = []
        let countHandle = consumer.add({ state in state?.count }) { (old: Int?, new: Int) in counts.append(new) }
        let tagsHandle = consumer.add({ state in state?.tags }) { (state: Versioned<Screen>, new: [String]) in tags.append(new) }
        let subscription = consumer.connect(to: store)
        #expect(countHandle._evaluationCount == 1)
        #expect(tagsHandle._evaluationCount == 1)

        for _ in 0..<5 { store.dispatch(.unrelated) }
        #expect(countHandle._evaluationCount == 1, "a dispatch that writes nothing it read does not run its selector")
        #expect(tagsHandle._evaluationCount == 1)
        store.dispatch(.count(7))
        store.dispatch(.tags(["x"]))
        #expect(countHandle._evaluationCount == 2)
        #expect(tagsHandle._evaluationCount == 2)
        #expect(counts == [0, 7])
        #expect(tags == [[], ["x"]])
        // Told of the first publish after connecting, then only of the two
        // that wrote what it read (see `_WakeUpHub`).
        #expect(consumer._statistics.journaledConsumes == 3)
        subscription.cancel()
    }

    @Test func predictFormsForNonEquatableSelections() {
        struct Boxed { let count: Int }
        let consumer = StateConsumer<Screen>()
        var all: [Int?] = []
        var nonNil: [Int] = []
        consumer.add({ (state: Screen?) -> Boxed? in state.map { Boxed(count: $0.count) } },
                     { (_: Boxed?, new: Boxed?) in all.append(new?.count) },
                     predict: { old, new in old?.count == new?.count })
        consumer.add({ state in state?.count == 0 ? nil : state.map { Boxed(count: $0.count) } },
                     { (_: Boxed?, new: Boxed) in nonNil.append(new.count) },
                     predict: { old, new in old?.count == new?.count })
        for count in [0, 0, 1, 1, 0] { consumer.consume(newState: Screen(count: count)) }
        #expect(all == [0, 1, 0])
        #expect(nonNil == [1])
    }

    @Test func removedAndBaggedLikeAnyConsumer() {
        let consumer = StateConsumer<Screen>()
        let bag = ConsumerBag(consumer)
        var seen: [String] = []
        let counter: TypedConsumer<Screen> = consumer.add({ state in state?.count }) { (new: Int) in seen.append("count \(new)") }
        bag.add(consumer.add({ state in state?.title }) { (new: String?) in seen.append("title \(new ?? "nil")") })
        consumer.consume(newState: Screen(count: 1, title: "t"))
        consumer.remove(counter)
        bag.removeAll()
        consumer.consume(newState: Screen(count: 2, title: "u"))
        #expect(seen == ["count 1", "title t"])
        #expect(consumer.count == 0)
    }
}
