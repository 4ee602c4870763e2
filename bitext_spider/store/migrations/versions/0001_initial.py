"""Initial schema: sites, pages, candidates, pairs, sentences, translation_models.

The schema as it was when migrations became Alembic revisions (databases made earlier are brought
to it and stamped by ``bitext_spider.store.models.ensure_schema``).

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('sites',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=1024), nullable=False),
    sa.Column('start_urls', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key')
    )
    op.create_table('translation_models',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('lang1', sa.String(length=16), nullable=False),
    sa.Column('lang2', sa.String(length=16), nullable=False),
    sa.Column('pairs_seen', sa.Integer(), nullable=False),
    sa.Column('sentences_seen', sa.Integer(), nullable=False),
    sa.Column('state', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('lang1', 'lang2', name='uq_model_langs')
    )
    op.create_table('pages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site_id', sa.Integer(), nullable=False),
    sa.Column('url', sa.String(length=2048).with_variant(sa.Text(), 'postgresql'), nullable=False),
    sa.Column('requested_url', sa.String(length=2048).with_variant(sa.Text(), 'postgresql'), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('depth', sa.Integer(), nullable=False),
    sa.Column('fetched_at', sa.Float(), nullable=False),
    sa.Column('content_type', sa.String(length=255), nullable=False),
    sa.Column('encoding', sa.String(length=64), nullable=False),
    sa.Column('size_bytes', sa.Integer(), nullable=False),
    sa.Column('size_chars', sa.Integer(), nullable=False),
    sa.Column('n_tags', sa.Integer(), nullable=False),
    sa.Column('n_paragraphs', sa.Integer(), nullable=False),
    sa.Column('n_words', sa.Integer(), nullable=False),
    sa.Column('lang', sa.String(length=16), nullable=True),
    sa.Column('lang_score', sa.Float(), nullable=False),
    sa.Column('declared_lang', sa.String(length=32), nullable=False),
    sa.Column('eligible', sa.Boolean(), nullable=False),
    sa.Column('title', sa.Text(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('tokens', sa.LargeBinary(), nullable=True),
    sa.Column('links', sa.JSON(), nullable=False),
    sa.Column('paragraphs', sa.JSON(), nullable=False),
    sa.Column('outlinks', sa.JSON(), nullable=False),
    sa.Column('images', sa.JSON(), nullable=False),
    sa.Column('note', sa.String(length=255), nullable=False),
    sa.ForeignKeyConstraint(['site_id'], ['sites.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('url')
    )
    op.create_index(op.f('ix_pages_lang'), 'pages', ['lang'], unique=False)
    op.create_index(op.f('ix_pages_site_id'), 'pages', ['site_id'], unique=False)
    op.create_table('candidates',
    sa.Column('scores', sa.JSON(), nullable=False),
    sa.Column('accepted', sa.Boolean(), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site_id', sa.Integer(), nullable=False),
    sa.Column('page1_id', sa.Integer(), nullable=False),
    sa.Column('page2_id', sa.Integer(), nullable=False),
    sa.Column('lang1', sa.String(length=16), nullable=False),
    sa.Column('lang2', sa.String(length=16), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['page1_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['page2_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['site_id'], ['sites.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('page1_id', 'page2_id', name='uq_candidate_pages')
    )
    op.create_index('ix_candidates_site', 'candidates', ['site_id'], unique=False)
    op.create_table('pairs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site_id', sa.Integer(), nullable=False),
    sa.Column('page1_id', sa.Integer(), nullable=False),
    sa.Column('page2_id', sa.Integer(), nullable=False),
    sa.Column('lang1', sa.String(length=16), nullable=False),
    sa.Column('lang2', sa.String(length=16), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['page1_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['page2_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['site_id'], ['sites.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('page1_id', 'page2_id', name='uq_pair_pages')
    )
    op.create_index('ix_pairs_site', 'pairs', ['site_id'], unique=False)
    op.create_table('sentences',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('site_id', sa.Integer(), nullable=False),
    sa.Column('page1_id', sa.Integer(), nullable=False),
    sa.Column('page2_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('lang1', sa.String(length=16), nullable=False),
    sa.Column('lang2', sa.String(length=16), nullable=False),
    sa.Column('text1', sa.Text(), nullable=False),
    sa.Column('text2', sa.Text(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['page1_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['page2_id'], ['pages.id'], ),
    sa.ForeignKeyConstraint(['site_id'], ['sites.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('page1_id', 'page2_id', 'position', name='uq_sentence_position')
    )
    op.create_index('ix_sentences_pages', 'sentences', ['page1_id', 'page2_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_sentences_pages', table_name='sentences')
    op.drop_table('sentences')
    op.drop_index('ix_pairs_site', table_name='pairs')
    op.drop_table('pairs')
    op.drop_index('ix_candidates_site', table_name='candidates')
    op.drop_table('candidates')
    op.drop_index(op.f('ix_pages_site_id'), table_name='pages')
    op.drop_index(op.f('ix_pages_lang'), table_name='pages')
    op.drop_table('pages')
    op.drop_table('translation_models')
    op.drop_table('sites')
