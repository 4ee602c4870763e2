"""Site models: each site's training of a crawl, kept apart until it is folded into the model.

A site's content decisions use the stored model as the crawl found it plus the site's own
training, so a site's pairs do not depend on which other sites share its process or node
(``bitext_spider.store.model_registry``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('site_models',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site_id', sa.Integer(), nullable=False),
    sa.Column('lang1', sa.String(length=16), nullable=False),
    sa.Column('lang2', sa.String(length=16), nullable=False),
    sa.Column('pairs_seen', sa.Integer(), nullable=False),
    sa.Column('sentences_seen', sa.Integer(), nullable=False),
    sa.Column('state', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['site_id'], ['sites.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('site_id', 'lang1', 'lang2', name='uq_site_model')
    )


def downgrade() -> None:
    op.drop_table('site_models')
