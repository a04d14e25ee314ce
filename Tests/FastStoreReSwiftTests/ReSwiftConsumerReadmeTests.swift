@_spi(Testing) import FastStoreReSwift
import Testing

// ReSwiftConsumer's two README examples, with `import ReSwift` and
// `import ReSwiftConsumer` replaced by `import FastStoreReSwift`. UIKit is
// not here: the view controllers are plain classes, the labels strings, and
// `viewWillAppear`/`viewDidLoad` plain methods. Otherwise the code is the
// README's, but for its typos that no compiler accepts (marked "README:").

// MARK: Example 1: StateConsumer

private struct AppState {
    var counter: Int = 0
    var name: String? = nil
    var works: [String] = []
}

// README: `struct AppState: StateType`. The conformance is deprecated (as in
// ReSwift 6); declared in a deprecated extension so that it does not warn.
@available(*, deprecated)
extension AppState: StateType {}

private enum AppAction: Action {
    case increase, rename(String?), addWork(String), noOp
}

private func reducer(action: Action, state: AppState?) -> AppState {
    var state = state ?? AppState()
    switch action as? AppAction {
    case .increase?: state.counter += 1
    case .rename(let name)?: state.name = name
    case .addWork(let work)?: state.works.append(work)
    case .noOp?, nil: break
    }
    return state
}

private final class CounterViewController: StoreSubscriber {
    typealias StoreSubscriberStateType = AppState

    let appStore: Store<AppState>
    var counterLabel = ""
    var nameLabel: String? = "unset"
    var works: [String] = ["unset"]
    var counterCalls: [String] = []
    let consumer = StateConsumer<AppState>()

    init(appStore: Store<AppState>) { self.appStore = appStore }

    func viewWillAppear() {
        appStore.subscribe(self)

        // add consumer of property selectively
        consumer.add({state in state.counter}, onCounterChanged)
        consumer.add({state in state.name}, onNameChanged)
        consumer.add({state in state.works}, onWorksChanged)
    }

    func viewWillDisappear() {
        appStore.unsubscribe(self)
        // remove all consumers
        consumer.removeAll()
    }

    func newState(state: AppState) {
        // pass new state into consumer
        consumer.consume(newState: state)
    }

    // MARK: Consumers

    private func onCounterChanged(old: Int, new: Int) {
        counterLabel = "\(new)"
        counterCalls.append("\(old)→\(new)")
    }

    private func onNameChanged(old: String?, new: String?) {
        nameLabel = new
    }

    private func onWorksChanged(old: [String]?, new: [String]) {
        self.works = new
    }
}

// MARK: Example 2: PageStoreSubscriber

private struct MainState {
    var count: Int = 10
}

private struct ForegroundAction: Action { let foreground: Bool }
private struct IncreaseCount: Action {}

private struct PageAppState {
    var foreground = false
}

private func appReducer(action: Action, state: PageAppState?) -> PageAppState {
    var state = state ?? PageAppState()
    if let action = action as? ForegroundAction { state.foreground = action.foreground }
    return state
}

private func mainReducer(action: Action, state: MainState?) -> MainState {
    var state = state ?? MainState()
    if action is IncreaseCount { state.count += 1 }
    return state
}

private final class MainVc: PageStoreSubscriber, StoreSubscriber {
    // for AppState
    typealias StoreSubscriberStateType = PageAppState
    let appConsumer = StateConsumer<PageAppState>()
    // for MainState
    typealias PageStoreSubscriberStateType = MainState
    typealias PageStoreInteractStateType = MainState
    private(set) var pageStore: Store<MainState>?
    private let pageConsumer = StateConsumer<MainState>()
    private lazy var pageStoreSubscriber = RePageStoreSubscriber(subscriber: self)

    let appStore: Store<PageAppState>
    var log: [String] = []

    init(appStore: Store<PageAppState>) {
        self.appStore = appStore
    }

    func viewDidLoad() {
        pageStore = Store<MainState>(reducer: mainReducer,
                                    state: nil,
                                    middleware: [])

        // bind AppState
        appStore.subscribe(self)
        appConsumer.add({state in state?.foreground},  onForegroundChanged)
        // bind MainState
        pageStore?.subscribe(pageStoreSubscriber)
        pageConsumer.add({state in state?.count}, onCountChanged)    // README: `pageConsumer?.add`
    }

