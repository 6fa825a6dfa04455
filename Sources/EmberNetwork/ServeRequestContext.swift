import Hummingbird
import NIOCore

/// The request context of `ember serve`'s HTTP requests: Hummingbird's core context, and the
/// connection's channel, whose closing ends an event stream at once (a client that went away
/// is noticed then, not at the stream's next write).
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The HTTP connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
