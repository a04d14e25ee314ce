#if canImport(SwiftUI)
import SwiftUI

extension View {
    /// Binds a page store's consumers while the view is on screen: calls
    /// `bind` when the view appears and ``PageStore/unbindAll()`` when it
    /// disappears.
    ///
    /// ```swift
    /// struct MainView: View {
    ///     @StateObject private var page = PageStore(state: MainState(), reducer: mainReducer, on: .main)
    ///     @State private var count = 0
    ///     var body: some View {
    ///         Text("\(count)").bindingPage(page) { page in
    ///             page.consumer.add({ $0.count }) { (new: Int) in count = new }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Complexity: what `bind` adds; unbinding is O(consumers).
    public func bindingPage<State, Action>(
        _ page: PageStore<State, Action>,
        _ bind: @escaping (PageStore<State, Action>) -> Void
    ) -> some View {
        onAppear { bind(page) }
            .onDisappear { page.unbindAll() }
    }
}
#endif
