"""Headless Chromium (Debian's chromium) driven over the DevTools protocol's
websocket, for the tests of the listener's pages: navigate, evaluate,
fill and submit forms as a person would, and take screenshots."""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websocket

import itest


class Chromium:
    """One headless Chromium with one page, driven over the DevTools protocol's websocket."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="airlock-chromium-")
        self.proc = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--ignore-certificate-errors", "--disable-gpu",
             "--no-first-run", "--remote-debugging-port=0", "--remote-allow-origins=*",
             "--user-data-dir=" + self.dir, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = os.path.join(self.dir, "DevToolsActivePort")
        assert itest.wait_until(lambda: os.path.exists(active) and open(active).read().count("\n") >= 1, 30, 0.1)
        port = int(open(active).read().split("\n")[0])
        targets = []
        for _ in range(100):
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10) as r:
                targets = [t for t in json.loads(r.read()) if t["type"] == "page"]
            if targets:
                break
            time.sleep(0.1)
        self.ws = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(domain + ".enable")

    def call(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise AssertionError("%s: %s" % (method, msg["error"]))
                return msg["result"]
            self.events.append(msg)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.ws.settimeout(max(0.1, deadline - time.time()))
            self.events.append(json.loads(self.ws.recv()))
        raise AssertionError("no %s within %s s" % (method, timeout))

    def loaded_after(self, action):
        """Runs action (which starts a navigation) and waits for the new page's load."""
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        action()
        self.wait_event("Page.loadEventFired")

    def navigate(self, url):
        self.loaded_after(lambda: self.call("Page.navigate", url=url))

    def eval(self, expression):
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in got, got
        return got["result"].get("value")

    def submit(self, form, **fields):
        """Fills the form's fields (a CSS selector for the form) as a person would and submits it."""
        for name, value in fields.items():
            self.eval("document.querySelector(%s).elements[%s].value = %s"
                      % (json.dumps(form), json.dumps(name), json.dumps(value)))
        self.loaded_after(lambda: self.eval("document.querySelector(%s).requestSubmit()" % json.dumps(form)))

    def errors(self):
        """Script exceptions and console output seen so far (the page has no script: there should be none)."""
        return [e for e in self.events if e.get("method") in ("Runtime.exceptionThrown", "Runtime.consoleAPICalled")]

    def screenshot(self, path):
        """The page as it is drawn, whole, into a PNG file at path (its directory made)."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        self.call("Emulation.setDeviceMetricsOverride", width=max(1280, int(size["width"])),
                  height=int(size["height"]), deviceScaleFactor=1, mobile=False)
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        self.call("Emulation.clearDeviceMetricsOverride")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.dir, ignore_errors=True)
