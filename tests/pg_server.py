"""A throw-away PostgreSQL server for tests: ``postgres_server()`` yields a SQLAlchemy URL.

The server is a fresh cluster (``initdb``) in a temporary directory, listening on 127.0.0.1 on a
free port with its unix socket inside that directory, and is stopped (and the directory removed)
at the end.  PostgreSQL refuses to run as root, so when the tests run as root the cluster is
created and run as an unprivileged user (``nobody``, or ``BITEXT_PG_USER``) through ``runuser``.

* ``BITEXT_TEST_PG_URL=postgresql+psycopg://...`` uses an existing server instead (its database
  must exist; tests create and drop their own databases next to it).
* ``BITEXT_PG_BIN=/usr/lib/postgresql/15/bin`` says where ``initdb``/``pg_ctl`` are (otherwise
  ``PATH``, then the newest ``/usr/lib/postgresql/*/bin``).
* When no server can be started the tests skip with the reason, unless
  ``BITEXT_REQUIRE_POSTGRES=1`` (CI), where they fail instead.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

_BIN_NAMES = ("initdb", "pg_ctl")


def _unavailable(reason: str) -> None:
    if os.environ.get("BITEXT_REQUIRE_POSTGRES", "") not in ("", "0"):
        pytest.fail(f"PostgreSQL is required (BITEXT_REQUIRE_POSTGRES) but: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL server unavailable: {reason}")


def _bin_dir() -> Path | None:
    env = os.environ.get("BITEXT_PG_BIN")
    if env:
        return Path(env)
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                      if Path(p).parent.name.isdigit() else 0)
    for d in reversed(versions):
        if all((Path(d) / n).exists() for n in _BIN_NAMES):
            return Path(d)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _runner() -> list[str]:
    """Command prefix that runs a program as an unprivileged user when we are root."""
    if os.geteuid() != 0:
        return []
    user = os.environ.get("BITEXT_PG_USER", "nobody")
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/sbin:/usr/sbin")
    if runuser:
        return [runuser, "-u", user, "--"]
    setpriv = shutil.which("setpriv")
    if setpriv:  # pragma: no cover - only on systems without util-linux's runuser
        import pwd

        pw = pwd.getpwnam(user)
        return [setpriv, f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]
    raise RuntimeError("running as root and neither runuser nor setpriv is available")


def _workdir(owner: str | None) -> Path:
    """A temporary directory the server user can reach (pytest's own are mode 0700 for root)."""
    for base in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        try:
            d = Path(tempfile.mkdtemp(prefix="bitext-pg-", dir=base))
        except OSError:
            continue
        d.chmod(0o755)
        if owner is None:
            return d
        shutil.chown(d, user=owner)
        probe = subprocess.run([*_runner(), "test", "-w", str(d)], capture_output=True)
        if probe.returncode == 0:
            return d
        shutil.rmtree(d, ignore_errors=True)
    raise RuntimeError("no temporary directory is writable by the server user")


def create_database(server_url: str, name: str | None = None) -> str:
    """Create a new database on the server of ``server_url``; returns its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = name or f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Yield the URL (``postgresql+psycopg://postgres@127.0.0.1:PORT/postgres``) of a running server."""
    try:
        import psycopg  # noqa: F401
    except ImportError as e:
        _unavailable(f"the psycopg driver is not installed ({e})")
    existing = os.environ.get("BITEXT_TEST_PG_URL")
    if existing:
        yield existing
        return
    bindir = _bin_dir()
    if bindir is None:
        _unavailable("initdb/pg_ctl not found (install Debian's 'postgresql' package or set BITEXT_PG_BIN)")
    runner = _runner()
    owner = os.environ.get("BITEXT_PG_USER", "nobody") if runner else None
    try:
        work = _workdir(owner)
    except (RuntimeError, OSError, LookupError) as e:
        _unavailable(str(e))
    data, sock, log = work / "data", work / "sock", work / "server.log"
    port = _free_port()
    pg_ctl = [*runner, str(bindir / "pg_ctl"), "-D", str(data)]
    started = False
    try:
        sock.mkdir()
        if owner:
            shutil.chown(sock, user=owner)
        init = subprocess.run(
            [*runner, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync",
             "-E", "UTF8", "--locale=C.UTF-8"],
            capture_output=True, text=True, timeout=120,
        )
        if init.returncode != 0:
            _unavailable(f"initdb failed: {init.stderr.strip()[-500:]}")
        opts = (f"-c listen_addresses=127.0.0.1 -p {port} -k {sock} -c fsync=off -c synchronous_commit=off "
                "-c full_page_writes=off -c max_connections=100")
        start = subprocess.run([*pg_ctl, "-l", str(log), "-w", "-t", "60", "-o", opts, "start"],
                               capture_output=True, text=True, timeout=90)
        if start.returncode != 0:
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            _unavailable(f"pg_ctl start failed: {start.stderr.strip()[-300:]} {tail}")
        started = True
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run([*pg_ctl, "-m", "fast", "-w", "-t", "60", "stop"], capture_output=True, timeout=90)
        shutil.rmtree(work, ignore_errors=True)
