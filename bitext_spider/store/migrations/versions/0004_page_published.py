"""Page publication day: when a news page says it was published (matchers.page.publication_date).

Articles are compared on content only with articles published close in time, and a resumed or
repeated crawl needs the stored pages' days to do so.  A proleptic Gregorian day ordinal.

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


def downgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.drop_column("published")
