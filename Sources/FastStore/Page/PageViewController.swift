#if canImport(UIKit) && !os(watchOS)
import UIKit

/// A view controller that owns a ``PageStore``: ReSwiftConsumer's
/// `StateViewController`. Override ``bind(page:)`` to add the page's
/// consumers (on the page store and on app stores); they are bound once the
/// view is loaded and unbound when the controller is released.
///
/// ```swift
/// final class MainViewController: PageViewController<MainState, MainAction> {
///     init() { super.init(page: PageStore(state: MainState(), reducer: mainReducer, on: .main)) }
///     override func bind(page: PageStore<MainState, MainAction>) {
///         page.consumer.add({ $0.count }) { [weak self] (new: Int) in self?.countLabel.text = "\(new)" }
///         page.consumer(of: appStore).add({ $0.foreground }) { [weak self] (new: Bool) in self?.setForeground(new) }
///     }
/// }
/// ```
@MainActor
open class PageViewController<State, Action>: UIViewController {
    /// The page store the controller owns.
    public let page: PageStore<State, Action>

    /// Creates a controller owning `page`.
    ///
    /// - Complexity: O(1).
    public init(page: PageStore<State, Action>, nibName: String? = nil, bundle: Bundle? = nil) {
        self.page = page
        super.init(nibName: nibName, bundle: bundle)
    }

    /// Not supported: a page store needs an initial state and a reducer.
    ///
    /// - Complexity: O(1).
    @available(*, unavailable, message: "PageViewController is created with a PageStore")
    public required init?(coder: NSCoder) {
        preconditionFailure("FastStore: PageViewController cannot be decoded; create it with init(page:)")
    }

    /// Calls ``bind(page:)`` once the view is loaded.
    ///
    /// - Complexity: what ``bind(page:)`` adds.
    open override func viewDidLoad() {
        super.viewDidLoad()
        bind(page: page)
    }

    /// Adds the page's consumers. The default adds none.
    ///
    /// - Complexity: what the override adds.
    open func bind(page: PageStore<State, Action>) {}
}
#endif
