"""Page publication day and HTTP validators, for crawling a news site again.

``published``: when a page says it was published (matchers.page.publication_date), a proleptic
Gregorian day ordinal; articles are compared on content only with articles published close in
time, and a repeated crawl needs the stored pages' days to do so.  ``etag`` and
``last_modified``: the response's validators, for the conditional requests a repeated crawl
makes for listing pages (bitext_spider.crawl.recrawl).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.add_column(sa.Column("published", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("etag", sa.String(255), nullable=False, server_default=""))
        batch.add_column(sa.Column("last_modified", sa.String(64), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.drop_column("last_modified")
        batch.drop_column("etag")
        batch.drop_column("published")
