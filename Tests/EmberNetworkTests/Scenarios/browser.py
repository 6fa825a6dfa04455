"""The browser harness of Ember's tests: Debian's Chromium (/usr/bin/chromium), headless, driven
by Playwright from PyPI (never a browser of Playwright's own: `playwright install` is not run),
made-up host names mapped to 127.0.0.1 (`--host-resolver-rules`), pages served from memory by
Python's http.server on a free port, and a record of what the browser saw on each page (console
messages, failed requests, responses) for assertion messages.

The Swift side (`BrowserHarness` in EmberTestSupport) installs Chromium and Playwright and runs a
scenario with the virtual environment's python; a scenario imports this module:

    with browser.Pages({"/": "<!doctype html>..."}) as pages, browser.launch(["app.example"]) as chromium:
        page = browser.Page(chromium, f"http://app.example:{pages.port}/")
        page.evaluate("...")
"""
import contextlib
import http.server
import json
import threading
import time

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"  # Debian's package `chromium`
TIMEOUT_MS = 15_000  # every Playwright wait (navigation, evaluate's promise, launch)


class Pages:
    """Pages served from memory on 127.0.0.1 and a free port, under any host name (the browser
    maps its made-up names here): `{path: text}`, JavaScript for a path ending in `.js`, HTML
    otherwise, readable by pages of every origin (`Access-Control-Allow-Origin: *`, for module
    imports across origins); a context manager (stops the server)."""

    def __init__(self, pages):
        served = {path: html.encode() for path, html in pages.items()}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?", 1)[0]
                body = served.get(path)
                self.send_response(200 if body is not None else 404)
                kind = "text/javascript" if path.endswith(".js") else "text/html"
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exception):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@contextlib.contextmanager
def launch(hosts=(), local_network_access=True):
    """Headless Chromium (the system's) with each of `hosts` resolving to 127.0.0.1; closed at
    the end of the block. Without `local_network_access`, Chromium does not stop a page of a
    public (or unknown) address from reaching 127.0.0.1, as Firefox and Safari do not: for
    trying what the server itself refuses."""
    rules = ", ".join(f"MAP {host} 127.0.0.1" for host in hosts)
    arguments = ["--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"]
    if rules:
        arguments.append(f"--host-resolver-rules={rules}")
    if not local_network_access:
        arguments.append("--disable-features=" + ",".join([
            "LocalNetworkAccessChecks", "LocalNetworkAccessChecksWebSockets", "BlockInsecurePrivateNetworkRequests",
            "PrivateNetworkAccessSendPreflights", "PrivateNetworkAccessRespectPreflightResults"]))
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=arguments, timeout=TIMEOUT_MS)
        try:
            yield chromium
        finally:
            chromium.close()


class Page:
    """A page of a fresh browser context (no cookies or cache shared with another page), opened
    at `url` (or left blank for `route` to fill first), recording what the browser saw; `name`
    says which in messages."""

    def __init__(self, chromium, url=None, name=None):
        self.name = name or url or "a page"
        self.context = chromium.new_context()
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = self.context.new_page()
        self.seen = []  # what the browser said, in order: console messages, failures, responses
        self.requested = []  # the URL of every request the page made
        self.page.on("request", lambda request: self.requested.append(request.url))
        self.page.on("console", lambda message: self.seen.append(f"console {message.type}: {message.text}"))
        self.page.on("pageerror", lambda error: self.seen.append(f"page error: {error}"))
        self.page.on("requestfailed", lambda request: self.seen.append(
            f"failed {request.method} {request.url}: {request.failure}"))
        self.page.on("response", lambda response: self.seen.append(
            f"response {response.request.method} {response.url}: {response.status}"))
        self.page.on("websocket", self._websocket)
        self.status = None
        if url is not None:
            self.open(url)

    def _websocket(self, socket):
        self.seen.append(f"websocket {socket.url}")
        socket.on("framereceived", lambda payload: self.seen.append(f"websocket received: {str(payload)[:200]}"))
        socket.on("socketerror", lambda error: self.seen.append(f"websocket error: {error}"))
        socket.on("close", lambda _: self.seen.append("websocket closed"))

    def route(self, url, html):
        """Answers the page's own requests for exactly `url` with `html`, without the network:
        a document that came from elsewhere (before a DNS rebinding, say)."""
        self.page.route(url, lambda route: route.fulfill(status=200, content_type="text/html", body=html))

    def stop_routing(self):
        """Ends ``route``'s answers. Until then Playwright intercepts every request of the page
        and answers CORS preflights itself, allowing everything: a page whose CORS is under test
        must not be routed while it makes its requests."""
        self.page.unroute_all()

    def open(self, url):
        """Navigates to `url`: the response's status (None when the browser got none)."""
        response = self.page.goto(url, wait_until="load")
        self.status = response.status if response else None
        return self.status

    def text(self):
        """The text the page shows."""
        return self.page.inner_text("body") if self.page.query_selector("body") else ""

    def evaluate(self, expression, argument=None):
        """Runs `expression` (a function of `argument`, maybe async) in the page: its result."""
        return self.page.evaluate(expression, argument)

    def report(self):
        """What the browser saw on this page, one line each, for an assertion message."""
        return "\n".join("    " + line for line in self.seen) or "    (nothing)"

    def close(self):
        self.context.close()


def dumps(value):
    """`value` as compact JSON, for messages."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def wait_until(condition, seconds):
    """Polls `condition` until it holds (True) or `seconds` pass (False); an exception counts as
    not yet. For pages whose Content-Security-Policy forbids Playwright's string predicates."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except Exception:
            pass
        time.sleep(0.02)
    return False
