"""`scrapy crawl` ends a user's mistake with one line on standard error and status 1 (no traceback),
and two crawls on one SQLite file: the second is refused, the first loses nothing."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from support import FAST, ROOT, page_urls, scrapy_crawl

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site

pytestmark = pytest.mark.slow


def _last_line(proc: subprocess.CompletedProcess) -> str:
    return proc.stderr.rstrip("\n").rsplit("\n", 1)[-1]


def _stored(db: str) -> bool:
    try:
        return bool(page_urls(db))
    except Exception:  # no database file, or no schema yet
        return False


def test_each_user_error_ends_with_one_line(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    bad_seeds = tmp_path / "bad.txt"
    bad_seeds.write_text("# no site here\nnot a url\n")
    not_db = tmp_path / "notes.db"
    not_db.write_text("my notes\n" * 100)
    cases = [
        (tmp_path / "missing.txt", "sqlite:///x.db",
         f"error: seeds file not found: {tmp_path / 'missing.txt'} (pass -a seeds=PATH, one site a line)"),
        (bad_seeds, "sqlite:///x.db", f"error: seeds file {bad_seeds} has no valid site line"),
        (seeds, "mysqlx://h/db", "error: unknown database dialect 'mysqlx' in mysqlx://h/db: use sqlite:///PATH"),
        (seeds, "postgresql://u:pw@127.0.0.1:1/db", "error: cannot connect to the database server at 127.0.0.1:1 ("),
        (seeds, f"sqlite:///{tmp_path / 'nodir' / 'x.db'}",
         f"error: cannot create the SQLite database {tmp_path / 'nodir' / 'x.db'}: the directory"),
        (seeds, f"sqlite:///{not_db}", f"error: {not_db} is not an SQLite database: give the database"),
    ]
    for seeds_path, db, expected in cases:
        proc = scrapy_crawl(seeds_path, db, timeout=120)
        assert proc.returncode == 1, (expected, proc.stderr[-2000:])
        assert _last_line(proc).startswith(expected), (expected, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr and "never retrieved" not in proc.stderr, proc.stderr[-3000:]
    proc = scrapy_crawl(seeds, f"sqlite:///{tmp_path / 'y.db'}", "-s", "BITEXT_SIZE_TAGS_TOLERANCE=5")
    assert (proc.returncode, _last_line(proc)) == (1, "error: BITEXT_SIZE_TAGS_TOLERANCE must be between 0 and 1, got 5.0")


def test_a_second_crawl_on_a_sqlite_file_is_refused_and_the_first_loses_nothing(tmp_path):
    port = free_port()
    info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=6, langs=("en", "fr"),
                         seed=5, extras=False)
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{info.base_url}/ {info.base_url}/slow\n")
    db = f"sqlite:///{tmp_path / 'c.db'}"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL={db}",
           *FAST]
    with serve_site(tmp_path / "site", port=port, slow_seconds=15):
        first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not _stored(db):
            assert time.time() < deadline and first.poll() is None
            time.sleep(0.2)
        second = scrapy_crawl(seeds, db, timeout=120)
        assert first.poll() is None  # still waiting for /slow: the first crawl is writing
        out = first.communicate(timeout=120)[1]
    assert second.returncode == 1
    assert _last_line(second).startswith(f"error: another crawl is writing the SQLite database {tmp_path / 'c.db'}; ")
    assert "Traceback" not in second.stderr
    assert first.returncode == 0, out[-3000:]
    urls = page_urls(db)
    assert len(urls) == len(set(urls))
    assert {u for u, _ in info.pages} <= set(urls)
