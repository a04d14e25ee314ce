import Foundation

/// Profiles the validation must reject, with the field it must name.
public enum ProfileFixtures {
    public struct Fixture: Sendable {
        public var name: String
        public var json: String
        public var field: String
        public var mentions: String
    }

    public static let valid = """
    {"name": "tiny", "description": "d", "state": {"entities": 10, "titleLength": 4},
     "consumers": [{"select": "entity", "count": 2}],
     "actions": [{"kind": "updateEntities", "field": "done", "entities": 1, "weight": 1}],
     "dispatch": {"pattern": "single"}}
    """

    /// A valid profile that only removes, moves, sorts and inserts items,
    /// with a row consumer on every initial item: the removal rule's test.
    public static let removal = """
    {"name": "removal", "description": "rows whose items are removed", "state": {"entities": 8, "titleLength": 12},
     "consumers": [{"select": "entity", "count": 8}, {"select": "list", "count": 1}, {"select": "derived", "count": 1}],
     "actions": [{"kind": "removeEntities", "entities": 1, "weight": 2}, {"kind": "moveEntities", "entities": 2, "weight": 1},
                 {"kind": "sortEntities", "field": "title", "weight": 1}, {"kind": "insertEntities", "entities": 1, "weight": 1}],
     "dispatch": {"pattern": "single"}}
    """

    static let update = "\"kind\": \"updateEntities\", \"field\": \"done\", \"entities\": 1"

    static func replacing(_ old: String, _ new: String) -> String {
        precondition(valid.contains(old), "fixture text '\(old)' not in the valid profile")
        return valid.replacingOccurrences(of: old, with: new)
    }

