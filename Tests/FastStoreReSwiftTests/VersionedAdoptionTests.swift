@_spi(Testing) import FastStore
import FastStoreReSwift
import Testing

// Moving screen by screen: a facade store whose state is versioned feeds a
// StateConsumer that re-runs only the selectors whose reads a dispatch
// wrote, whether the consumer is fed from `newState` or connected. Both
// modules imported: the names they share are qualified.

private struct Row: Equatable { var title: String; var liked = false }
private struct Feed {
    var rows: VersionedList<Row>
    var header: String
}
private typealias FeedState = Versioned<Feed>

private enum FeedAction: FastStoreReSwift.Action {
    case like(Int), retitle(String)
}

private func feedReducer(action: FastStoreReSwift.Action, state: FeedState?) -> FeedState {
    var state = state ?? FeedState(Feed(rows: VersionedList((0..<1_000).map { Row(title: "row \($0)") }), header: "feed"))
    switch action as? FeedAction {
    case .like(let index)?: state.rows[index].liked.toggle()
    case .retitle(let header)?: state.header = header
    case nil: break
    }
    return state
}

private final class FeedScreen: FastStoreReSwift.StoreSubscriber {
    let consumer = StateConsumer<FeedState>()
    func newState(state: FeedState) { consumer.consume(newState: state) }
}

@Suite struct VersionedAdoptionTests {
    @Test func versionedStateThroughTheFacadeIsTracked() {
        let store = FastStoreReSwift.Store<FeedState>(reducer: feedReducer, state: nil)
        let screen = FeedScreen()
        var likes: [Bool] = []
        var headers: [String] = []
        let row3 = screen.consumer.add({ $0.rows[3].liked }) { (new: Bool) in likes.append(new) }
        let header = screen.consumer.add({ $0.header }) { (new: String) in headers.append(new) }
        store.subscribe(screen)

        store.dispatch(FeedAction.like(3))
        store.dispatch(FeedAction.like(500))
        store.dispatch(FeedAction.retitle("news"))
        #expect(likes == [false, true])
        #expect(headers == ["feed", "news"])
        // Only the consumer whose reads a dispatch wrote was re-run.
        #expect(row3._evaluationCount == 2, "row 3's selector ran at the first consume and for the like of row 3")
        #expect(header._evaluationCount == 2)
        #expect(screen.consumer._statistics.journaledConsumes == 3)
    }
}
