"""The viewer of a shell session (`view`, issue 39, item 4), in Chromium: beside the data, each
client's cache and pending writes, and the protocol's messages as a timeline. Arguments: the
page's address, the screenshot's path. Prints `ok session`.
"""
import sys
import time

import browser

address, screenshot = sys.argv[1], sys.argv[2]




with browser.launch() as chromium:
    page = browser.Page(chromium, address, name="the session's viewer")
    tab = page.page
    checks = {
        "the data": lambda: tab.inner_text('[data-path="/chat"] .key') == "chat",
        "client main": lambda: tab.query_selector('[data-client="main"]') is not None,
        "bob's queued write": lambda: "queued" in tab.inner_text('[data-client="bob"]') and "/chat/m2" in tab.inner_text('[data-client="bob"]'),
        "bob's view differs from the server": lambda: "≠ server" in tab.inner_text('[data-client="bob"]'),
        "the put in the timeline": lambda: "→ main #" in tab.inner_text("#timeline") and "p /chat/m1" in tab.inner_text("#timeline"),
        "the update bob got": lambda: "← bob d /chat" in tab.inner_text("#timeline"),
        "the rules' refusal and its rule": lambda: "denied write /locked" in tab.inner_text("#decisions")
        and ".write" in tab.inner_text("#decisions"),
    }
    for name, check in checks.items():
        if not browser.wait_until(check, 5):
            print(f"FAILED: {name} is not shown")
            print("clients:", tab.inner_text("#clients") if tab.query_selector("#clients") else "-")
            print("timeline:", tab.inner_text("#timeline") if tab.query_selector("#timeline") else "-")
            print("what the browser saw:", *page.seen[-30:], sep="\n  ")
            sys.exit(1)
    tab.screenshot(path=screenshot)
    print("ok session")
