/// Why a ``StatePatch`` does not apply to a state. Each case names the path
/// (as ``PatchPath/description`` renders it) where applying failed; the
/// state passed to ``StatePatch/apply(to:)`` is left as it was.
public enum PatchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The state holds another value than the one the patch was made from
    /// (the wrong base), or the path leads nowhere in it.
    case mismatch(path: String)
    /// No element with that id in the identified list.
    case missingID(path: String)
    /// An inserted element's id is already in the identified list.
    case duplicateID(path: String)
    /// No value for that key in the dictionary (or one already there when
    /// the patch inserts it).
    case missingKey(path: String)
    /// A position beyond the list's end.
    case indexOutOfRange(path: String)
    /// A value of the patch does not decode as the state's type there.
    case typeMismatch(path: String, message: String)

    /// The path where applying failed.
    public var path: String {
        switch self {
        case .mismatch(let p), .missingID(let p), .duplicateID(let p), .missingKey(let p), .indexOutOfRange(let p),
             .typeMismatch(let p, _): return p
        }
    }

    public var description: String {
        switch self {
        case .mismatch(let p): return "PatchError.mismatch(path: \(p))"
        case .missingID(let p): return "PatchError.missingID(path: \(p))"
        case .duplicateID(let p): return "PatchError.duplicateID(path: \(p))"
        case .missingKey(let p): return "PatchError.missingKey(path: \(p))"
        case .indexOutOfRange(let p): return "PatchError.indexOutOfRange(path: \(p))"
        case .typeMismatch(let p, let m): return "PatchError.typeMismatch(path: \(p), \(m))"
        }
    }
}
