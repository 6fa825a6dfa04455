import Foundation
import EmberLua

/// A help page that is not a command: `help query`, `help values`, `help lua`.
struct HelpTopic {
    /// The name `help` takes.
    let name: String
    /// One line for the list of topics.
    let summary: String
    /// Paragraphs; a paragraph of `usage\tsummary` lines is laid out as two columns.
    let paragraphs: [String]

    /// Every topic, in the order `help` lists them.
    static let all: [HelpTopic] = [query, values, lua] + concepts

    /// A page for each concept the tour teaches (but queries, which `help query` explains):
    /// the lesson's explanation and the commands to try.
    static let concepts: [HelpTopic] = TourLesson.all.filter { $0.topic != "query" }.map { lesson in
        HelpTopic(
            name: lesson.topic, summary: lesson.title.prefix(1).lowercased() + lesson.title.dropFirst(),
            paragraphs: [
                lesson.explanation,
                "Try: " + lesson.tries.map { $0.replacingOccurrences(of: "RULES", with: "FILE") }.joined(separator: "; ") + ".",
                "tour \((TourLesson.all.firstIndex { $0.topic == lesson.topic } ?? 0) + 1) walks through it, checking as you go.",
            ])
    }

    static let query = HelpTopic(
        name: "query",
        summary: "the query modifiers of get, ls and watch: order, range, limit",
        paragraphs: [
            "A query follows the path of get, ls and watch: `ls /scores orderBy child score limitToLast 3`. It orders the children, keeps those in a range, and keeps the first or last N, as the Firebase SDKs' queries do. One order per query; the other modifiers combine.",
            "orderBy key\tby key: integer-like keys first, numerically, then the rest as strings\norderBy value\tby the child's own value: null, false, true, numbers, strings, then objects\norderBy priority\tby priority (the default order)\norderBy child PATH\tby the value at PATH under each child (PATH may be deep: a/b)\nstartAt V [KEY]\tfrom V on (V is a number, a string, true, false or null)\nstartAfter V [KEY]\tafter V\nendAt V [KEY]\tup to V\nendBefore V [KEY]\tbefore V\nequalTo V [KEY]\tonly V (startAt and endAt at once)\nlimitToFirst N\tthe first N children in the order\nlimitToLast N\tthe last N children in the order\ntimeout MS\tget and ls: how long to wait for the connection when nothing is cached",
            "KEY breaks ties among children with the same value, by key. With orderBy key, V is a key. Watch a query to see child_added and child_removed as children enter and leave its window; child_moved says a child changed place in the order.",
            "Example: watch /scores orderBy child score limitToLast 3 child_added child_removed",
        ])

    static let values = HelpTopic(
        name: "values",
        summary: "how to type values: relaxed JSON, server values, priorities",
        paragraphs: [
            "Values are JSON, relaxed for typing: keys need no quotes ({name: 'Al'}), strings take single or double quotes, trailing commas and # comments are allowed, true, false and null in any case. A key may be a deep path in update: {a/b: 1}. Output is always strict JSON.",
            "now\tthe server's time when the write lands (a server timestamp, ms since 1970)\nincrement(N)\tadds N to the number on the server, atomically\npriority P\tafter set: the location's priority (a number, a string or null)",
            "What the database keeps: objects, strings, numbers (64-bit integers exactly; others as doubles), booleans. null and empty objects delete: setting null removes the location. Arrays are stored as objects with keys 0, 1, 2... and come back as arrays while most keys are present, as in Firebase. Keys are at most 768 bytes and may not contain . $ # [ ] / or control characters.",
            "Example: set /posts/p1 {title: 'Hello', at: now, likes: 0} and increment /posts/p1/likes 1",
        ])

    /// Written from the Lua reference (`LuaReference`, which docs/LUA.md is written from too),
    /// so that help and the documentation cannot drift.
    static let lua = HelpTopic(
        name: "lua",
        summary: "scripting: db, references, queries, listeners, transactions",
        paragraphs: [LuaReference.overview]
            + LuaReference.groups.map { group in
                group.entries.map { "\($0.signature)\t\($0.firstSentence)" }.joined(separator: "\n")
            }
            + [
                LuaReference.closing,
                "Every binding with its errors and an example: docs/LUA.md. Example: lua for i = 1, 3 do db:ref('n/' .. i):set(i * i) end",
            ])
}
