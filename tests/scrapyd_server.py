"""A real Scrapyd on 127.0.0.1 for tests: started from a temporary directory, stopped on exit.

    with scrapyd_server(tmp_path) as node:
        node.post("addversion.json", data={...}, files={...})

Scrapyd runs with this interpreter (the project's venv), which has the project's dependencies
installed: that is the documented deployment model (docs/deploy.md). When the server cannot
be started (scrapyd not installed, no free port, no answer) the test is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bitext_spider.demo.loopback_server import free_port

STARTUP_TIMEOUT = 60.0

CONF = """\
[scrapyd]
bind_address = 127.0.0.1
http_port = {port}
eggs_dir = {root}/eggs
logs_dir = {root}/logs
dbs_dir = {root}/dbs
items_dir =
jobs_to_keep = 20
finished_to_keep = 100
poll_interval = 0.5
max_proc = 2
"""


@dataclass
class ScrapydNode:
    url: str
    root: Path
    process: subprocess.Popen

    def get(self, endpoint: str, **params: str) -> dict[str, Any]:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}/{endpoint}{query}", timeout=60) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def post(self, endpoint: str, fields: list[tuple[str, str]],
             files: dict[str, tuple[str, bytes]] | None = None) -> dict[str, Any]:
        """POST form fields (repeatable, e.g. several ``setting``) and files as multipart/form-data."""
        boundary = uuid.uuid4().hex
        parts: list[bytes] = []
        for name, value in fields:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                         + value.encode("utf-8") + b"\r\n")
        for name, (filename, data) in (files or {}).items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                         f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        req = urllib.request.Request(f"{self.url}/{endpoint}", data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        with urllib.request.urlopen(req, timeout=120) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def wait_for_job(self, project: str, job: str, timeout: float = 300) -> dict[str, Any]:
        """Poll ``listjobs.json`` until the job is listed as finished; return its entry."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            jobs = self.get("listjobs.json", project=project)
            for entry in jobs.get("finished", []):
                if entry["id"] == job:
                    return entry
            if self.process.poll() is not None:
                raise AssertionError(f"scrapyd exited with {self.process.returncode}:\n{self.server_log()}")
            time.sleep(0.5)
        raise AssertionError(f"job {job} not finished after {timeout}s: {jobs}\n{self.server_log()[-3000:]}")

    def job_log(self, project: str, spider: str, job: str) -> str:
        return (self.root / "logs" / project / spider / f"{job}.log").read_text("utf-8", errors="replace")

    def server_log(self) -> str:
        path = self.root / "scrapyd.out"
        return path.read_text("utf-8", errors="replace") if path.exists() else ""


@contextmanager
def scrapyd_server(root: Path) -> Iterator[ScrapydNode]:
    """Start ``python -m scrapyd`` with its working directory (and scrapyd.conf) in ``root``."""
    try:
        import scrapyd  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"scrapyd cannot be started: it is not installed ({exc}); pip install -e '.[test]'")
    root.mkdir(parents=True, exist_ok=True)
    try:
        port = free_port()
    except OSError as exc:
        pytest.skip(f"scrapyd cannot be started: no free port on 127.0.0.1 ({exc})")
    (root / "scrapyd.conf").write_text(CONF.format(port=port, root=root), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT", "SCRAPY_PYTHON_SHELL")}
    out = open(root / "scrapyd.out", "wb")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen([sys.executable, "-m", "scrapyd", "--pidfile="], cwd=root, env=env,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    node = ScrapydNode(f"http://127.0.0.1:{port}", root, proc)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.skip(f"scrapyd cannot be started: it exited with {proc.returncode}: {node.server_log()[-1500:]}")
            try:
                if node.get("daemonstatus.json").get("status") == "ok":
                    break
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                pytest.skip(f"scrapyd cannot be started: no answer on {node.url} after {STARTUP_TIMEOUT:.0f}s: "
                            f"{node.server_log()[-1500:]}")
            time.sleep(0.2)
        yield node
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        out.close()
