"""The viewer's tables and indexes.

``crawl_runs``: each crawl's spider, start and end, settings and final stats (the overview page
of ``bitext view``).  ``corrections``: a person's verdicts on pairs (``bitext view --annotate``),
exported by ``bitext export gold``.  ``candidates.deciding``: the decision term that settled each
candidate (bitext_spider.store.deciding), back-filled here from the stored decisions.  Indexes
that keep the viewer fast on large crawls: pairs and candidates by score, candidates by deciding
evidence, both by their second page.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from bitext_spider.store.deciding import deciding_evidence

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_URL = sa.String(2048).with_variant(sa.Text(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "crawl_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("spider", sa.String(length=255), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url1", _URL, nullable=False),
        sa.Column("lang1", sa.String(length=16), nullable=False),
        sa.Column("url2", _URL, nullable=False),
        sa.Column("lang2", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_corrections_urls", "corrections", ["url1", "url2"])
    with op.batch_alter_table("candidates") as batch:
        batch.add_column(sa.Column("deciding", sa.String(length=32), nullable=True))
    _backfill_deciding()
    op.create_index("ix_candidates_score", "candidates", ["score", "id"])
    op.create_index("ix_candidates_deciding", "candidates", ["deciding", "score", "id"])
    op.create_index("ix_pairs_score", "pairs", ["score", "id"])
    op.create_index("ix_candidates_page2", "candidates", ["page2_id"])
    op.create_index("ix_pairs_page2", "pairs", ["page2_id"])


def _backfill_deciding() -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, scores FROM candidates")).all()
    values = []
    for cid, scores in rows:
        if isinstance(scores, str):  # SQLite returns the JSON text from a plain SELECT
            scores = json.loads(scores)
        deciding = deciding_evidence(scores if isinstance(scores, dict) else None)
        if deciding is not None:
            values.append({"i": cid, "d": deciding})
    for i in range(0, len(values), 1000):
        conn.execute(sa.text("UPDATE candidates SET deciding = :d WHERE id = :i"), values[i : i + 1000])


def downgrade() -> None:
    op.drop_index("ix_pairs_page2", table_name="pairs")
    op.drop_index("ix_candidates_page2", table_name="candidates")
    op.drop_index("ix_pairs_score", table_name="pairs")
    op.drop_index("ix_candidates_deciding", table_name="candidates")
    op.drop_index("ix_candidates_score", table_name="candidates")
    with op.batch_alter_table("candidates") as batch:
        batch.drop_column("deciding")
    op.drop_index("ix_corrections_urls", table_name="corrections")
    op.drop_table("corrections")
    op.drop_table("crawl_runs")