    public static let malformed: [Fixture] = [
        Fixture(name: "syntax", json: "{\"name\": ", field: "", mentions: "valid JSON"),
        Fixture(name: "not-object", json: "[1, 2]", field: "", mentions: "a JSON object"),
        Fixture(name: "missing-state", json: """
            {"name": "x", "description": "d", "consumers": [], "actions": [], "dispatch": {"pattern": "single"}}
            """, field: "state", mentions: "required"),
        Fixture(name: "entities-string", json: replacing("\"entities\": 10,", "\"entities\": \"ten\","), field: "state.entities", mentions: "an integer"),
        Fixture(name: "entities-zero", json: replacing("\"entities\": 10,", "\"entities\": 0,"), field: "state.entities", mentions: "1...10000000"),
        Fixture(name: "unknown-key", json: replacing("\"titleLength\": 4", "\"titleLength\": 4, \"entites\": 3"), field: "state.entites", mentions: "unknown key"),
        Fixture(name: "bad-select", json: replacing("\"select\": \"entity\"", "\"select\": \"entities\""), field: "consumers[0].select", mentions: "\"entity\""),
        Fixture(name: "bad-kind", json: replacing("\"kind\": \"updateEntities\"", "\"kind\": \"toggle\""), field: "actions[0].kind", mentions: "\"updateEntities\""),
        Fixture(name: "missing-field", json: replacing("\"field\": \"done\", ", ""), field: "actions[0].field", mentions: "required by updateEntities"),
        Fixture(name: "too-many-entities", json: replacing("\"entities\": 1,", "\"entities\": 11,"), field: "actions[0].entities", mentions: "1...10"),
        Fixture(name: "bad-pattern", json: replacing("\"pattern\": \"single\"", "\"pattern\": \"parallel\""), field: "dispatch.pattern", mentions: "\"threads\""),
        Fixture(name: "threads-missing", json: replacing("\"pattern\": \"single\"", "\"pattern\": \"threads\""), field: "dispatch.threads", mentions: "required"),
        Fixture(name: "tree-leaf-without-tree", json: replacing("\"select\": \"entity\"", "\"select\": \"treeLeaf\""), field: "consumers[0].select", mentions: "state.tree"),
        Fixture(name: "name-with-space", json: replacing("\"name\": \"tiny\"", "\"name\": \"my app\""), field: "name", mentions: "no spaces"),
        Fixture(name: "no-consumers", json: replacing("\"count\": 2", "\"count\": 0"), field: "consumers", mentions: "between 1 and"),
        Fixture(name: "sort-without-field", json: replacing(update, "\"kind\": \"sortEntities\""), field: "actions[0].field", mentions: "required by sortEntities"),
        Fixture(name: "sort-with-entities", json: replacing(update, "\"kind\": \"sortEntities\", \"field\": \"count\", \"entities\": 2"), field: "actions[0].entities", mentions: "sorts the whole list"),
        Fixture(name: "remove-without-entities", json: replacing(update, "\"kind\": \"removeEntities\""), field: "actions[0].entities", mentions: "required by removeEntities"),
        Fixture(name: "remove-too-many", json: replacing(update, "\"kind\": \"removeEntities\", \"entities\": 11"), field: "actions[0].entities", mentions: "1...10"),
        Fixture(name: "move-with-field", json: replacing(update, "\"kind\": \"moveEntities\", \"field\": \"done\", \"entities\": 1"), field: "actions[0].field", mentions: "only updateEntities and sortEntities"),
        Fixture(name: "insert-none", json: replacing(update, "\"kind\": \"insertEntities\", \"entities\": 0"), field: "actions[0].entities", mentions: "1...10000"),
        Fixture(name: "set-field-with-entities", json: replacing(update, "\"kind\": \"setField\", \"entities\": 1"), field: "actions[0].entities", mentions: "no entity count for setField"),
        Fixture(name: "entities-fraction", json: replacing("\"entities\": 10,", "\"entities\": 1.5,"), field: "state.entities", mentions: "an integer (a count: no fraction), found 1.5"),
        Fixture(name: "count-1e30", json: replacing("\"count\": 2", "\"count\": 1e30"), field: "consumers[0].count", mentions: "found 1e+30"),
        Fixture(name: "weight-fraction", json: replacing("\"weight\": 1", "\"weight\": 0.5"), field: "actions[0].weight", mentions: "no fraction"),
        Fixture(name: "sweep-fraction", json: replacing("\"dispatch\"", "\"sweep\": [5, 7.5], \"dispatch\""), field: "sweep[1]", mentions: "found 7.5"),
        Fixture(name: "sweep-order", json: replacing("\"dispatch\"", "\"sweep\": [100, 10], \"dispatch\""), field: "sweep[1]", mentions: "increasing"),
        Fixture(name: "bad-among", json: replacing(update, update + ", \"among\": \"seen\""), field: "actions[0].among", mentions: "\"watched\""),
        Fixture(name: "among-on-remove", json: replacing(update, "\"kind\": \"removeEntities\", \"entities\": 1, \"among\": \"watched\""), field: "actions[0].among", mentions: "only updateEntities"),
        Fixture(name: "watched-without-watchers", json: replacing(update, update + ", \"among\": \"watched\"").replacingOccurrences(of: "\"select\": \"entity\"", with: "\"select\": \"field\""), field: "actions[0].among", mentions: "0 entity consumers"),
        // js-framework-benchmark's kinds, `every` and the setup.
        Fixture(name: "replace-without-entities", json: replacing(update, "\"kind\": \"replaceEntities\""), field: "actions[0].entities", mentions: "required by replaceEntities"),
        Fixture(name: "append-none", json: replacing(update, "\"kind\": \"appendEntities\", \"entities\": 0"), field: "actions[0].entities", mentions: "1...1000000"),
        Fixture(name: "clear-with-entities", json: replacing(update, "\"kind\": \"clearEntities\", \"entities\": 1"), field: "actions[0].entities", mentions: "it removes every entity"),
        Fixture(name: "swap-with-field", json: replacing(update, "\"kind\": \"swapEntities\", \"field\": \"done\""), field: "actions[0].field", mentions: "only updateEntities and sortEntities"),
        Fixture(name: "swap-too-small", json: replacing(update, "\"kind\": \"swapEntities\"").replacingOccurrences(of: "\"entities\": 10,", with: "\"entities\": 3,"), field: "actions[0].kind", mentions: "at least 4 entities"),
        Fixture(name: "swap-beside-clear", json: replacing("\"weight\": 1}]", "\"weight\": 1}, {\"kind\": \"swapEntities\", \"weight\": 1}, {\"kind\": \"clearEntities\", \"weight\": 1}]"), field: "actions[1].kind", mentions: "actions[2] is clearEntities"),
        Fixture(name: "swap-beside-setup-clear", json: replacing(update, "\"kind\": \"swapEntities\"").replacingOccurrences(of: "\"dispatch\"", with: "\"setup\": [{\"kind\": \"clearEntities\"}], \"dispatch\""), field: "actions[0].kind", mentions: "setup[0] is clearEntities"),
        Fixture(name: "select-with-entities", json: replacing(update, "\"kind\": \"selectEntity\", \"entities\": 1"), field: "actions[0].entities", mentions: "it selects one entity"),
        Fixture(name: "select-watched-without-watchers", json: replacing(update, "\"kind\": \"selectEntity\", \"among\": \"watched\"").replacingOccurrences(of: "\"select\": \"entity\"", with: "\"select\": \"rowSelected\""), field: "actions[0].among", mentions: "0 entity consumers"),
        Fixture(name: "every-on-insert", json: replacing(update, "\"kind\": \"insertEntities\", \"entities\": 1, \"every\": 2"), field: "actions[0].every", mentions: "only updateEntities"),
        Fixture(name: "every-and-entities", json: replacing(update, update + ", \"every\": 2"), field: "actions[0].entities", mentions: "either \"entities\" or \"every\""),
        Fixture(name: "every-too-large", json: replacing(update, "\"kind\": \"updateEntities\", \"field\": \"done\", \"every\": 11"), field: "actions[0].every", mentions: "1...10"),
        Fixture(name: "every-beside-structural", json: replacing("\"entities\": 1, \"weight\": 1}]", "\"every\": 2, \"weight\": 1}, {\"kind\": \"removeEntities\", \"entities\": 1, \"weight\": 1}]"), field: "actions[0].every", mentions: "actions[1] is removeEntities"),
        Fixture(name: "every-beside-setup", json: replacing("\"entities\": 1, \"weight\": 1}]", "\"every\": 2, \"weight\": 1}], \"setup\": [{\"kind\": \"insertEntities\", \"entities\": 1}]"), field: "actions[0].every", mentions: "setup[0] is insertEntities"),
        Fixture(name: "setup-with-burst", json: replacing("\"pattern\": \"single\"", "\"pattern\": \"burst\", \"burstSize\": 2").replacingOccurrences(of: "\"dispatch\"", with: "\"setup\": [{\"kind\": \"clearEntities\"}], \"dispatch\""), field: "setup", mentions: "unless the pattern is \"single\""),
        Fixture(name: "setup-empty", json: replacing("\"dispatch\"", "\"setup\": [], \"dispatch\""), field: "setup", mentions: "non-empty"),
        Fixture(name: "setup-bad-kind", json: replacing("\"dispatch\"", "\"setup\": [{\"kind\": \"wipe\"}], \"dispatch\""), field: "setup[0].kind", mentions: "\"clearEntities\""),
        Fixture(name: "setup-with-weight", json: replacing("\"dispatch\"", "\"setup\": [{\"kind\": \"clearEntities\", \"weight\": 1}], \"dispatch\""), field: "setup[0].weight", mentions: "unknown key"),
        Fixture(name: "setup-remove-too-many", json: replacing("\"dispatch\"", "\"setup\": [{\"kind\": \"removeEntities\", \"entities\": 11}], \"dispatch\""), field: "setup[0].entities", mentions: "1...10"),
        Fixture(name: "watched-with-removals", json: replacing("\"weight\": 1}]", "\"weight\": 1, \"among\": \"watched\"}, {\"kind\": \"removeEntities\", \"entities\": 1, \"weight\": 1}]"), field: "actions[0].among", mentions: "removeEntities"),
    ]
}
