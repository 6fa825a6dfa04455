/// Where a command run by `ember.exec` writes its results, to be handed back to the script;
/// events (`watch`) still go to the console.
final class ExecOutput: ShellOutput {
    /// Where events go.
    let console: any ShellOutput
    /// What the command printed (JSON documents, one per line).
    private(set) var text = ""
    /// What it printed on stderr (its error, as a JSON document).
    private(set) var errors = ""

    /// A capture whose events go to `console`.
    init(console: any ShellOutput) {
        self.console = console
    }

    func write(_ text: String) { self.text += text }
    func writeError(_ text: String) { errors += text }
    func writeEvent(_ text: String) { console.writeEvent(text) }
}
