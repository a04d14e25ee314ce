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
