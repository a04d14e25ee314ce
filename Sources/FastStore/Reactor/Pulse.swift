/// A state property whose observers are called at every assignment, even
/// of an equal value, and not when another property changes: ReactorKit's
/// `@Pulse`, for one-shot events kept in the state (an alert to show, a
/// screen to open).
///
/// ```swift
/// struct State: Sendable {
///     @Pulse var alertMessage: String?
/// }
/// // reduce:  state.alertMessage = message     (every assignment is a pulse)
/// // view:    reactor.pulse(\.$alertMessage) { message in … }
/// ```
///
/// A pulse counts its assignments; ``Reactor/pulse(_:_:)`` calls its
/// observer when a published state's count differs from the last one it
/// saw. Two pulses compare equal when their values and counts do, so a
/// state with a pulse reassigned is a changed state.
@propertyWrapper
public struct Pulse<Value> {
    /// The last value assigned.
    public private(set) var value: Value
    /// How many times a value was assigned (wrapping).
    public private(set) var valueUpdatedCount: UInt = 0

    /// A pulse holding `wrappedValue`, never assigned yet.
    ///
    /// - Complexity: O(1).
    public init(wrappedValue: Value) {
        value = wrappedValue
    }

    /// The value; assigning it is a pulse, even of an equal value.
    ///
    /// - Complexity: O(1).
    public var wrappedValue: Value {
        get { value }
        set {
            value = newValue
            valueUpdatedCount &+= 1
        }
    }

    /// The pulse itself, for ``Reactor/pulse(_:_:)``: `\.$alertMessage`.
    ///
    /// - Complexity: O(1).
    public var projectedValue: Pulse<Value> { self }
}

extension Pulse: Sendable where Value: Sendable {}

extension Pulse: Equatable where Value: Equatable {}

extension Pulse: Hashable where Value: Hashable {}
