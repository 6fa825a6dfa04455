"""`ember serve`'s origin policy (OriginPolicy: Origin on CORS and WebSocket upgrades, Host
against DNS rebinding) as a real browser meets it: headless Chromium opens pages of four origins,
all served from this machine, and each tries to read what the administrator wrote:

- http://127.0.0.1:PAGES and http://localhost:PAGES: pages on this machine (a dev server), allowed;
- http://app.example:PAGES: the server's `--allow-origin`, allowed;
- http://evil.example:PAGES: another origin, which must get nothing;
- http://rebind.example:EMBER: a page whose name now resolves to 127.0.0.1 and the server's port
  (DNS rebinding), so that its requests are same-origin ones to the server: must get nothing.

From each page: fetch() without and with `Authorization: Bearer owner`, and with `?auth=owner`
(a simple request, no preflight); a no-cors POST writing by `x-http-method-override=PUT`; a
JSONP <script> (`callback=`), with and without a Referer; an EventSource; a WebSocket
speaking the realtime protocol (handshake, gauth owner, a read); and the Firebase Web SDK
(`connectDatabaseEmulator`, served from PAGES, not a CDN) reading the same value.

Usage: origins.py SDK_DIRECTORY   then, on standard input, the server's port. It prints
"pages PORT" first (the Swift test starts ember with `--allow-origin http://app.example:PORT`
and rules that let only a signed-in user read), and "ok origins" when every case passed; what
the browser saw is in every failure's message.
"""
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

NS = "browser"
SECRET = "kept"

