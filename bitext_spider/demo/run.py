"""``bitext demo``: the offline main job.

Generates the bundled multilingual demo site, serves it on 127.0.0.1, crawls it with the ``site``
spider into a SQLite database, prints the pairs found as TSV, and compares them with the site's
known translations.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.spiders.site import SiteSpider
from bitext_spider.store.database import Store
from bitext_spider.store.table_export import export

# A local site needs no politeness delay; everything else stays as in bitext_spider.settings.
DEMO_SETTINGS = {"AUTOTHROTTLE_START_DELAY": 0.0, "LOG_LEVEL": "WARNING", "BITEXT_LOGSTATS_INTERVAL": 0}


def project_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    settings = Settings()
    settings.setmodule("bitext_spider.settings", priority="project")
    if overrides:
        settings.update(dict(overrides), priority="cmdline")
    return settings


def crawl(seeds: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Run the ``site`` spider in this process; returns the crawl's stats."""
    process = CrawlerProcess(project_settings(overrides))
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, seeds=seeds)
    process.start()
    return dict(crawler.stats.get_stats())


def _gold(path: Path) -> set[frozenset[str]]:
    pairs = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 4 and not parts[0].startswith("lang"):
            pairs.add(frozenset((parts[1], parts[3])))
    return pairs


def run_demo(workdir: Path, n_docs: int = 30, langs: Sequence[str] = ("en", "fr", "de", "es")) -> int:
    workdir.mkdir(parents=True, exist_ok=True)
    site_dir = workdir / "site"
    if site_dir.exists():
        shutil.rmtree(site_dir)
    db_path = workdir / "demo.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    db = f"sqlite:///{db_path}"

    port = free_port()
    info = generate_site(site_dir, base_url=f"http://127.0.0.1:{port}", n_docs=n_docs, langs=tuple(langs), seed=0)
    print(f"demo site: {info.page_count} pages in {', '.join(langs)}, served at http://127.0.0.1:{port}/",
          file=sys.stderr)
    with serve_site(site_dir, port=port):
        stats = crawl(str(info.seeds_path), {**DEMO_SETTINGS, "BITEXT_DB_URL": db})

    store = Store(db, create=False)
    try:
        export(store, "pairs", "tsv", sys.stdout)
        found = {frozenset((r.url1, r.url2)) for r in store.pairs()}
    finally:
        store.close()
    gold = _gold(Path(info.gold_path))
    tp = len(found & gold)
    precision = tp / len(found) if found else 0.0
    recall = tp / len(gold) if gold else 0.0
    print(
        f"crawled {stats.get('bitext/pages', 0)} pages, {len(found)} pairs; against the demo site's "
        f"{len(gold)} known translations: precision {precision:.3f}, recall {recall:.3f}",
        file=sys.stderr,
    )
    print(f"database: {db} (try: bitext export candidates --db {db})", file=sys.stderr)
    return 0 if found else 1
