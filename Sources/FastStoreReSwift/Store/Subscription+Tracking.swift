import FastStore

// Tracked selections.
//
// ReSwift runs every subscription's chain at every dispatch: its selector,
// then `skipRepeats`. The facade does too, but for the commonest chain,
// `select` straight from the store's subscription followed by an
// `Equatable` `skipRepeats()` (written out, or added by
// `automaticallySkipsRepeats`), it hands the pair to the store's
// `StateConsumer` instead: the selector runs and the two selections are
// compared only when the consumer says the selection may have changed. On
// versioned state that is when a drain wrote what the selector read, so a
// dispatch costs the subscriptions whose reads it wrote; on plain state the
// consumer compares every selection at every dispatch, as ReSwift does.
//
// The stages after `skipRepeats()` run as they are, fed by the consumer's
// `(old, new)` pairs. A chain of any other shape (a custom predicate, a
// `skipRepeats` before the `select`, an observer set by hand, a
// subscription made with `init(sink:)`) is run at every dispatch, as in
// ReSwift.

/// A non-generic view of a subscription stage, to follow a chain.
protocol _SubscriptionStage: AnyObject {
    var _downstream: AnyObject? { get }
    var _trackedSelection: _TrackedSelection? { get }
}

extension Subscription: _SubscriptionStage {}

/// A `select` made straight from a store's subscription: registers its
/// selector with the store's consumer, with the equality a later
/// `skipRepeats()` gives.
struct _StoreSelection<Selected> {
    /// The store's subscription it selects from (weak: the head of the
    /// chain owns its stages).
    weak var storeSubscription: AnyObject?
    let register: (
        _ consumer: AnyObject,
        _ isLive: @escaping () -> Bool,
        _ isEqual: @escaping (Selected, Selected) -> Bool,
        _ emit: @escaping (Selected?, Selected) -> Void
    ) -> AnyObject?

    init<Root>(from storeSubscription: Subscription<Root>, _ selector: @escaping (Root) -> Selected) {
        self.storeSubscription = storeSubscription
        register = { consumer, isLive, isEqual, emit in
            guard let consumer = consumer as? StateConsumer<Root> else { return nil }
            // NB: the selection itself, compared by `predict`: a wrapper
            // holding the equality would be a value the consumer must
            // inspect for versioned nodes at every evaluation (it holds a
            // closure), where a `Bool` or a `String` needs no look. `nil`
            // (no call) once the subscriber is gone.
            return consumer.add({ isLive() ? selector($0) : nil }, { (old: Selected?, new: Selected) in
                emit(old, new)
            }, predict: { old, new in
                guard let old, let new else { return false }
                return isEqual(old, new)
            })
        }
    }
}

/// The `skipRepeats()` stage of a tracked selection (see the top of this
/// file): what the facade's store registers with its consumer.
final class _TrackedSelection {
    weak var storeSubscription: AnyObject?
    weak var selectStage: AnyObject?
    /// Registers the selection with a `StateConsumer` of the store's state;
    /// returns its `ConsumerHandle`, or `nil` for a consumer of another
    /// state type. The consumer's pairs go to the stage's observer; the
    /// selector runs only while `isLive()`.
    let register: (_ consumer: AnyObject, _ isLive: @escaping () -> Bool) -> AnyObject?

    init<Selected: Equatable>(
        _ selection: _StoreSelection<Selected>, selectStage: Subscription<Selected>, skipStage: Subscription<Selected>
    ) {
        storeSubscription = selection.storeSubscription
        self.selectStage = selectStage
        register = { [weak skipStage] consumer, isLive in
            selection.register(consumer, isLive, ==) { old, new in
                skipStage?.newValues(oldState: old, newState: new)
            }
        }
    }

    /// The tracked selection `storeSubscription` feeds, when its chain
    /// starts with one: its observer feeds a `select` stage whose observer
    /// feeds that selection's `skipRepeats()` stage.
    static func heading<State>(_ storeSubscription: Subscription<State>) -> _TrackedSelection? {
        guard storeSubscription._isStoreSubscription,
              let select = storeSubscription._downstream as? _SubscriptionStage,
              let skip = select._downstream as? _SubscriptionStage,
              let tracked = skip._trackedSelection,
              tracked.storeSubscription === storeSubscription, tracked.selectStage === select
        else { return nil }
        return tracked
    }
}
