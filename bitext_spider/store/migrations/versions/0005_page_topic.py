"""Page relevance to a focused crawl's domain.

``topic``: the page's ILSP-FC relevance (p, m, the verdict, the domain terms found, each stored
paragraph's terms; matchers.page.topic_relevance) when the crawl was given a domain
(``-a domain=FILE``), NULL otherwise.  Read by ``bitext explain`` and ``bitext export documents``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.add_column(sa.Column("topic", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.drop_column("topic")