    deinit {
        // unbinding appStore, its consumer
        appConsumer.removeAll()
        appStore.unsubscribe(self)
        // unbinding pageStore, its consumer
        pageConsumer.removeAll()
        pageStore?.unsubscribe(pageStoreSubscriber)   // README: `if pageStoreSubscriber != nil { ...(pageStoreSubscriber!) }`
    }

    func newState(state: PageAppState) {
        appConsumer.consume(newState: state)
    }

    func newPageState(state: MainState) {
        pageConsumer.consume(newState: state)
    }

    // MARK: Consumers

    private func onForegroundChanged(curr: Bool) {
        log.append("AppState-  foreground \(curr)")
    }

    private func onCountChanged(prev: Int?, curr: Int) {
        log.append("MainState-  count: \(curr)")    // README: the closing parenthesis is missing
    }
}

@Suite struct ReSwiftConsumerReadmeTests {
    @Test func stateConsumerExample() {
        let appStore = Store<AppState>(reducer: reducer, state: nil)
        let viewController = CounterViewController(appStore: appStore)
        viewController.viewWillAppear()

        appStore.dispatch(AppAction.increase)
        // FastStore's consumers evaluate a consumer first at the consume after
        // it was added, with no previous selection: the `(old: Int, new: Int)`
        // form needs two selections, so the first change is not reported
        // (ReSwiftConsumer compares with the state consumed before the add).
        #expect(viewController.counterCalls == [])
        #expect(viewController.works == [], "the (old: T?, new: T) form is called at its first evaluation")
        #expect(viewController.nameLabel == "unset", "an optional selection that stays nil is no change")

        appStore.dispatch(AppAction.increase)
        appStore.dispatch(AppAction.rename("Sonny"))
        appStore.dispatch(AppAction.addWork("goal"))
        appStore.dispatch(AppAction.noOp)
        #expect(viewController.counterCalls == ["1→2"])
        #expect(viewController.counterLabel == "2")
        #expect(viewController.nameLabel == "Sonny")
        #expect(viewController.works == ["goal"])

        viewController.viewWillDisappear()
        appStore.dispatch(AppAction.increase)
        #expect(viewController.counterLabel == "2", "unsubscribed: no more calls")
        #expect(viewController.consumer.count == 0)
    }

    @Test func stateConsumerExampleWithConsumeInstantly() {
        // With `consumeInstantly` a consumer added after a consume is
        // evaluated against that state at once, as ReSwiftConsumer compares
        // with its previous state: the first change is reported.
        let appStore = Store<AppState>(reducer: reducer, state: nil)
        let viewController = CounterViewController(appStore: appStore)
        viewController.consumer.consumeInstantly = true
        viewController.viewWillAppear()
        appStore.dispatch(AppAction.increase)
        appStore.dispatch(AppAction.increase)
        #expect(viewController.counterCalls == ["0→1", "1→2"])
    }

    @Test func pageStoreSubscriberExample() {
        let appStore = Store<PageAppState>(reducer: appReducer, state: nil)
        do {
            let mainVc = MainVc(appStore: appStore)
            mainVc.viewDidLoad()
            #expect(mainVc.pageStore?.state.count == 10, "the page store's reducer built its state from ReSwiftInit")

            appStore.dispatch(ForegroundAction(foreground: true))
            mainVc.pageStore?.dispatch(IncreaseCount())
            mainVc.pageStore?.dispatch(IncreaseCount())
            appStore.dispatch(ForegroundAction(foreground: true))    // unchanged: no call
            appStore.dispatch(ForegroundAction(foreground: false))
            #expect(mainVc.log == [
                "AppState-  foreground true",
                "MainState-  count: 11",
                "MainState-  count: 12",
                "AppState-  foreground false",
            ])
            #expect(appStore._subscriptionCount == 1)
            #expect(mainVc.pageStore?._subscriptionCount == 1)
        }
        // NB: as in ReSwiftConsumer, the consumers hold their callbacks, and
        // a method reference (`onCountChanged`) holds the screen: the screen
        // lives until its consumers are removed (its `deinit` does that, so
        // it never runs). PageControllerTests checks the page subscriber
        // itself holds its screen weakly.
    }
}
