"""The data viewer `ember serve` answers at `/`, in Chromium (issue 39, item 4): the page loads
from the server alone, a REST write appears in it within a second, a value edited in the page is
read back over REST, a location of 200,000 children opens in under a second, and a screenshot is
kept. Arguments: the server's port, the screenshot's path. Prints `ok viewer` and the timings.
"""
import json
import sys
import time
import urllib.request

import browser

port = int(sys.argv[1])
screenshot = sys.argv[2]
base = f"http://127.0.0.1:{port}"


def rest(method, path, value=None):
    data = None if value is None else json.dumps(value).encode()
    request = urllib.request.Request(f"{base}{path}.json?auth=owner", data=data, method=method)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"null")




def fail(message, page):
    print("FAILED:", message)
    print("what the browser saw:", *page.seen[-60:], sep="\n  ")
    sys.exit(1)


# 200,000 children in one location, and a little more beside it.
rest("PUT", "/big", {f"k{index:06d}": index for index in range(200_000)})
rest("PUT", "/users", {"ada": {"name": "Ada", "born": 1815}, "alan": {"name": "Alan", "born": 1912}})

with browser.launch() as chromium:
    page = browser.Page(chromium, base + "/", name="the viewer")
    if page.status != 200:
        fail(f"GET / answered {page.status}", page)
    tab = page.page
    try:
        tab.wait_for_selector('[data-path="/users"] .key', timeout=5_000)
    except Exception as error:
        fail(f"the root's children did not show: {error}", page)
    outside = [url for url in page.requested if not url.startswith(base)]
    if outside:
        fail(f"the page fetched from elsewhere: {outside}", page)

    # A REST write appears within a second.
    started = time.monotonic()
    rest("PUT", "/live", "from REST")
    try:
        tab.wait_for_selector('[data-path="/live"] .value.string', timeout=1_000)
    except Exception as error:
        fail(f"a REST write did not appear within a second: {error}", page)
    appeared = time.monotonic() - started
    shown = tab.inner_text('[data-path="/live"] .value')
    if shown != '"from REST"':
        fail(f"the page shows {shown!r} for /live", page)

    # A value edited in the page is read back over REST.
    tab.click('[data-path="/live"] .value')
    tab.fill('input[aria-label="value of /live"]', '"edited in the page"')
    tab.press('input[aria-label="value of /live"]', "Enter")
    deadline = time.monotonic() + 5
    while rest("GET", "/live") != "edited in the page" and time.monotonic() < deadline:
        time.sleep(0.05)
    if rest("GET", "/live") != "edited in the page":
        fail(f"the edit did not reach the server: /live is {rest('GET', '/live')!r}", page)
    if not browser.wait_until(lambda: tab.inner_text('[data-path="/live"] .value') == '"edited in the page"', 2):
        fail("the page does not show the edited value", page)

    # A child added and one deleted in the page.
    # The two prompts: the key, then the value.
    answers = iter(["grace", '{"name": "Grace"}'])
    tab.on("dialog", lambda dialog: dialog.accept(next(answers)))
    tab.hover('[data-path="/users"] > .row')
    tab.click('[data-path="/users"] > .row .actions button:has-text("+ child")')
    deadline = time.monotonic() + 5
    while rest("GET", "/users/grace/name") != "Grace" and time.monotonic() < deadline:
        time.sleep(0.05)
    if rest("GET", "/users/grace/name") != "Grace":
        fail("a child added in the page did not reach the server", page)

    # The location of 200,000 children opens in under a second.
    started = time.monotonic()
    tab.click('[data-path="/big"] > .row .key')
    try:
        tab.wait_for_selector('[data-path="/big/k000000"] .value.number', timeout=1_000)
        tab.wait_for_selector('[data-path="/big"] .more', timeout=1_000)
    except Exception as error:
        fail(f"200,000 children did not open within a second: {error}", page)
    opened = time.monotonic() - started
    rows = tab.eval_on_selector_all('[data-path="/big"] > .children > div[data-path]', "rows => rows.length")
    if rows != 200:
        fail(f"the page shows {rows} of the 200,000 children, not the first 200", page)
    first = tab.inner_text('[data-path="/big"] > .children > div[data-path] .key')
    if first != "k000000":
        fail(f"the first child shown is {first!r}", page)

    # A change inside the open location flashes in place.
    rest("PUT", "/big/k000001", -1)
    if not browser.wait_until(lambda: tab.inner_text('[data-path="/big/k000001"] .value') == "-1", 1):
        fail("a change inside the open location did not show within a second", page)

    # The query box.
    tab.fill("#query-path", "/users")
    tab.fill("#query-params", 'orderBy="born"&limitToLast=1')
    tab.click("#query-run")
    if not browser.wait_until(lambda: "Alan" in tab.inner_text("#query-result"), 2):
        fail(f"the query box shows {tab.inner_text('#query-result')!r}", page)
    if "Ada" in tab.inner_text("#query-result"):
        fail("the query box did not apply the query", page)

    tab.screenshot(path=screenshot, full_page=False)
    errors = [line for line in page.seen if line.startswith("page error") or "console error" in line]
    if errors:
        fail(f"the page reported errors: {errors}", page)
    print(f"ok viewer: a REST write appeared in {appeared * 1000:.0f} ms, 200,000 children opened in {opened * 1000:.0f} ms")