PROBES = r"""
const wait = (ms, value) => new Promise(resolve => setTimeout(() => resolve(value), ms));

async function probeFetch(url, headers) {
  try {
    const response = await fetch(url, { headers: headers || {}, cache: "no-store" });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { error: String(error) };
  }
}

function probeScript(url, referrerPolicy) {
  return new Promise(resolve => {
    const name = "jsonp" + Math.random().toString(36).slice(2);
    const script = document.createElement("script");
    let done = false;
    const finish = result => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      delete window[name];
      script.remove();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ timeout: true }), 5000);
    window[name] = value => finish({ called: true, value });
    script.onload = () => setTimeout(() => finish({ loaded: true, called: false }), 50);
    script.onerror = () => finish({ error: "error event" });
    if (referrerPolicy) script.referrerPolicy = referrerPolicy;
    script.src = url + "&callback=" + name;
    document.head.appendChild(script);
  });
}

function probeEvents(url) {
  return new Promise(resolve => {
    const log = { events: [] };
    const source = new EventSource(url);
    const finish = () => { clearTimeout(timer); source.close(); resolve(log); };
    const timer = setTimeout(() => { log.events.push("timeout"); finish(); }, 5000);
    source.addEventListener("put", event => { log.put = JSON.parse(event.data); finish(); });
    source.onerror = () => {
      log.events.push("error, readyState " + source.readyState);
      if (source.readyState === EventSource.CLOSED) finish();
    };
  });
}

// The realtime protocol v5 by hand: the server's hello, gauth owner, then a read of /secret.
function probeSocket(url) {
  return new Promise(resolve => {
    const log = { events: [], received: [] };
    let socket;
    let done = false;
    const finish = () => { if (!done) { done = true; clearTimeout(timer); resolve(log); } };
    const timer = setTimeout(() => { log.events.push("timeout"); try { socket.close(); } catch (e) {} finish(); }, 6000);
    try {
      socket = new WebSocket(url);
    } catch (error) {
      log.events.push("constructor threw " + error);
      return finish();
    }
    const send = request => socket.send(JSON.stringify({ t: "d", d: request }));
    socket.onopen = () => log.events.push("open");
    socket.onerror = () => log.events.push("error");
    socket.onclose = event => {
      log.events.push("close");
      log.close = { code: event.code, reason: event.reason, clean: event.wasClean };
      finish();
    };
    socket.onmessage = event => {
      log.received.push(event.data.slice(0, 200));
      const message = JSON.parse(event.data);
      if (message.t === "c" && message.d.t === "h") {
        send({ r: 1, a: "gauth", b: { cred: "owner" } });
      } else if (message.t === "d" && message.d.r === 1) {
        log.gauth = message.d.b.s;
        send({ r: 2, a: "g", b: { p: "/secret", q: {} } });
      } else if (message.t === "d" && message.d.r === 2) {
        log.read = message.d.b;
        socket.close(1000);
      }
    };
  });
}

// A write a page cannot read the answer of, needing no preflight (no-cors, text/plain): a PUT
// by `x-http-method-override`. Whether it landed is read back by REST afterwards.
async function probeWrite(url) {
  try {
    const response = await fetch(url, { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: JSON.stringify("written") });
    return { type: response.type };
  } catch (error) {
    return { error: String(error) };
  }
}

// The Firebase Web SDK as an app on this page uses the emulator (`connectDatabaseEmulator`, a
// signed-in user by `mockUserToken`): auth over a WebSocket (long polling if that fails), get().
async function probeSDK(sdk, host, port, ns) {
  let modules;
  try {
    modules = [await import(`${sdk}/firebase-app.js`), await import(`${sdk}/firebase-database.js`)];
  } catch (error) {
    return { error: "cannot import the SDK: " + error };
  }
  const [{ initializeApp, deleteApp }, { getDatabase, connectDatabaseEmulator, ref, get }] = modules;
  const app = initializeApp({ databaseURL: `http://${host}:${port}?ns=${ns}`, projectId: "demo-ember" }, "probe-" + Math.random());
  const database = getDatabase(app);
  connectDatabaseEmulator(database, host, port, { mockUserToken: { sub: "alice", user_id: "alice" } });
  try {
    const snapshot = await Promise.race([get(ref(database, "secret")), wait(8000, "timeout")]);
    return snapshot === "timeout" ? { timeout: true } : { value: snapshot.val() };
  } catch (error) {
    return { error: String(error) };
  } finally {
    await Promise.race([deleteApp(app), wait(2000)]);
  }
}

async function probeAll(ember, ws, sdk, host, port, ns, label) {
  const secret = `${ember}/secret.json?ns=${ns}`;
  return {
    write: await probeWrite(`${ember}/written/${label}.json?ns=${ns}&auth=owner&x-http-method-override=PUT`),
    fetch: await probeFetch(secret),
    fetchBearer: await probeFetch(secret, { Authorization: "Bearer owner" }),
    fetchQuery: await probeFetch(secret + "&auth=owner"),
    jsonp: await probeScript(secret + "&auth=owner"),
    jsonpNoReferrer: await probeScript(secret + "&auth=owner", "no-referrer"),
    events: await probeEvents(secret + "&auth=owner"),
    socket: await probeSocket(`${ws}/.ws?v=5&ns=${ns}`),
    sdk: await probeSDK(sdk, host, port, ns),
  };
}
"""

PAGE = "<!doctype html><meta charset=utf-8><title>probe</title><body>probe<script>" + PROBES + "</script>"


class Failures:
    """The expectations that failed, by page, each page's record once."""

    def __init__(self):
        self.pages = {}  # page name: (page, [what failed])

    def expect(self, condition, what, page, outcome):
        if not condition:
            self.pages.setdefault(page.name, (page, []))[1].append(f"  {what}: got {browser.dumps(outcome)}")

    def report(self):
        return "\n".join(f"{name}:\n" + "\n".join(lines) + f"\n  what the browser saw:\n{page.report()}"
                         for name, (page, lines) in self.pages.items())


def write_secret(port):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/secret.json?ns={NS}", data=json.dumps(SECRET).encode(), method="PUT",
        headers={"Authorization": "Bearer owner"})
    with urllib.request.urlopen(request, timeout=10) as response:
        if response.status != 200:
            raise AssertionError(f"the write before the browser: {response.status}")


