/// How long a shell command waits for the server to acknowledge a write (issue 37: with the
/// server gone, a write waited for ever, at the prompt and in scripts alike).
public enum AcknowledgementWait: Sendable, Hashable {
    /// At the prompt: while the client is connected, until the answer comes (Ctrl-C stops the
    /// wait); while it is not, not at all: the write is queued, the command says so and
    /// returns.
    case interactive
    /// In a script (`-c`, `-e`, `-f`, a script file, commands on standard input): up to
    /// `milliseconds`, connected or not (`--ack-timeout`); then the command fails, naming the
    /// write and where it is kept, and the script stops.
    case bounded(milliseconds: Int64)
    /// In a script with `--ack-timeout 0`: until the answer comes.
    case unbounded
}
