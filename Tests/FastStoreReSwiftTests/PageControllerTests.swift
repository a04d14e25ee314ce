@_spi(Testing) import FastStoreReSwift
import Testing

// RePageController: a controller owning a page store, feeding shared
// consumers; and RePageStoreSubscriber on its own.

private struct MainState: Equatable {
    var count = 10
    var title = "main"
}

private enum MainAction: Action {
    case increase, retitle(String)
}

private func mainReducer(action: Action, state: MainState?) -> MainState {
    var state = state ?? MainState()
    switch action as? MainAction {
    case .increase?: state.count += 1
    case .retitle(let title)?: state.title = title
    case nil: break
    }
    return state
}

/// ReSwiftConsumer's example `MainController`, without the app store.
private final class MainController: RePageController<MainState> {
    var seenActions: [String] = []

    override func getPageReducer() -> Reducer<MainState> {
        mainReducer
    }

    override func getPageInitialState() -> MainState? {
        MainState(count: 1)
    }

    override func getPageMiddleWares() -> [Middleware<MainState>] {
        let middle: Middleware<MainState> = { [unowned self] _, _ in
            { next in
                { action in
                    self.seenActions.append("\(action)")
                    return next(action)
                }
            }
        }
        return [middle]
    }
}

/// A controller that keeps the defaults: the page state comes from a
/// reducer-less initial state... of which there is none.
private final class DefaultsController: RePageController<MainState> {
    override func getPageInitialState() -> MainState? { MainState(count: 7) }
}

/// A screen that uses a page store directly (README example 2's shape).
private final class Screen: PageStoreSubscriber {
    typealias PageStoreSubscriberStateType = MainState
    var counts: [Int] = []
    lazy var pageStoreSubscriber = RePageStoreSubscriber(subscriber: self)
    func newPageState(state: MainState) { counts.append(state.count) }
}

@Suite struct PageControllerTests {
    @Test func controllerFeedsSharedConsumersFromItsPageStore() {
        let controller = MainController()
        let screenConsumer = StateConsumer<MainState>()
        var counts: [Int] = []
        var titles: [String] = []
        screenConsumer.add({ state in state?.count }) { (new: Int) in counts.append(new) }
        screenConsumer.add({ $0.title }) { (new: String) in titles.append(new) }

        controller.addSharedConsumer(screenConsumer)
        controller.bindState()
        #expect(counts == [1], "binding delivers the current page state")
        #expect(titles == ["main"])

        controller.pageStore.dispatch(MainAction.increase)
        controller.pageStore.dispatch(MainAction.retitle("renamed"))
        controller.pageStore.dispatch(MainAction.retitle("renamed"))    // Equatable state: skipped
        #expect(counts == [1, 2])
        #expect(titles == ["main", "renamed"])
        #expect(controller.seenActions == ["increase", "retitle(\"renamed\")", "retitle(\"renamed\")"])

        controller.unbindState()
        #expect(controller.sharedConsumers.isEmpty)
        #expect(screenConsumer.count == 0, "unbinding removes the shared consumers' consumers")
        controller.pageStore.dispatch(MainAction.increase)
        #expect(counts == [1, 2])
        #expect(controller.pageStore.state.count == 3)
        #expect(controller.pageStore._subscriptionCount == 0)
    }

    @Test func consumeInstantlyConsumerGetsThePageStateWhenAdded() {
        let controller = DefaultsController()
        let consumer = StateConsumer<MainState>()
        consumer.consumeInstantly = true
        var counts: [Int] = []
        consumer.add({ $0.count }) { (old: Int?, new: Int) in counts.append(new) }
        controller.addSharedConsumer(consumer)
        #expect(counts == [7], "added with consumeInstantly: consumes the current page state at once")

        controller.removeSharedConsumer(consumer)
        controller.bindState()
        controller.pageStore.dispatch(MainAction.increase)
        #expect(counts == [7], "a removed shared consumer gets nothing")
        #expect(controller.pageStore.state.count == 7, "the default reducer keeps the state")
    }

    @Test func sharedConsumersAreASetByIdentity() {
        let controller = DefaultsController()
        let consumer = StateConsumer<MainState>()
        controller.addSharedConsumer(consumer)
        controller.addSharedConsumer(consumer)
        controller.addSharedConsumer(StateConsumer<MainState>())
        #expect(controller.sharedConsumers.count == 2)
    }

    @Test func pageSubscriberHoldsItsScreenWeakly() {
        let pageStore = Store<MainState>(reducer: mainReducer, state: nil)
        weak var released: Screen?
        var subscriber: RePageStoreSubscriber<MainState>?
        do {
            let screen = Screen()
            released = screen
            subscriber = screen.pageStoreSubscriber
            pageStore.subscribe(screen.pageStoreSubscriber)
            pageStore.dispatch(MainAction.increase)
            #expect(screen.counts == [10, 11])
        }
        #expect(released == nil, "screen → page subscriber → screen is no retain cycle")
        withExtendedLifetime(subscriber) {
            // Delivered to a page subscriber whose screen is gone: nothing happens.
            pageStore.dispatch(MainAction.increase)
        }
        #expect(pageStore.state.count == 12)
    }

    @Test func controllerIsReleasedWithItsPageStore() {
        weak var releasedController: MainController?
        weak var releasedStore: Store<MainState>?
        do {
            let controller = MainController()
            controller.bindState()
            controller.pageStore.dispatch(MainAction.increase)
            releasedController = controller
            releasedStore = controller.pageStore
        }
        #expect(releasedController == nil)
        #expect(releasedStore == nil)
    }
}
