"""One headless Chromium driven over the DevTools protocol (test and bench tooling only).

`browser_tools.run_chromium` starts a browser per page (--dump-dom / --screenshot); this keeps one browser for a
whole test module and drives pages in it: evaluate JavaScript, send real mouse and keyboard input, take
screenshots. Same hardened, offline flags as browser_tools (every host resolves to nothing, a dead proxy
catches the rest); the loopback address can be let through for a test's own server. WebGL is drawn in software
(SwiftShader), opted into explicitly.

    with Browser(chromium) as browser:
        page = browser.open(path.as_uri())
        page.wait_for("document.body.dataset.kgDrawn === '1'")
        page.eval("1 + 1")   # -> 2
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

import browser_tools as bt


class CDPError(RuntimeError):
    pass


class Page:
    """One tab, attached in flat mode: `call` sends a command, `eval` returns a JavaScript value."""

    def __init__(self, browser: Browser, session: str, target: str):
        self.browser, self.session, self.target = browser, session, target

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.call(method, session=self.session, **params)

    def eval(self, expression: str, *, timeout: float = 30.0) -> Any:
        """The value of `expression` (promises awaited), as JSON; a JavaScript exception raises CDPError."""
        out = self.browser.call("Runtime.evaluate", session=self.session, timeout=timeout, expression=expression,
                                awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in out:
            details = out["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"{text}\n  in: {expression[:300]}")
        return out["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 30.0, interval: float = 0.05) -> Any:
        """Poll `expression` until it is truthy (TimeoutError after `timeout` seconds)."""
        end = time.monotonic() + timeout
        while True:
            try:
                value = self.eval(expression)
            except CDPError:
                value = None
            if value:
                return value
            if time.monotonic() > end:
                raise TimeoutError(f"not true after {timeout}s: {expression}")
            time.sleep(interval)

    def mouse(self, kind: str, x: float, y: float, *, buttons: int = 0, clicks: int = 0) -> None:
        """A real mouse event at CSS pixel (x, y): kind is mousePressed, mouseReleased or mouseMoved."""
        button = "left" if kind != "mouseMoved" or buttons else "none"
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button, buttons=buttons, clickCount=clicks)

    def click_at(self, x: float, y: float, *, clicks: int = 1) -> None:
        self.mouse("mouseMoved", x, y)
        for n in range(1, clicks + 1):
            self.mouse("mousePressed", x, y, buttons=1, clicks=n)
            self.mouse("mouseReleased", x, y, clicks=n)

    def click(self, selector: str) -> None:
        """A real click in the middle of the first element matching `selector` (scrolled into view)."""
        box = self.eval(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: "center"}}); const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        if box is None:
            raise CDPError(f"no element matches {selector}")
        self.click_at(*box)

    def type_text(self, text: str) -> None:
        """Type into the focused element (input events as from a keyboard)."""
        self.call("Input.insertText", text=text)

    KEYS: ClassVar[dict[str, tuple[int, str]]] = {"Enter": (13, "\r"), "ArrowDown": (40, ""), "ArrowUp": (38, ""),
                                                  "Escape": (27, "")}

    def press(self, key: str) -> None:
        """A real key press (down, up) of one of KEYS on the focused element."""
        code, text = self.KEYS[key]
        self.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=key, windowsVirtualKeyCode=code, text=text)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=code)

    def screenshot(self, path: str | Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path


class Browser:
    """A headless Chromium process with a DevTools websocket; `open` gives a Page per URL."""

    def __init__(self, chromium: str | None = None, *, size: tuple[int, int] = (1400, 900), loopback: bool = False,
                 timeout: float = 60.0):
        from websockets.sync.client import connect

        binary = chromium or bt.find_chromium()
        if binary is None:
            raise FileNotFoundError("chromium not found (Debian: apt-get install -y chromium)")
        self.size, self.timeout = size, timeout
        self._tmp = tempfile.TemporaryDirectory(prefix="kgkit-cdp-")
        profile = Path(self._tmp.name) / "profile"
        flags = [f + ", EXCLUDE 127.0.0.1" if loopback and f.startswith("--host-resolver-rules=") else f
                 for f in bt.CHROMIUM_FLAGS]
        # the explorer draws with WebGL: headless Chromium has no GPU here, so SwiftShader (software) draws it;
        # Chromium's automatic fallback to it is deprecated, hence the explicit opt-in (our own test pages only)
        flags.append("--enable-unsafe-swiftshader")
        cmd = [binary, *flags, f"--user-data-dir={profile}", "--remote-debugging-port=0",
               f"--window-size={size[0]},{size[1]}", "about:blank"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                                     cwd=self._tmp.name)
        port_file = profile / "DevToolsActivePort"
        end = time.monotonic() + timeout
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if self.proc.poll() is not None or time.monotonic() > end:
                self.close()
                raise CDPError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self.ws = connect(f"ws://127.0.0.1:{port}{path}", max_size=None, proxy=None, open_timeout=timeout)
        self._ids = itertools.count(1)

    def call(self, method: str, *, session: str | None = None, timeout: float | None = None, **params: Any) -> dict:
        """Send one command and wait for its answer (events arriving meanwhile are dropped)."""
        n = next(self._ids)
        message: dict[str, Any] = {"id": n, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        end = time.monotonic() + (timeout or self.timeout)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method} within {timeout or self.timeout}s")
            reply = json.loads(self.ws.recv(timeout=left))
            if reply.get("id") == n:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url: str, *, size: tuple[int, int] | None = None, init_script: str | None = None) -> Page:
        """A new tab showing `url`, loaded (document.readyState complete); `init_script` runs in the page before
        any of its own scripts (e.g. to take a browser feature away)."""
        width, height = size or self.size
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session, target)
        page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        page.call("Page.enable")
        page.call("Runtime.enable")
        if init_script:
            page.call("Page.addScriptToEvaluateOnNewDocument", source=init_script)
        page.call("Page.navigate", url=url)
        page.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'", timeout=self.timeout)
        return page

    def close_page(self, page: Page) -> None:
        self.call("Target.closeTarget", targetId=page.target)

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)
            self._tmp.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
