"""Alembic environment of bitext-spider.

Used through :func:`bitext_spider.store.models.alembic_config` (``bitext db upgrade``, or opening a store),
which passes an open connection in ``config.attributes["connection"]``; the ``alembic`` command
works too with ``alembic -c bitext_spider/store/migrations/alembic.ini -x db=URL ...``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from bitext_spider.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return context.get_x_argument(as_dictionary=True).get("db") or config.get_main_option("sqlalchemy.url") or ""


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=_url().startswith("sqlite"))
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=target_metadata,
                          render_as_batch=conn.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
        return
    from bitext_spider.store.models import make_engine

    engine = make_engine(_url(), create=False) if _url() else create_engine("sqlite://")
    try:
        with engine.begin() as connection:
            context.configure(connection=connection, target_metadata=target_metadata,
                              render_as_batch=connection.dialect.name == "sqlite")
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
