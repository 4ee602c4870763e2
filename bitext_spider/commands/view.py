"""``bitext view`` (the local web viewer of a crawl database) and ``bitext export gold`` (the
corrections made in it, as a gold standard for ``bitext eval``).  The viewer is
bitext_spider.viewer; docs/viewer.md has its pages and options."""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from typing import IO, Any

from sqlalchemy import inspect
from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.models import ensure_schema
from bitext_spider.store.open_errors import describe as describe_database_error
from bitext_spider.store.open_errors import safe_url


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from bitext_spider.commands.db_cli import DEFAULT_DB

    vw = sub.add_parser("view", help="browse the crawl database in a web browser (a local web viewer)")
    vw.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    vw.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (loopback by default: the viewer has no login)")
    vw.add_argument("--port", type=int, default=8088, help="port to listen on (0: any free port)")
    vw.add_argument("--annotate", action="store_true",
                    help="allow corrections (pairs right or wrong, missed pairs); read-only without it")
    return vw


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve(store: Store, host: str, port: int, annotate: bool, err: IO[str] | None = None) -> int:
    """Serve the viewer on ``host:port`` until interrupted; 2 when the database or the address
    cannot be used."""
    err = err or sys.stderr
    import uvicorn

    from bitext_spider.viewer.app import create_app

    try:
        # A database made by an older version gets the viewer's tables, as a crawl's open would.
        ensure_schema(store.engine)
    except Exception as exc:
        print(f"bitext: {describe_database_error(store.url, exc)}", file=err)
        return 2
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        # Listening before the server starts: a client told the address below is queued, not refused.
        sock.listen(128)
    except OSError as exc:
        sock.close()
        print(f"bitext: cannot listen on {host}:{port}: {exc.strerror or exc}", file=err)
        return 2
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    mode = "annotating: corrections are stored" if annotate else "read-only"
    print(f"bitext: viewing {safe_url(store.url)} at http://{shown}:{bound}/ ({mode}); Ctrl-C stops",
          file=err, flush=True)
    if not _is_loopback(host):
        print("bitext: warning: the viewer has no login; anyone who reaches this address can use it",
              file=err, flush=True)
    config = uvicorn.Config(create_app(store.engine, annotate=annotate), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def export_gold(store: Store, out: IO[str]) -> int:
    """Write the corrections as gold pairs (bitext_spider.viewer.corrections); returns their number."""
    from bitext_spider.viewer.corrections import GOLD_HEADER, write_gold

    if "corrections" not in inspect(store.engine).get_table_names():  # made before the viewer existed
        out.write(GOLD_HEADER + "\n")
        return 0
    with Session(store.engine) as s:
        return write_gold(s, out)
