/// What generic reflection code (an inspector, a logger, a form builder)
/// sees of `value` through `Mirror` alone: every child's label, level by
/// level, down to values without children, which are described.
///
/// Stops `depth` levels down (writing `…`) without describing the value
/// there, so that nothing but `Mirror` looks at a versioned node.
public func reflectedDescription(_ value: Any, depth: Int = 6) -> String {
    let mirror = Mirror(reflecting: value)
    if mirror.children.isEmpty { return String(describing: value) }
    if depth == 0 { return "…" }
    let children = mirror.children.map { child in
        "\(child.label ?? "_"): \(reflectedDescription(child.value, depth: depth - 1))"
    }
    return "{" + children.joined(separator: ", ") + "}"
}
