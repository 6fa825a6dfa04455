import Foundation

/// Ember's browser harness: a page in a real browser, as the project's standards ask for web
/// pages. Chromium from Debian's packages (`/usr/bin/chromium`, installed by the first test that
/// needs it: ``DebianPackage``), driven headless by Playwright from PyPI in `.build/browser-venv`
/// (``PythonEnvironment``) pointed at that Chromium: `playwright install` is never run, nothing is
/// downloaded but the two packages, and a page's scripts come from servers on this machine.
///
/// A test runs a Python scenario with ``start(_:_:)`` or ``run(_:_:timeout:)``; the scenario
/// imports `browser` (`Tests/EmberNetworkTests/Scenarios/browser.py`: launching Chromium with
/// made-up host names mapped to 127.0.0.1, pages served from memory, a record of what the browser
/// saw), which the harness puts on `PYTHONPATH`. `BrowserOriginTests` is the first user.
public struct BrowserHarness: Sendable {
    /// Debian's Chromium, the one browser the harness drives.
    public static let chromium = "/usr/bin/chromium"

    /// The folder of `browser.py`, the scenarios' half of the harness.
    public static let modules = PythonEnvironment.packageRoot.appendingPathComponent("Tests/EmberNetworkTests/Scenarios")

    /// The harness, or why it cannot be had (Chromium or Playwright could not be installed): a
    /// test calls `try BrowserHarness.prepared.get()` and fails with the reason.
    public static let prepared: Result<BrowserHarness, ChildProcess.Failure> = {
        let browser = DebianPackage.ensure("chromium", provides: chromium)
        if case .failure(let failure) = browser { return .failure(failure) }
        return PythonEnvironment.prepare("browser-venv", packages: ["playwright"], check: "import playwright.sync_api")
            .map { BrowserHarness(python: $0) }
    }()

    /// The virtual environment's python, which has Playwright.
    public let python: String

    /// Starts the scenario `script` with `arguments` (its output and errors read as one text);
    /// the caller ends it (``ChildProcess/finish(timeout:)``), and talks to it on its standard
    /// input when `input` is `.pipe`.
    public func start(_ script: URL, _ arguments: [String] = [], input: ChildProcess.Input = .none) throws -> ChildProcess {
        try ChildProcess.start(
            [python, script.path] + arguments, environment: Self.environment, directory: script.deletingLastPathComponent(), input: input,
            mergingErrors: true)
    }

    /// Runs the scenario `script` with `arguments` to its end, at most `timeout` seconds.
    public func run(_ script: URL, _ arguments: [String] = [], timeout: TimeInterval = 300) -> ChildProcess.Result {
        ChildProcess.run(
            [python, script.path] + arguments, environment: Self.environment, directory: script.deletingLastPathComponent(),
            mergingErrors: true, timeout: timeout)
    }

    /// `browser` importable, no bytecode left beside the scenarios, and Playwright told of no
    /// browsers of its own.
    private static let environment: [String: String?] = [
        "PYTHONPATH": modules.path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    ]
}
