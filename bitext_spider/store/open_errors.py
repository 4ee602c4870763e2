"""One line for each way a database URL fails to open: what is wrong and what to do.

SQLAlchemy's messages name the driver's exception, add a link and sometimes the SQL; a user who
mistyped a path or forgot to start PostgreSQL needs the path or host and the fix.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

SUPPORTED = "use sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE"
SEVERAL_WRITERS = ("SQLite has one writer at a time: wait for that crawl to end, or use PostgreSQL "
                   "(BITEXT_DB_URL=postgresql://...) to run several crawls on one database")


def safe_url(url: str | None) -> str:
    """The database URL for a message, without its password."""
    try:
        return make_url(url or "").render_as_string(hide_password=True)
    except Exception:
        return repr(url)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and for in-memory SQLite)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def _driver_message(exc: BaseException) -> str:
    """The driver's own first line, without SQLAlchemy's wrapper and link."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return text[0].strip() if text else type(orig).__name__


def describe(url: str, exc: BaseException) -> str:
    """One line for ``exc``, raised while opening or first using the database at ``url``."""
    shown = safe_url(url)
    if isinstance(exc, ArgumentError) and "parse" in str(exc).lower():
        return f"the database URL {shown} is not a URL SQLAlchemy can read: {SUPPORTED}"
    if isinstance(exc, NoSuchModuleError):
        scheme = shown.split(":", 1)[0]
        return f"unknown database dialect {scheme!r} in {shown}: {SUPPORTED}"
    if isinstance(exc, ImportError):
        return (f"the database {shown} needs the Python driver {exc.name or _driver_message(exc)!r}, which is "
                f"not installed; the supported databases are SQLite and PostgreSQL ({SUPPORTED})")
    message = _driver_message(exc)
    low = message.lower()
    path = sqlite_path(url)
    if path is not None:
        if "database is locked" in low:
            return f"another process is writing the SQLite database {path}; {SEVERAL_WRITERS}"
        if "file is not a database" in low or "file is encrypted" in low:
            return (f"{path} is not an SQLite database: give the database of an earlier crawl, or a new "
                    f"file name")
        if "unable to open database file" in low or "readonly" in low:
            if not path.parent.is_dir():
                return (f"cannot create the SQLite database {path}: the directory {path.parent} does not "
                        f"exist (create it, or give another path)")
            return f"cannot open the SQLite database {path} for writing: check the permissions of {path.parent}"
    if "connection refused" in low or "could not connect" in low or "connection failed" in low:
        try:
            parsed = make_url(url)
            where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
        except ArgumentError:
            where = shown
        reason = message.split(":")[-1].strip() if ":" in message else message
        return (f"cannot connect to the database server at {where} ({reason}): is it running, and is "
                f"{shown} the right URL?")
    if "password authentication failed" in low or "does not exist" in low:
        return f"the database server refused {shown}: {message}"
    return f"the database {shown} cannot be opened: {message}"