def read(port, path):
    """The value at `path`, read by the administrator without an Origin (as curl would)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/{path}.json?ns={NS}", headers={"Authorization": "Bearer owner"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def sdk_files(directory):
    with open(os.path.join(directory, "firebase-app.js"), encoding="utf-8") as file:
        app = file.read()
    with open(os.path.join(directory, "firebase-database.js"), encoding="utf-8") as file:
        database = file.read().replace("'https://www.gstatic.com/firebasejs/9.8.1/firebase-app.js'", "'./firebase-app.js'")
    return {"/firebase-app.js": app, "/firebase-database.js": database}


def allowed(failures, page, origin, outcome):
    """Everything works for a page on this machine or of the allowed origin."""
    failures.expect(outcome["fetch"].get("status") == 401 and SECRET not in outcome["fetch"].get("body", ""),
                    f"{origin}: fetch without a credential is refused by the rules (401)", page, outcome["fetch"])
    failures.expect(outcome["fetchBearer"] == {"status": 200, "body": json.dumps(SECRET)},
                    f"{origin}: fetch with Authorization: Bearer owner (preflighted) reads the value", page, outcome["fetchBearer"])
    failures.expect(outcome["fetchQuery"] == {"status": 200, "body": json.dumps(SECRET)},
                    f"{origin}: fetch with ?auth=owner reads the value", page, outcome["fetchQuery"])
    failures.expect(outcome["jsonp"] == {"called": True, "value": SECRET},
                    f"{origin}: a JSONP <script> (callback=) reads the value", page, outcome["jsonp"])
    # Without a Referer, a <script> from another site cannot be told from an attacker's: refused.
    failures.expect(outcome["jsonpNoReferrer"] == {"error": "error event"},
                    f"{origin}: a JSONP <script> with referrerpolicy=no-referrer is refused", page, outcome["jsonpNoReferrer"])
    failures.expect(outcome["events"].get("put") == {"path": "/", "data": SECRET},
                    f"{origin}: an EventSource gets the value", page, outcome["events"])
    socket = outcome["socket"]
    failures.expect(socket.get("gauth") == "ok" and socket.get("read") == {"s": "ok", "d": SECRET},
                    f"{origin}: a WebSocket signs in with gauth owner and reads the value", page, socket)
    failures.expect(outcome["sdk"] == {"value": SECRET}, f"{origin}: the Web SDK reads the value", page, outcome["sdk"])
    failures.expect(outcome["written"] == "written", f"{origin}: a no-cors POST (x-http-method-override=PUT) writes",
                    page, {"write": outcome["write"], "read back": outcome["written"]})


def refused(failures, page, origin, outcome, same_origin=False):
    """Nothing works for a page of another origin, or a rebinding name."""
    text = browser.dumps({name: value for name, value in outcome.items() if name != "written"})
    failures.expect(SECRET not in text, f"{origin}: no probe read the value", page, outcome)
    for name in ["fetch", "fetchBearer", "fetchQuery"]:
        result = outcome[name]
        if same_origin:
            # Same-origin requests are not CORS: the browser hands the page the server's refusal.
            failures.expect(result.get("status") == 403, f"{origin}: {name} is refused with 403", page, result)
        else:
            failures.expect(result == {"error": "TypeError: Failed to fetch"},
                            f"{origin}: {name} fails in the browser (CORS)", page, result)
    for name in ["jsonp", "jsonpNoReferrer"]:
        failures.expect(outcome[name] == {"error": "error event"}, f"{origin}: {name}'s <script> fails to load", page, outcome[name])
    failures.expect("put" not in outcome["events"], f"{origin}: the EventSource gets no data", page, outcome["events"])
    socket = outcome["socket"]
    failures.expect("open" not in socket["events"] and socket["received"] == [] and socket.get("close", {}).get("code") == 1006,
                    f"{origin}: the WebSocket is refused (never opens, closes with 1006)", page, socket)
    failures.expect("value" not in outcome["sdk"], f"{origin}: the Web SDK reads nothing", page, outcome["sdk"])
    failures.expect(outcome["written"] is None, f"{origin}: a no-cors POST (x-http-method-override=PUT) writes nothing",
                    page, {"write": outcome["write"], "read back": outcome["written"]})


def main():
    sdk = sdk_files(sys.argv[1])
    with browser.Pages({"/": PAGE, **sdk}) as served:
        print(f"pages {served.port}", flush=True)
        line = sys.stdin.readline().strip()
        if not line.isdigit():
            raise SystemExit(f"expected the server's port on standard input, got {line!r}")
        port = int(line)
        write_secret(port)
        ember, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        rebind = f"http://rebind.example:{port}"
        sdk_base = f"http://127.0.0.1:{served.port}"  # the SDK's files, for the rebound page (ember serves none)
        failures = Failures()
        local = {"127.0.0.1", "localhost", "app.example", "evil.example", "rebind.example"}

        def probe(page, name, ember, ws, sdk, host, label):
            outcome = page.evaluate("([e, w, s, h, p, n, l]) => probeAll(e, w, s, h, p, n, l)", [ember, ws, sdk, host, port, NS, label])
            outcome["written"] = read(port, f"written/{label}")
            print(f"{name}: {browser.dumps(outcome)}", flush=True)
            outside = [url for url in page.requested if url.split("/")[2].rsplit(":", 1)[0] not in local]
            failures.expect(outside == [], f"every request stays on this machine", page, outside)
            return outcome

        hosts = ["app.example", "evil.example", "rebind.example"]
        with browser.launch(hosts) as chromium:
            cases = [
                (f"http://127.0.0.1:{served.port}", allowed),
                (f"http://localhost:{served.port}", allowed),
                (f"http://app.example:{served.port}", allowed),
                (f"http://evil.example:{served.port}", refused),
            ]
            for number, (origin, check) in enumerate(cases):
                page = browser.Page(chromium, origin + "/", name=origin)
                check(failures, page, origin, probe(page, origin, ember, ws, origin, "127.0.0.1", f"page{number}"))
                page.close()

            # DNS rebinding, the plain way: the browser goes to the server under the attacker's
            # name; the answer holds nothing.
            page = browser.Page(chromium, name=f"{rebind} (a navigation)")
            status = page.open(f"{rebind}/secret.json?ns={NS}&auth=owner")
            shown = page.text()
            print(f"{page.name}: {status} {shown!r}", flush=True)
            failures.expect(status == 403 and SECRET not in shown, "a navigation to the server under that name is refused",
                            page, {"status": status, "text": shown})
            page.close()

            # Then an attacker's page loaded under that name before it was rebound (the browser
            # answers for the document itself), whose requests now reach the server same-origin.
            # Chromium's own Local Network Access checks stop them first (a page of no known
            # address reaching 127.0.0.1)...
            page = rebound_page(chromium, rebind, f"{rebind} (rebound, Local Network Access on)")
            outcome = probe(page, page.name, rebind, f"ws://rebind.example:{port}", sdk_base, "rebind.example", "rebound1")
            refused(failures, page, rebind, outcome)
            page.close()
        # ...so the server's own check (the Host header) is tried in a Chromium without them, as
        # browsers without Local Network Access (Firefox, Safari, Chrome before 142) behave.
        with browser.launch(hosts, local_network_access=False) as chromium:
            page = rebound_page(chromium, rebind, f"{rebind} (rebound, Local Network Access off)")
            outcome = probe(page, page.name, rebind, f"ws://rebind.example:{port}", sdk_base, "rebind.example", "rebound2")
            refused(failures, page, rebind, outcome, same_origin=True)
            page.close()
        if failures.pages:
            print("FAILED\n" + failures.report(), flush=True)
            sys.exit(1)
        print("ok origins", flush=True)


def rebound_page(chromium, rebind, name):
    """A page at `rebind`/ whose document the browser answered itself."""
    page = browser.Page(chromium, name=name)
    page.route(f"{rebind}/", PAGE)
    page.open(f"{rebind}/")
    page.stop_routing()
    return page


if __name__ == "__main__":
    main()
