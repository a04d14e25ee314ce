import FastStore
import Foundation
import Testing

enum Op: Equatable, Sendable { case add(Int), noOp, double, addTwice(Int), later(Int) }

@Suite struct MiddlewareTests {
    func reducer(_ state: inout [Int], _ action: Op) {
        switch action {
        case .add(let n): state.append(n)
        case .noOp, .double, .addTwice, .later: state.append(-999)  // middleware must not let these through
        }
    }

    @Test func middlewareCanPassDropTransformAndAddActions() {
        var seenStates: [[Int]] = []
        let observe = Middleware<[Int], Op> { context, action, next in
            next(action)
            seenStates.append(context.state)
        }
        let drop = Middleware<[Int], Op> { _, action, next in
            if action == .noOp { return }
            next(action)
        }
        let transform = Middleware<[Int], Op> { context, action, next in
            if action == .double { next(.add((context.state.last ?? 0) * 2)) } else { next(action) }
        }
        let add = Middleware<[Int], Op> { _, action, next in
            if case .addTwice(let n) = action { next(.add(n)); next(.add(n)) } else { next(action) }
        }
        let store = Store(state: [Int](), reducer: reducer, middleware: [observe, drop, transform, add])
        store.dispatch(.add(1))
        store.dispatch(.noOp)
        store.dispatch(.double)
        store.dispatch(.addTwice(7))
        #expect(store.state == [1, 2, 7, 7])
        #expect(seenStates == [[1], [1], [1, 2], [1, 2, 7, 7]])
    }

    @Test func middlewareDispatchIsQueuedBehindTheBatch() {
        let follow = Middleware<[Int], Op> { context, action, next in
            next(action)
            if action == .add(1) { context.dispatch(.add(10)) }
        }
        let store = Store(state: [Int](), reducer: reducer, middleware: [follow])
        store.dispatch(.add(1))
        #expect(store.state == [1, 10])
    }

    @Test func middlewareCanDelayAnAction() async throws {
        let delay = Middleware<[Int], Op> { context, action, next in
            guard case .later(let n) = action else { return next(action) }
            let ctx = context
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                ctx.dispatch(.add(n))
            }
        }
        let store = Store(state: [Int](), reducer: reducer, middleware: [delay])
        store.dispatch(.later(5))
        store.dispatch(.add(1))
        #expect(store.state == [1])
        for _ in 0..<200 where store.state.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        await store.flush()
        #expect(store.state == [1, 5])
    }
}
