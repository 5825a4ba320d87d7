"""Real-browser test of a course widget (``make browser-test``).

Starts JupyterLab on 127.0.0.1 (a free port, a random token, no browser of its own) in a
temporary folder holding a copy of a notebook with a widget, opens the notebook in headless
Chromium through Selenium and Debian's chromedriver, runs all cells, moves the first slider of
the first widget with the keyboard, and checks that the widget's output (its HTML or Image
child) and the slider's readout changed. Then it opens the notebook's page of the static site
(built first, as `make report` builds it) from disk and checks that the browser fetched nothing
from outside the site and that the widget's still is there. Screenshots of the live widget
before and after the move, and of the still, go to ``--out``.

Every wait is bounded and the whole run has a deadline; anything that does not start (the
browser, the driver, the server, the kernel) makes the script exit non-zero with a message:
it never skips.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


class BrowserTestError(RuntimeError):
    """The test failed, or something it needs did not start."""


def wait_for(what: str, check: Callable[[], T | None], timeout: float, every: float = 0.25) -> T:
    """Poll ``check`` until it returns something truthy; raise naming ``what`` after ``timeout``."""
    end = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < end:
        try:
            value = check()
        except BrowserTestError:
            raise
        except Exception as exc:  # the page may be mid-update: try again until the deadline
            last_error, value = exc, None
        if value:
            return value
        time.sleep(every)
    detail = f" (last error: {last_error!r})" if last_error else ""
    raise BrowserTestError(f"timed out after {timeout:.0f} s waiting for {what}{detail}")


# the local server is reached directly, whatever proxy the environment names
_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def jupyterlab(folder: Path, log: Path, timeout: float) -> Iterator[str]:
    """A JupyterLab server for ``folder``; yields its base URL with the token. Stopped on exit."""
    port, token = free_port(), secrets.token_hex(16)
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [str(jupyter), "lab", "--no-browser", f"--ServerApp.root_dir={folder}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
           "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate"]
    if os.geteuid() == 0:  # CI runs as root
        cmd.append("--allow-root")
    # a clean configuration: no user settings or saved workspace can change what opens
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(folder / ".jupyter-config"),
           "JUPYTER_RUNTIME_DIR": str(folder / ".jupyter-runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(folder / ".jupyterlab-settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(folder / ".jupyterlab-workspaces")}
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        if proc.poll() is not None:
            raise BrowserTestError(f"JupyterLab exited with status {proc.returncode}; see {log}")
        with _LOCAL.open(f"{url}/api/status?token={token}", timeout=2) as r:
            return r.status == 200

    try:
        try:
            wait_for("JupyterLab to answer", ready, timeout)
        except BrowserTestError as exc:
            tail = log.read_text(errors="replace")[-2000:]
            raise BrowserTestError(f"{exc}\n--- JupyterLab log ---\n{tail}") from None
        yield f"{url}/lab/tree/{{path}}?token={token}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def chromium(browser: str, driver: str, download_dir: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    for exe in (browser, driver):
        if not shutil.which(exe):
            raise BrowserTestError(f"{exe} not found: install Debian's chromium and chromium-driver "
                                   "(apt-get install -y chromium chromium-driver)")
    options = Options()
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})  # the requests made
    options.binary_location = shutil.which(browser) or browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-proxy-server", "--window-size=1400,1000",
                f"--user-data-dir={download_dir / 'profile'}"):
        options.add_argument(arg)
    try:
        drv = webdriver.Chrome(service=Service(shutil.which(driver) or driver), options=options)
    except Exception as exc:
        raise BrowserTestError(f"Chromium did not start through {driver}: {exc}") from None
    drv.set_page_load_timeout(60)
    drv.set_script_timeout(30)
    return drv


# JavaScript run in the page. "The explorer" is the first widget view that holds a slider and
# an HTML or Image widget; _STATE reads its slider readout and its output.
_VIEW = """
const views = [...document.querySelectorAll('.jp-OutputArea-output .widget-vbox, .jp-OutputArea-output .widget-box')];
return views.find(v => v.querySelector('.widget-slider, .widget-hslider')
                       && v.querySelector('.widget-html-content, img')) || null;
