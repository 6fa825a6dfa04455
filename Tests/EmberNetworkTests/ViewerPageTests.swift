import EmberTestSupport
import Foundation
import Testing

/// The data viewer `ember serve` answers at `/` (issue 39, item 4), in a real browser
/// (``BrowserHarness``: Debian's Chromium, headless, driven by Playwright): `Scenarios/viewer.py`
/// loads the page, sees a REST write appear within a second, edits a value and adds a child in
/// the page and reads them back over REST, opens a location of 200,000 children in under a
/// second, runs a query, and keeps a screenshot in `.build/test-output/viewer.png`.
@Suite(.serialized)
struct ViewerPageTests {
    @Test("in Chromium, the viewer at / shows REST writes live, writes what is edited in it, and opens 200,000 children in under a second")
    func viewer() throws {
        let harness = try BrowserHarness.prepared.get()
        let server = try ServeProcess(["--quiet"])
        defer { server.stop() }
        let output = PythonEnvironment.packageRoot.appendingPathComponent(".build/test-output")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("viewer.png")
        try? FileManager.default.removeItem(at: screenshot)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scenarios/viewer.py")
        let result = harness.run(script, [String(server.port), screenshot.path], timeout: 240)
        #expect(result.status == 0 && result.output.contains("ok viewer"), "viewer.py (status \(result.status)):\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "the screenshot is kept at \(screenshot.path)")
        print("viewer: \(result.output.split(separator: "\n").last ?? ""); screenshot: \(screenshot.path)")
    }

    @Test("GET / is the viewer's HTML, with nothing fetched from elsewhere; a path without .json is still a 404")
    func theViewerIsHTMLAndSelfContained() throws {
        let server = try ServeProcess(["--quiet"])
        defer { server.stop() }
        let check = """
            import sys, urllib.request, urllib.error
            page = urllib.request.urlopen(sys.argv[1] + "/", timeout=30)
            html = page.read().decode()
            print(page.status, page.headers["Content-Type"], "csp" if "default-src 'self'" in (page.headers["Content-Security-Policy"] or "") else "no-csp")
            print("outside" if ("https://" in html or "http://" in html) else "self-contained", "titled" if "<title>Ember</title>" in html else "untitled")
            try:
                urllib.request.urlopen(sys.argv[1] + "/users", timeout=30)
                print("users 200")
            except urllib.error.HTTPError as error:
                print("users", error.code)
            """
        let result = ChildProcess.run(["/usr/bin/python3", "-c", check, server.url], timeout: 60)
        #expect(result.output == "200 text/html; charset=utf-8 csp\nself-contained titled\nusers 404\n", "\(result.output) \(result.error)")
    }

    @Test("a shallow stream (shallow=true, Ember's extension) carries the children only: objects as {}, a change below a child as a patch of it")
    func shallowStream() throws {
        let server = try ServeProcess(["--quiet"])
        defer { server.stop() }
        let script = """
            import http.client, sys, threading, time, urllib.request
            port = int(sys.argv[1])
            def write(method, path, body=None):
                request = urllib.request.Request(f"http://127.0.0.1:{port}{path}.json?auth=owner", data=body, method=method)
                urllib.request.urlopen(request, timeout=30).read()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", "/.json?shallow=true&auth=owner", headers={"Accept": "text/event-stream"})
            response = connection.getresponse()
            events = []
            def read():
                while len(events) < 5:
                    line = response.readline().decode()
                    if line.startswith("data: "):
                        events.append(line[6:].strip())
            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            while not events: time.sleep(0.01)
            write("PUT", "/", b'{"a": {"b": 1}, "c": 2}')
            write("PUT", "/a/b", b'5')
            write("PATCH", "/", b'{"c": 3, "d/e": 1}')
            write("DELETE", "/a/b")
            reader.join(10)
            print("\\n".join(events))
            """
        let result = ChildProcess.run(["/usr/bin/python3", "-c", script, String(server.port)], timeout: 60)
        #expect(
            result.output == """
                {"path":"/","data":null}
                {"path":"/","data":{"a":{},"c":2}}
                {"path":"/","data":{"a":{}}}
                {"path":"/","data":{"c":3,"d":{}}}
                {"path":"/","data":{"a":null}}

                """, "\(result.output) \(result.error)")
    }

    @Test("the viewer of ember serve lists the rules' decisions of every connection's requests, with the rule that made each")
    func rulesDecisions() throws {
        let directory = try TemporaryDirectory.make("ember-viewer-rules")
        defer { TemporaryDirectory.remove(directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"{"rules": {".read": true, "locked": {".write": "newData.val() > 5"}}}"#.utf8).write(to: rules)
        let server = try ServeProcess(["--quiet", "--rules", rules.path])
        defer { server.stop() }
        let script = """
            import json, sys, urllib.request, urllib.error
            base = sys.argv[1]
            def session():
                return json.loads(urllib.request.urlopen(base + "/.ember/session.json?auth=owner", timeout=30).read())
            print("before", len(session()["rules"]))
            try:
                urllib.request.urlopen(urllib.request.Request(base + "/locked.json", data=b"1", method="PUT"), timeout=30)
            except urllib.error.HTTPError as error:
                print("write", error.code)
            checks = session()["rules"]
            print("after", len(checks), checks[-1]["allowed"], checks[-1]["decision"].split(":")[0])
            try:
                urllib.request.urlopen(base + "/.ember/session.json", timeout=30)
            except urllib.error.HTTPError as error:
                print("unsigned", error.code)
            """
        let result = ChildProcess.run(["/usr/bin/python3", "-c", script, server.url], timeout: 60)
        #expect(
            result.output == "before 0\nwrite 401\nafter 1 False denied write /locked as nobody (auth == null)\nunsigned 401\n",
            "\(result.output) \(result.error)")
    }
}
