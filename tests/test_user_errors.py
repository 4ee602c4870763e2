"""A user's mistake ends with one line that says what is wrong and what to do, not a traceback:
database URLs that cannot be opened, a SQLite file another crawl is writing, and the same from
the ``bitext`` commands."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bitext_spider.commands.cli import main as bitext
from bitext_spider.store.database import Store
from bitext_spider.store.open_errors import describe
from bitext_spider.store.writer_lock import WriterLock
from bitext_spider.user_errors import DatabaseError


def _failure(url: str) -> str:
    try:
        Store(url).close()
    except Exception as exc:
        return describe(url, exc)
    raise AssertionError(f"{url} opened")


def test_each_database_mistake_has_its_own_line(tmp_path):
    not_db = tmp_path / "notes.txt"
    not_db.write_text("my notes, not a database\n" * 50)
    assert _failure(f"sqlite:///{not_db}") == (
        f"{not_db} is not an SQLite database: give the database of an earlier crawl, or a new file name")
    missing = tmp_path / "no" / "such" / "dir"
    assert _failure(f"sqlite:///{missing / 'x.db'}") == (
        f"cannot create the SQLite database {missing / 'x.db'}: the directory {missing} does not exist "
        f"(create it, or give another path)")
    assert _failure("nonsense").startswith("the database URL 'nonsense' is not a URL SQLAlchemy can read: use sqlite:///")
    assert _failure("mysqlx://h/db").startswith("unknown database dialect 'mysqlx' in mysqlx://h/db: use sqlite:///")
    assert "needs the Python driver 'oracledb', which is not installed" in _failure("oracle://u:p@h/db")
    refused = _failure("postgresql://me:secret@127.0.0.1:1/corpus")
    assert refused.startswith("cannot connect to the database server at 127.0.0.1:1 (")
    assert "secret" not in refused and "me:***@127.0.0.1:1/corpus" in refused
    for line in (refused, _failure("nonsense")):
        assert "\n" not in line and "sqlalche.me" not in line


def test_one_writer_per_sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'c.db'}"
    first = WriterLock(url)
    with pytest.raises(DatabaseError, match=r"another crawl is writing the SQLite database .*c\.db; .*PostgreSQL"):
        WriterLock(url)
    WriterLock(f"sqlite:///{tmp_path / 'other.db'}").release()  # another file is another writer
    first.release()
    WriterLock(url).release()
    assert WriterLock("postgresql://u@h/db").path is None  # PostgreSQL takes several writers


def test_a_killed_writer_leaves_no_lock(tmp_path):
    url = f"sqlite:///{tmp_path / 'c.db'}"
    code = ("import sys, time; from bitext_spider.store.writer_lock import WriterLock; "
            f"lock = WriterLock({url!r}); print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(DatabaseError):
            WriterLock(url)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.time() + 10
    while True:
        try:
            WriterLock(url).release()
            break
        except DatabaseError:
            assert time.time() < deadline
            time.sleep(0.05)


@pytest.mark.parametrize("argv", [
    ["export", "pairs"], ["export", "sentences"], ["explain", "http://a/", "http://b/"], ["resolve"],
    ["db", "current"], ["db", "upgrade"],
])
def test_bitext_commands_say_one_line(argv, tmp_path, capsys):
    not_db = tmp_path / "notes.db"
    not_db.write_text("my notes, not a database\n" * 50)
    assert bitext([*argv, "--db", str(not_db)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"bitext: {not_db} is not an SQLite database: give the database of an earlier crawl, or a new file name\n"


def test_bitext_resolve_refuses_a_database_a_crawl_is_writing(tmp_path, capsys):
    db = tmp_path / "c.db"
    Store(f"sqlite:///{db}").close()
    crawl = WriterLock(f"sqlite:///{db}")
    try:
        assert bitext(["resolve", "--db", str(db)]) == 2
    finally:
        crawl.release()
    assert capsys.readouterr().err.startswith(f"bitext: another crawl is writing the SQLite database {db}; ")
    assert bitext(["resolve", "--db", str(db)]) == 0