"""
_STATE = """
const view = arguments[0];
const html = view.querySelector('.widget-html-content');
const img = view.querySelector('img');
const readout = view.querySelector('.widget-readout');
return {output: (html ? html.innerHTML : '') + '|' + (img ? img.src : ''),
        readout: readout ? readout.textContent.trim() : null};
"""

_KERNEL_IDLE = """
const app = window.jupyterapp;
if (!app) return 'no app';
const panel = app.shell.currentWidget;
if (!panel || !panel.sessionContext || !panel.sessionContext.session) return 'no session';
const busy = [...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'));
return (panel.sessionContext.session.kernel.status === 'idle' && !busy) ? 'idle' : 'busy';
"""


def live_widget(drv: Any, url: str, notebook: Path, out: Path, steps: int) -> str:
    """Run the notebook in JupyterLab, move the explorer's slider, require its output to change."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    drv.get(url.format(path=notebook.name))
    wait_for("the notebook to open", lambda: drv.execute_script(
        "return !!(window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-Cell'))"), 60)
    # A click into the notebook, as a person's first, makes it JupyterLab's current widget: the
    # panel the checks below read and the one "run all cells" runs. A headless browser's window
    # is not focused on its own (Chromium 150 leaves the current widget unset until a click).
    def focused() -> bool:
        # the cells are drawn again while the notebook settles: a click may miss; try again
        with contextlib.suppress(WebDriverException):
            drv.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell").click()
        return bool(drv.execute_script("return !!window.jupyterapp.shell.currentWidget"))

    wait_for("the notebook to take the focus", focused, 30, 0.5)
    wait_for("the kernel to start", lambda: drv.execute_script(_KERNEL_IDLE) == "idle", 60)
    print(f"browser-test: running all cells of {notebook.name} in JupyterLab ...", flush=True)
    drv.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    time.sleep(1.0)
    wait_for("all cells to run", lambda: drv.execute_script(_KERNEL_IDLE) == "idle", 150, 1.0)
    tracebacks = [e.text for e in drv.find_elements(
        By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")]
    if tracebacks:
        raise BrowserTestError(f"a cell failed in the browser:\n{tracebacks[0][:1500]}")
    view = wait_for("a widget with a slider and an HTML or Image output",
                    lambda: drv.execute_script(_VIEW), 30)
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", view)
    before = drv.execute_script(_STATE, view)
    if not before["output"].strip("|") or before["readout"] is None:
        raise BrowserTestError(f"the widget shows nothing before the move: {before}")
    time.sleep(0.5)
    view.screenshot(str(out / "widget_before.png"))
    handle = view.find_element(By.CSS_SELECTOR, ".noUi-handle")
    handle.click()
    for _ in range(steps):
        handle.send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.05)

    def moved() -> dict[str, Any] | None:
        now = drv.execute_script(_STATE, view)
        changed = now["output"] != before["output"] and now["readout"] != before["readout"]
        return now if changed else None

    wait_for("the widget's output to change after the slider moved", moved, 30)
    wait_for("the kernel to finish the update", lambda: drv.execute_script(_KERNEL_IDLE) == "idle", 30)
    after = drv.execute_script(_STATE, view)
    with contextlib.suppress(ValueError):  # numeric readouts: the right arrow raises them
        if float(after["readout"]) <= float(before["readout"]):
            raise BrowserTestError(f"the slider went from {before['readout']} to "
                                   f"{after['readout']}, not up")
    time.sleep(0.5)
    view.screenshot(str(out / "widget_after.png"))
    drv.save_screenshot(str(out / "notebook_after.png"))
    return f"slider {before['readout']} -> {after['readout']}, the widget's output changed"


def static_page(drv: Any, page: Path, out: Path) -> str:
    """Open the site's page of the notebook from disk and require that the browser fetched
    nothing over a network (only files beside it and data: URIs), and that the widget's still
    is there."""
    import json

    drv.get_log("performance")  # drop what came before
    drv.get(page.as_uri())
    wait_for("the static page to load",
             lambda: drv.execute_script("return document.readyState") == "complete", 30)
    time.sleep(2.0)  # MathJax and fonts load after the document
    requested = []
    for entry in drv.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    # the browser's own pages (chrome://) are not fetched from anywhere; networks are
    outside = [u for u in requested if u.split(":", 1)[0].lower() in {"http", "https", "ws", "wss", "ftp"}]
    if outside:
        raise BrowserTestError(f"the static page {page.name} fetched from outside: {outside[:5]}")
    still = drv.execute_script(
        "const w = document.querySelector('.precmp-widget'); return w ? w.textContent : null;")
    if not still or "make lab" not in still:
        raise BrowserTestError(f"the static page {page.name} has no widget still with the make lab line")
    widget = drv.execute_script("return document.querySelector('.precmp-widget')")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", widget)
    time.sleep(0.3)
    widget.screenshot(str(out / "static_widget.png"))
    files = sum(u.startswith("file://") for u in requested)
    return f"static page fetched {files} local files and nothing from outside"


def build_page(notebook: Path, folder: Path) -> Path:
    """The site's page of ``notebook`` (a course notebook), built into ``folder``."""
    sys.path.insert(0, str(ROOT))
    from precmp_lib.course.site import build_site

    print(f"browser-test: building the site page of {notebook.name} ...", flush=True)
    build_site(folder, notebooks=[notebook.stem], jobs=1, examples=False)
    page = folder / f"{notebook.stem}.html"
    if not page.is_file():
        raise BrowserTestError(f"the site build wrote no {page.name}")
    return page


def run(notebook: Path, out: Path, *, browser: str, driver: str, steps: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="precmp-browser-") as tmp:
        folder = Path(tmp)
        page = build_page(notebook, folder / "site")
        shutil.copy(notebook, folder / notebook.name)
        with jupyterlab(folder, out / "jupyterlab.log", timeout=90) as url:
            drv = chromium(browser, driver, folder)
            try:
                live = live_widget(drv, url, notebook, out, steps)
                offline = static_page(drv, page, out)
            finally:
                drv.quit()
    print(f"browser-test: {live}; {offline}; screenshots in {out}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", type=Path, default=ROOT / "notebooks" / "01_mcnemar_cochran.ipynb")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "browser-test")
    parser.add_argument("--browser", default="chromium")
    parser.add_argument("--driver", default="chromedriver")
    parser.add_argument("--steps", type=int, default=5, help="arrow-key presses on the slider")
    parser.add_argument("--deadline", type=int, default=240, help="seconds before the run is stopped")
    args = parser.parse_args(argv)

    def overdue(*_: Any) -> None:
        raise BrowserTestError(f"the browser test did not finish within {args.deadline} s")

    # Selenium talks to chromedriver on localhost: never through a proxy from the environment
    local = "127.0.0.1,localhost"
    for key in ("NO_PROXY", "no_proxy"):
        os.environ[key] = f"{os.environ[key]},{local}" if os.environ.get(key) else local
    signal.signal(signal.SIGALRM, overdue)
    signal.alarm(args.deadline)
    start = time.monotonic()
    try:
        run(args.notebook.resolve(), args.out.resolve(), browser=args.browser,
            driver=args.driver, steps=args.steps)
    except BrowserTestError as exc:
        print(f"browser-test: FAILED: {exc}", file=sys.stderr)
        print("browser-test: 0 passed, 1 failed")
        return 1
    finally:
        signal.alarm(0)
    print(f"browser-test: 1 passed, 0 failed in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
