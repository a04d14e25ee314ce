import Observation
#if canImport(Combine)
import Combine
import Foundation
#endif

/// `Store` participates in Observation: reading ``Store/state`` inside
/// `withObservationTracking` registers an access, and every published batch
/// is a mutation of `state`.
extension Store: Observable {}

#if canImport(Combine)
/// SwiftUI's `ObservableObject`: `objectWillChange` fires once per published
/// batch, on the main thread.
extension Store: ObservableObject {}
#endif

extension Store {
    /// Runs `body`, which calls Observation's observers from this store's
    /// drain, with this store's `state` reads registering as outside the
    /// drain (a tracking started in an `onChange` observes what it reads),
    /// then puts the thread's drain state back (reducers and subscribers
    /// register nothing).
    @inlinable
    func _callingObservers(_ body: () -> Void) {
        let context = _TrackingContext.current
        let outerCalling = context.callingObserversOf
        let observes = context.observesReads
        context.callingObserversOf = ObjectIdentifier(self)
        body()
        context.callingObserversOf = outerCalling
        context.observesReads = observes
    }

    @inlinable
    func _willChange() {
        #if canImport(Combine)
        if Thread.isMainThread {
            objectWillChange.send()
        } else {
            let publisher = _UncheckedSendable(objectWillChange)
            DispatchQueue.main.async { publisher.value.send() }
        }
        #endif
    }
}
