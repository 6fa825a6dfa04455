import EmberClient
import EmberCore
import EmberSync

/// The guided tour in progress: the lesson, and what was seen since it began (the events
/// printed, the errors, whether a trace printed or a write waited offline), for its check.
struct Tour {
    /// The lesson, from 0.
    var lesson: Int
    /// Where the tour keeps its files (the rules of the last lesson).
    let directory: String
    var baseline: [Path: Node] = [:]
    var events: [TourObservation.Seen] = []
    var errors: [String] = []
    var traced = false
    var queuedOffline = false
    var presenceSeen: Set<ChildKey> = []
    var usersAtDenial: Node?

    /// The paths whose data the lessons compare with the start.
    static let watchedPaths = [TourLesson.dinos, TourLesson.counter, TourLesson.presenceRoot]

    /// Starts `lesson` afresh: what it checks begins now.
    mutating func begin(_ lesson: Int, serverData: (Path) -> Node) {
        self.lesson = lesson
        baseline = Dictionary(uniqueKeysWithValues: Self.watchedPaths.map { ($0, serverData($0)) })
        events = []
        errors = []
        traced = false
        queuedOffline = false
        usersAtDenial = nil
        presenceSeen = Set(serverData(TourLesson.presenceRoot).children.map(\.key))
    }
}
