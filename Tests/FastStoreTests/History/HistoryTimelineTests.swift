@testable import FastStore
import FastStoreTestSupport
import Testing

/// White-box: the timeline's flags of which entries hold their state, kept
/// beside the entries, against the entries themselves, through records,
/// dropped redo branches, evictions, compactions and updates.
@Suite("History timeline")
struct HistoryTimelineTests {
    typealias Record = _HistoryRecord<Int, Int>

    /// The nearest entry holding its state or current, read from the
    /// entries (the reference).
    static func naiveNearest(_ timeline: _HistoryTimeline<Record>, to index: Int) -> Int? {
        let kept = timeline.indices
        func known(_ i: Int) -> Bool { i == timeline.current || timeline[i]?.state != nil }
        if known(index) { return index }
        for distance in 1 ... max(1, kept.count) {
            if index - distance >= kept.lowerBound, known(index - distance) { return index - distance }
            if index + distance <= kept.upperBound, known(index + distance) { return index + distance }
        }
        return nil
    }

    @Test("the nearest entry holding its state, as the entries say", arguments: Array(UInt64(1)...40))
    func nearestHoldingStateMatchesTheEntries(seed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        var timeline = _HistoryTimeline<Record>(limit: Int.random(in: 1...40, using: &rng))
        // NB: a timeline has indices once it recorded its first entry.
        timeline.record { _ in Record(actions: [], state: -1, patch: nil) }
        for step in 0 ..< 400 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0 ..< 6:
                let holds = Bool.random(using: &rng)
                timeline.record { _ in Record(actions: [step], state: holds ? step : nil, patch: holds ? nil : []) }
            case 6, 7:
                // A move: the current entry changes (what undo and jump do).
                timeline.current = Int.random(in: timeline.indices, using: &rng)
            case 8:
                let index = Int.random(in: timeline.indices, using: &rng)
                let holds = Bool.random(using: &rng)
                timeline.update(index) { $0.state = holds ? step : nil }
            default:
                break
            }
            for index in timeline.indices {
                #expect(timeline.nearestHoldingState(to: index) == Self.naiveNearest(timeline, to: index),
                        "seed \(seed), step \(step), entry \(index) of \(timeline.indices)")
            }
        }
    }
}
