"""Page canonical: the URL a page's rel=canonical names when it is not the page's own.

Such a page is a copy (a print version, an AMP page): the decision never pairs it in the place
of the page it names.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.add_column(sa.Column("canonical", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pages") as batch:
        batch.drop_column("canonical")
