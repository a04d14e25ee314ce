import Foundation
import Testing

@testable import FastStore

/// A handle given to a `StateConsumer` that does not hold it (`remove`,
/// a `ConsumerBag` asking whether it owns it) is ignored, even while its
/// own consumer compacts and renumbers its handles on another thread: the
/// other consumer tells it apart by its registry's number, never reading
/// the position its own consumer is rewriting. CI runs this under
/// ThreadSanitizer, which reported that read as a race before.
@Suite struct ForeignHandleTests {
    struct S: Equatable { var a = 0 }

    @Test func anotherConsumersHandlesAreIgnoredWhileTheirOwnerCompacts() async {
        let owner = StateConsumer<Versioned<S>>()
        let other = StateConsumer<Versioned<S>>()
        let delivered = Locked(0)
        let kept = (0 ..< 64).map { _ in owner.add({ $0.a }) { (_: Int) in delivered.withValue { $0 += 1 } } }
        let bag = ConsumerBag(other)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Adds and removes 40 at a time: the owner compacts (past 16
                // removed, and more than half) and renumbers `kept`.
                for _ in 0 ..< 150 {
                    let churn = (0 ..< 40).map { _ in owner.add({ $0.a }) { (_: Int) in } }
                    for handle in churn { owner.remove(handle) }
                }
            }
            group.addTask {
                for _ in 0 ..< 150 {
                    for handle in kept { other.remove(handle) }
                    bag.remove(kept[0])
                    #expect(!other._owns(kept[1]))
                }
            }
        }
        #expect(other.count == 0)
        #expect(owner.count == 64, "another consumer's remove left the owner's handles alone")
        owner.consume(newState: Versioned(S(a: 1)))
        #expect(delivered.withValue { $0 } == 64, "every kept consumer still delivers")
    }
}
