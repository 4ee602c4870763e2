"""``bitext db``: schema migrations (Alembic) of the crawl database.

    bitext db upgrade  [--db URL] [--revision REV]   create the schema or apply pending migrations
    bitext db current  [--db URL]                    print the database's revision and the newest one
    bitext db fold     [--db URL]                    fold the sites' saved training into the translation
                                                     models (what a crawl or ``bitext schedule`` does at
                                                     its end; for a run that ended early)
    bitext db revision -m MESSAGE [--db URL] [--autogenerate]
                                                     write a new revision file (for developers;
                                                     --autogenerate diffs the models against --db)

Wire into ``bitext_spider.commands.cli.build_parser`` with ``db_cli.add_parser(sub)``.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

from bitext_spider.config import default
from bitext_spider.user_errors import DatabaseError

DEFAULT_DB: str = default("BITEXT_DB_URL")


def _url(value: str) -> str:
    return value if "://" in value else f"sqlite:///{value}"


def _one_line(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A database that cannot be opened is the user's error (one line), not a traceback."""
    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        from sqlalchemy.exc import SQLAlchemyError

        from bitext_spider.store.open_errors import describe

        try:
            return fn(args)
        except (SQLAlchemyError, ImportError) as exc:
            raise DatabaseError(describe(_url(args.db), exc)) from exc
    return run


@_one_line
def cmd_upgrade(args: argparse.Namespace) -> int:
    from bitext_spider.store.models import upgrade

    rev = upgrade(_url(args.db), args.revision)
    print(f"database at revision {rev}")
    return 0


@_one_line
def cmd_current(args: argparse.Namespace) -> int:
    from bitext_spider.store.models import current_revision, head_revision, make_engine

    engine = make_engine(_url(args.db), create=False)
    try:
        with engine.connect() as conn:
            current = current_revision(conn)
    finally:
        engine.dispose()
    head = head_revision()
    state = "up to date" if current == head else "needs 'bitext db upgrade'"
    print(f"current: {current or '(none)'}\nhead: {head}\n{state}")
    return 0 if current == head else 1


@_one_line
def cmd_fold(args: argparse.Namespace) -> int:
    from bitext_spider.commands.schedule import fold_models

    print(f"folded {fold_models(_url(args.db))} site models into the translation models")
    return 0


def cmd_revision(args: argparse.Namespace) -> int:
    from alembic import command

    from bitext_spider.store.models import alembic_config

    cfg = alembic_config(_url(args.db))
    cfg.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    command.revision(cfg, message=args.message, autogenerate=args.autogenerate)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    db = sub.add_parser("db", help="create or migrate the database schema (Alembic)")
    dbsub = db.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="create the schema or apply pending migrations")
    up.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    up.add_argument("--revision", default="head", help="target revision (default: head)")
    up.set_defaults(func=cmd_upgrade)
    cur = dbsub.add_parser("current", help="print the database's revision; exit 1 when behind")
    cur.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    cur.set_defaults(func=cmd_current)
    fold = dbsub.add_parser("fold", help="fold the sites' saved training into the translation models")
    fold.add_argument("--db", default=DEFAULT_DB, help="SQLAlchemy URL or SQLite file path")
    fold.set_defaults(func=cmd_fold)
    rev = dbsub.add_parser("revision", help="write a new migration script (developers)")
    rev.add_argument("-m", "--message", required=True)
    rev.add_argument("--db", default=DEFAULT_DB, help="database to diff against with --autogenerate")
    rev.add_argument("--autogenerate", action="store_true")
    rev.set_defaults(func=cmd_revision)
    return db


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bitext")
    add_parser(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except DatabaseError as exc:
        print(f"bitext: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
