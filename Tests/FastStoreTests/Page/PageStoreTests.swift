import FastStore
import Testing

private struct MainState: Equatable, Sendable {
    var count = 10
    var log: [String] = []
}

private enum MainAction: Sendable {
    case increment
    case note(String)
}

private func mainReducer(_ state: inout MainState, _ action: MainAction) {
    switch action {
    case .increment: state.count += 1
    case .note(let text): state.log.append(text)
    }
}

/// A page store bound to a global store, unbound in one call or on release.
@Suite struct PageStoreTests {
    @Test func aPageBoundToTheAppStoreIsUnboundInOneCall() {
        let appStore = makeScopeApp(rows: 10)
        let page = PageStore(state: MainState(), reducer: mainReducer)
        var events: [String] = []
        page.consumer.add({ $0.count }) { (old: Int?, new: Int) in events.append("count \(old.map(String.init) ?? "nil")->\(new)") }
        page.consumer(of: appStore).add({ $0.settings.theme }) { (new: String) in events.append("theme \(new)") }
        page.consumer(of: appStore).add({ $0.counter }) { (new: Int) in events.append("counter \(new)") }
        #expect(events == ["count nil->10", "theme light", "counter 0"])
        #expect(page.boundStoreCount == 2)
        #expect(appStore.subscriberCount == 1)    // one consumer per app store
        events.removeAll()

        page.dispatch(.increment)
        appStore.dispatch(.settings(.setTheme("dark")))
        appStore.dispatch(.row(1, .toggle))        // nobody on the page reads rows
        #expect(events == ["count 10->11", "theme dark"])
        events.removeAll()

        page.unbindAll()
        #expect(page.boundStoreCount == 0)
        #expect(appStore.subscriberCount == 0)
        #expect(page.store.subscriberCount == 0)
        page.dispatch(.increment)
        appStore.dispatch(.settings(.setTheme("light")))
        appStore.dispatch(.increment)
        #expect(events.isEmpty)
        #expect(page.state.count == 12)            // the page store keeps working
    }

    @Test func releasingThePageUnbindsEverything() {
        let appStore = makeScopeApp(rows: 10)
        weak var weakPage: PageStore<MainState, MainAction>?
        var themes: [String] = []
        do {
            let page = PageStore(state: MainState(), reducer: mainReducer)
            weakPage = page
            page.consumer(of: appStore).add({ $0.settings.theme }) { (new: String) in themes.append(new) }
            page.consumer.add({ $0.count }) { (_: Int) in }
            appStore.dispatch(.settings(.setTheme("dark")))
            #expect(appStore.subscriberCount == 1)
        }
        #expect(weakPage == nil)
        #expect(appStore.subscriberCount == 0)
        appStore.dispatch(.settings(.setTheme("blue")))
        #expect(themes == ["light", "dark"])
    }

    @Test func thePageRunsItsOwnMiddlewareAndReducer() {
        let seen = Shared<[String]>([])
        let logger = Middleware<MainState, MainAction> { _, action, next in
            seen.mutate { $0.append("\(action)") }
            next(action)
        }
        let page = PageStore(state: MainState(), reducer: mainReducer, middleware: [logger])
        let other = PageStore(state: MainState(), reducer: mainReducer)
        page.dispatch(.note("hello"))
        #expect(seen.value == ["note(\"hello\")"])
        #expect(page.state.log == ["hello"])
        #expect(other.state.log.isEmpty)           // each page has its own state
    }

    @Test func consumersAskedForAfterUnbindingAreBoundAgain() {
        let appStore = makeScopeApp(rows: 10)
        let page = PageStore(state: MainState(), reducer: mainReducer)
        var counts: [Int] = []
        page.consumer.add({ $0.count }) { (new: Int) in counts.append(new) }
        page.unbindAll()
        page.consumer.add({ $0.count }) { (new: Int) in counts.append(-new) }
        page.dispatch(.increment)
        #expect(counts == [10, -10, -11])
        #expect(page.boundStoreCount == 1)
        _ = page.consumer(of: appStore)
        #expect(page.boundStoreCount == 2)
    }

    @Test func aPageCanBindToAScopeOfTheAppStore() {
        let appStore = makeScopeApp(rows: 10)
        let settings = appStore.scope(state: \.settings, action: ScopeAppAction.settings)
        let page = PageStore(state: MainState(), reducer: mainReducer)
        var sizes: [Int] = []
        page.consumer(of: settings).add({ $0.fontSize }) { (new: Int) in sizes.append(new) }
        appStore.dispatch(.increment)
        settings.dispatch(.setFontSize(16))
        #expect(sizes == [12, 16])
        page.unbindAll()
        settings.dispatch(.setFontSize(18))
        #expect(sizes == [12, 16])
        #expect(appStore.subscriberCount == 0)
    }
}
