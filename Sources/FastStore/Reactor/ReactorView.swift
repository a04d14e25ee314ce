/// A class that shows a ``Reactor``'s state and sends it actions:
/// ReactorKit's `View`, for any class (a view controller, a view, a cell,
/// a test double). Assigning its ``reactor`` calls ``bind(reactor:)``; the
/// bindings go in its ``bag``, cancelled when the view goes away or gets
/// another reactor.
///
/// ```swift
/// final class ProfileViewController: UIViewController, ReactorView {
///     var bag = SubscriptionBag()
///
///     func bind(reactor: ProfileReactor) {
///         refreshButton.onTap = { reactor.send(.refresh) }             // view → reactor
///         reactor.observe(\.isFollowing) { [weak self] in self?.followButton.isSelected = $0 }
///             .store(in: bag)                                           // reactor → view
///     }
/// }
/// profileViewController.reactor = ProfileReactor()                     // binds
/// ```
///
/// Capture the view weakly in its bindings: the bag holds the reactor,
/// which holds the bindings' closures.
@MainActor
public protocol ReactorView: AnyObject {
    /// The reactor type the view binds to.
    associatedtype Reactor: FastStore.Reactor

    /// Where the view keeps its bindings; declare it as
    /// `var bag = SubscriptionBag()`. Assigning ``reactor`` replaces it.
    var bag: SubscriptionBag { get set }

    /// Binds the view to `reactor`: actions from the view's controls, and
    /// the reactor's states to the view. Called when ``reactor`` is
    /// assigned.
    func bind(reactor: Reactor)
}

extension ReactorView {
    /// The view's reactor. Assigning it cancels the bindings of the
    /// previous one (a fresh ``bag``) and calls ``bind(reactor:)`` with the
    /// new one (unless `nil`). The reactor is kept in the bag.
    ///
    /// - Complexity: O(previous bindings) plus ``bind(reactor:)``.
    public var reactor: Reactor? {
        get { bag.reactor as? Reactor }
        set {
            bag.cancelAll()
            bag.reactor = nil
            let bag = SubscriptionBag()
            bag.reactor = newValue
            self.bag = bag
            if let newValue { bind(reactor: newValue) }
        }
    }
}
