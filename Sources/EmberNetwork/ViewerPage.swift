/// The page `ember serve` answers at `/`: the database's tree, opened lazily level by level and
/// kept live (changed values flash), values edited, added and removed in place, a query box,
/// import and export, and the requests it made. Everything it needs is in this one text (no
/// CDN, nothing fetched at run time but this server's REST API and event streams); it acts as
/// the emulator's `owner` unless its address says `?auth=...`.
enum ViewerPage {
    /// The page's HTML, with its style and script inline.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Ember</title>
<link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  :root { --bg: #16181d; --fg: #d8dde6; --dim: #7d8590; --key: #79b8ff; --str: #9ecb7a; --num: #e5c07b;
          --bool: #d19a66; --err: #f07178; --line: #262a33; --flash: #3a4a2a; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
  header { padding: 10px 16px; border-bottom: 1px solid var(--line); display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
  header h1 { font-size: 15px; margin: 0; color: var(--num); }
  header .where { color: var(--dim); }
  main { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 0; }
  section { padding: 12px 16px; border-right: 1px solid var(--line); min-height: calc(100vh - 48px); overflow: auto; }
  section:last-child { border-right: 0; }
  h2 { font-size: 13px; color: var(--dim); font-weight: normal; margin: 4px 0 8px; text-transform: uppercase; letter-spacing: .05em; }
  .row { white-space: nowrap; padding: 1px 4px; border-radius: 3px; }
  .row:hover { background: var(--line); }
  .row .caret { display: inline-block; width: 1.2em; color: var(--dim); cursor: pointer; user-select: none; }
  .row .key { color: var(--key); cursor: pointer; }
  .row .value { cursor: text; }
  .row .actions { visibility: hidden; margin-left: 10px; }
  .row:hover .actions { visibility: visible; }
  .actions button, .panel button { background: none; color: var(--dim); border: 1px solid var(--line); border-radius: 3px; font: inherit; font-size: 12px; cursor: pointer; padding: 0 6px; }
  .actions button:hover, .panel button:hover { color: var(--fg); border-color: var(--dim); }
  .children { margin-left: 1.2em; border-left: 1px dotted var(--line); padding-left: 4px; }
  .string { color: var(--str); } .number { color: var(--num); } .boolean { color: var(--bool); } .null { color: var(--dim); }
  .more { color: var(--dim); cursor: pointer; padding-left: 1.6em; }
  .flash { animation: flash 1.2s ease-out; }
  @keyframes flash { from { background: var(--flash); } to { background: transparent; } }
  input, textarea { background: #0f1115; color: var(--fg); border: 1px solid var(--line); border-radius: 3px; font: inherit; padding: 2px 6px; }
  textarea { width: 100%; min-height: 5em; }
  .panel { margin-bottom: 18px; }
  .panel label { color: var(--dim); display: block; margin: 6px 0 2px; }
  pre { margin: 6px 0; white-space: pre-wrap; word-break: break-all; }
  .error { color: var(--err); }
  .client { margin-bottom: 10px; }
  .client .name { color: var(--num); }
  .client div { white-space: pre-wrap; word-break: break-all; }
  #timeline { max-height: 40vh; overflow: auto; }
  #status { color: var(--dim); }
</style>
</head>
<body>
<header>
  <h1>ember</h1>
  <span class="where" id="where"></span>
  <span id="status">connecting…</span>
</header>
<main>
<section>
  <h2>Data <span class="null">(click a key to open it, a value to edit it)</span></h2>
  <div id="tree"></div>
</section>
<section>
  <div class="panel" id="session" hidden>
    <div id="shell-part" hidden>
    <h2>Clients <span class="null">(this shell session's: cache, pending writes, listens)</span></h2>
    <div id="clients"></div>
    <h2>Protocol <span class="null">(→ to the server, ← from it)</span></h2>
    <pre id="timeline"></pre>
    </div>
    <h2>Rules <span class="null">(each check: the decision and the rule that made it)</span></h2>
    <pre id="decisions"></pre>
  </div>
  <div class="panel">
    <h2>Query</h2>
    <label for="query-path">location</label>
    <input id="query-path" value="/" size="24">
    <label for="query-params">query (as the REST API takes it)</label>
    <input id="query-params" placeholder='orderBy="score"&amp;limitToLast=10' size="34">
    <button id="query-run">run</button>
    <pre id="query-result"></pre>
  </div>
  <div class="panel">
    <h2>Import and export</h2>
    <label for="io-path">location</label>
    <input id="io-path" value="/" size="24">
    <div style="margin-top:6px">
      <input type="file" id="import-file" accept=".json,application/json">
      <button id="import-run">import</button>
      <button id="export-run">export</button>
    </div>
    <pre id="io-result"></pre>
  </div>
  <div class="panel">
    <h2>Requests</h2>
    <pre id="log"></pre>
  </div>
</section>
</main>
<script>
"use strict";
// The page is Ember's own (no CDN, nothing fetched but this server's REST API). It reads the
// tree lazily: each open location streams its first children (orderBy "$key", a window) over
// Firebase's REST event stream, shallow (Ember's `shallow=true` on a stream: each child a leaf's
// value or {} for an object, and a change below a child a patch of that child), so a location of
// 200,000 children, or a database of a gigabyte, opens as fast as one of 20.
const params = new URLSearchParams(location.search);
const ns = params.get("ns");
const auth = params.get("auth") ?? "owner";
const WINDOW = 200;
document.getElementById("where").textContent = location.host + (ns ? " · " + ns : "");

function url(path, extra) {
  const query = new URLSearchParams(extra || {});
  if (ns) query.set("ns", ns);
  if (auth) query.set("auth", auth);
  const encoded = path.split("/").filter(Boolean).map(encodeURIComponent).join("/");
  return "/" + encoded + ".json?" + query.toString();
}
function join(path, key) { return (path === "/" ? "" : path) + "/" + key; }
function log(text, isError) {
  const line = document.createElement("div");
  line.textContent = new Date().toLocaleTimeString() + " " + text;
  if (isError) line.className = "error";
  const box = document.getElementById("log");
  box.prepend(line);
  while (box.childNodes.length > 50) box.lastChild.remove();
}
// Firebase's key order: keys that are 32-bit integers first, numerically, then the rest by
// UTF-16 code units (firebase-js-sdk packages/database/src/core/util/util.ts, nameCompare).
const INTEGER = /^-?(0|[1-9][0-9]{0,9})$/;
function integerKey(key) {
  if (!INTEGER.test(key) || key === "-0") return null;
  const n = Number(key);
  return n >= -2147483648 && n <= 2147483647 ? n : null;
}
function compareKeys(a, b) {
  const x = integerKey(a), y = integerKey(b);
  if (x !== null && y !== null) return x - y || a.length - b.length;
  if (x !== null) return -1;
  if (y !== null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
function isObject(value) { return value !== null && typeof value === "object"; }
function renderValue(element, value) {
  element.className = "value " + (value === null ? "null" : typeof value);
  element.textContent = isObject(value) ? "" : JSON.stringify(value);
}
async function request(method, path, body) {
  const response = await fetch(url(path), { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try { message = JSON.parse(text).error; } catch (_) {}
    log(method + " " + path + ": " + response.status + " " + message, true);
    throw new Error(message);
  }
  log(method + " " + path + " " + response.status);
  return text;
}

// One location of the tree: its row, and while open, its children and their stream.
class TreeNode {
  constructor(path, key, value, parentElement) {
    this.path = path;
    this.key = key;
    this.value = value;
    this.open = false;
    this.children = new Map();
    this.limit = WINDOW;
    this.element = document.createElement("div");
    this.element.dataset.path = path;
    this.row = document.createElement("div");
    this.row.className = "row";
    this.caret = document.createElement("span");
    this.caret.className = "caret";
    this.keyElement = document.createElement("span");
    this.keyElement.className = "key";
    this.keyElement.textContent = key === null ? "/" : key;
    this.valueElement = document.createElement("span");
    const separator = document.createElement("span");
    separator.textContent = key === null ? " " : ": ";
    separator.className = "null";
    const actions = document.createElement("span");
    actions.className = "actions";
    const add = document.createElement("button");
    add.textContent = "+ child";
    add.title = "add a child here";
    add.onclick = () => this.addChild();
    const remove = document.createElement("button");
    remove.textContent = "× delete";
    remove.title = "remove this location";
    remove.onclick = () => request("DELETE", this.path).catch(() => {});
    actions.append(add, remove);
    this.row.append(this.caret, this.keyElement, separator, this.valueElement, actions);
    this.childrenElement = document.createElement("div");
    this.childrenElement.className = "children";
    this.childrenElement.hidden = true;
    this.element.append(this.row, this.childrenElement);
    this.caret.onclick = this.keyElement.onclick = () => this.toggle();
    this.valueElement.onclick = () => this.edit();
    this.show(value, false);
    parentElement.append(this.element);
  }
  show(value, flash) {
    this.value = value;
    this.caret.textContent = isObject(value) ? (this.open ? "▾" : "▸") : "";
    renderValue(this.valueElement, value);
    if (isObject(value) && !this.open) this.valueElement.textContent = "{…}";
    if (flash) {
      this.row.classList.remove("flash");
      void this.row.offsetWidth;
      this.row.classList.add("flash");
    }
  }
  toggle() { if (this.open) this.close(); else if (isObject(this.value) || this.key === null) this.expand(); }
  expand() {
    this.open = true;
    this.childrenElement.hidden = false;
    this.show(this.value, false);
    this.listen();
  }
  close() {
    this.open = false;
    if (this.stream) this.stream.close();
    this.stream = null;
    for (const child of this.children.values()) child.close();
    this.children.clear();
    this.childrenElement.replaceChildren();
    this.childrenElement.hidden = true;
    this.show(this.value, false);
  }
  // The first `limit` children by key, kept live: the stream's first put is the window, then
  // every change below it arrives as a put or a patch.
  listen() {
    if (this.stream) this.stream.close();
    const stream = new EventSource(url(this.path, { orderBy: '"$key"', limitToFirst: String(this.limit + 1), shallow: "true" }));
    this.stream = stream;
    let first = true;
    stream.addEventListener("put", (event) => {
      this.change(JSON.parse(event.data).data, false, !first);
      first = false;
      document.getElementById("status").textContent = "live";
    });
    stream.addEventListener("patch", (event) => {
      this.change(JSON.parse(event.data).data, true, true);
    });
    stream.addEventListener("cancel", (event) => log("listen at " + this.path + " cancelled: " + event.data, true));
    stream.onerror = () => { document.getElementById("status").textContent = "reconnecting…"; };
  }
  // A shallow stream's events are all at the location: its children (put), or those that
  // changed (patch, each flashing).
  change(data, merge, flash) {
    if (merge) {
      for (const [key, value] of Object.entries(data)) this.setChild(key, value, flash, true);
    } else {
      const value = isObject(data) ? data : {};
      for (const key of [...this.children.keys()]) if (!(key in value)) this.setChild(key, null, flash);
      for (const [key, child] of Object.entries(value)) this.setChild(key, child, flash);
      if (!isObject(data) && this.key !== null) this.show(data, flash);
    }
    this.layout();
  }
  setChild(key, value, flash, changed) {
    const existing = this.children.get(key);
    // `{}` is an object not shown (shallow); only null removes.
    if (value === null) {
      if (existing) { existing.close(); existing.element.remove(); this.children.delete(key); }
      return;
    }
    if (existing) {
      if (changed || JSON.stringify(existing.value) !== JSON.stringify(value)) existing.show(value, flash);
      return;
    }
    const node = new TreeNode(join(this.path, key), key, value, this.childrenElement);
    this.children.set(key, node);
    if (flash) node.show(value, true);
  }
  // Children in key order, the window's first `limit` shown, and a line to show more.
  layout() {
    const keys = [...this.children.keys()].sort(compareKeys);
    keys.slice(0, this.limit).forEach((key) => this.childrenElement.append(this.children.get(key).element));
    for (const key of keys.slice(this.limit)) this.children.get(key).element.remove();
    if (this.moreElement) this.moreElement.remove();
    if (keys.length > this.limit) {
      this.moreElement = document.createElement("div");
      this.moreElement.className = "more";
      this.moreElement.textContent = "… show " + WINDOW + " more";
      this.moreElement.onclick = () => { this.limit += WINDOW; this.listen(); };
      this.childrenElement.append(this.moreElement);
    }
    if (this.key === null && keys.length === 0) {
      this.valueElement.textContent = "null";
      this.valueElement.className = "value null";
    }
  }
  edit() {
    if (isObject(this.value)) return this.toggle();
    const input = document.createElement("input");
    input.value = JSON.stringify(this.value);
    input.size = Math.max(8, input.value.length + 2);
    input.setAttribute("aria-label", "value of " + this.path);
    this.valueElement.replaceWith(input);
    input.focus();
    input.select();
    let finished = false;
    const done = (save) => {
      // Enter replaces the input, which blurs it: the second call does nothing.
      if (finished) return;
      finished = true;
      input.replaceWith(this.valueElement);
      if (!save) return;
      let value;
      try { value = JSON.parse(input.value); } catch (_) { value = input.value; }
      request("PUT", this.path, value).catch(() => {});
    };
    input.onkeydown = (event) => {
      if (event.key === "Enter") done(true);
      if (event.key === "Escape") done(false);
    };
    input.onblur = () => done(false);
  }
  addChild() {
    const key = prompt("key of the new child of " + this.path);
    if (!key) return;
    const text = prompt("value (JSON; text that is not JSON is a string)", '""');
    if (text === null) return;
    let value;
    try { value = JSON.parse(text); } catch (_) { value = text; }
    request("PUT", join(this.path, key), value).catch(() => {});
  }
}

const root = new TreeNode("/", null, {}, document.getElementById("tree"));
root.expand();

// A shell session's viewer (`view`) also shows its clients and the protocol's messages; `ember
// serve` has no session (204) and the panel stays hidden.
function short(value, width) {
  const text = JSON.stringify(value);
  return text.length > width ? text.slice(0, width - 1) + "…" : text;
}
function renderClients(clients) {
  const box = document.getElementById("clients");
  box.replaceChildren();
  for (const client of clients) {
    const block = document.createElement("div");
    block.className = "client";
    block.dataset.client = client.client;
    const lines = [];
    for (const view of client.views) {
      const differs = view.matchesServer === false ? "  ≠ server " + short(view.serverHas, 40) : "";
      lines.push("view " + view.path + (view.query ? " " + view.query : "") + (view.complete ? "" : " (incomplete)") + "  " + short(view.data, 60) + differs);
    }
    for (const write of client.writes) lines.push("write #" + write.id + " " + write.operation + " " + write.path + " " + short(write.value, 50) + "  " + write.state);
    for (const listen of client.listens) lines.push("listen " + listen.path + (listen.query ? " " + listen.query : ""));
    for (const transaction of client.transactions) lines.push("transaction " + transaction.path + "  " + transaction.state + ", " + transaction.attempts + " attempts");
    for (const operation of client.onDisconnect) lines.push("onDisconnect " + operation.operation + " " + operation.path + "  " + operation.state);
    const title = document.createElement("div");
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = client.client;
    title.append(name, " (" + client.connection + ")");
    const body = document.createElement("div");
    body.textContent = lines.length ? lines.join("\n") : "nothing cached, nothing pending";
    block.append(title, body);
    box.append(block);
  }
}
function appendMessages(messages) {
  const timeline = document.getElementById("timeline");
  for (const message of messages) {
    const line = document.createElement("div");
    line.textContent = new Date(message.time).toLocaleTimeString() + " " + message.summary;
    timeline.append(line);
  }
  while (timeline.childNodes.length > 300) timeline.firstChild.remove();
  if (messages.length) timeline.scrollTop = timeline.scrollHeight;
}
function renderDecisions(checks) {
  const box = document.getElementById("decisions");
  box.replaceChildren();
  if (!checks.length) { box.textContent = "no rules check yet (the rules are open, or nothing was checked)"; return; }
  for (const check of checks.slice().reverse()) {
    const line = document.createElement("div");
    line.className = check.allowed ? "" : "error";
    line.textContent = check.client + ": " + check.decision + (check.explanation.length ? "\n    " + check.explanation.join("\n    ") : "");
    box.append(line);
  }
}
(function pollSession() {
  let since = 0;
  async function tick() {
    try {
      const response = await fetch(url("/.ember/session", { since: String(since) }));
      if (response.status === 204 || response.status === 403) return;
      if (response.ok) {
        const report = await response.json();
        document.getElementById("session").hidden = false;
        document.getElementById("shell-part").hidden = report.clients.length === 0;
        renderClients(report.clients);
        appendMessages(report.messages);
        renderDecisions(report.rules || []);
        since = report.next;
      }
    } catch (_) {}
    setTimeout(tick, 500);
  }
  tick();
})();

document.getElementById("query-run").onclick = async () => {
  const path = document.getElementById("query-path").value || "/";
  const extra = Object.fromEntries(new URLSearchParams(document.getElementById("query-params").value));
  const output = document.getElementById("query-result");
  try {
    const response = await fetch(url(path, extra));
    const text = await response.text();
    output.className = response.ok ? "" : "error";
    output.textContent = response.ok ? JSON.stringify(JSON.parse(text), null, 2) : text;
    log("GET " + path + " " + response.status, !response.ok);
  } catch (error) {
    output.className = "error";
    output.textContent = String(error);
  }
};
document.getElementById("import-run").onclick = async () => {
  const file = document.getElementById("import-file").files[0];
  const path = document.getElementById("io-path").value || "/";
  const output = document.getElementById("io-result");
  if (!file) { output.textContent = "choose a JSON file first"; return; }
  const text = await file.text();
  const response = await fetch(url(path), { method: "PUT", body: text });
  output.className = response.ok ? "" : "error";
  output.textContent = response.ok ? "imported " + file.name + " at " + path : await response.text();
  log("PUT " + path + " (import) " + response.status, !response.ok);
};
document.getElementById("export-run").onclick = async () => {
  const path = document.getElementById("io-path").value || "/";
  const response = await fetch(url(path, { format: "export" }));
  const blob = await response.blob();
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = (path === "/" ? "export" : path.split("/").filter(Boolean).join("-")) + ".json";
  link.click();
  document.getElementById("io-result").textContent = "exported " + path + " (" + blob.size + " bytes)";
  log("GET " + path + " (export) " + response.status, !response.ok);
};
</script>
</body>
</html>
"""#
}
