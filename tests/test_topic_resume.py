"""A resumed focused crawl ranks its frontier with the link priorities its stored pages were given."""

from __future__ import annotations

from sqlalchemy import insert

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.seeds import Site
from bitext_spider.runtime import BitextRuntime, Stats
from bitext_spider.store.models import PageRow, SiteRow, make_engine

TOPIC = {"domain": "i18n", "p": 500.0, "m": 3, "relevant": True, "terms": {}, "subdomains": [], "paragraphs": []}


def test_a_resumed_crawl_gets_its_frontier_priorities_back(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"
    engine = make_engine(url)
    links = ["http://s/a.html", "http://s/b.html", "http://s/c.html"]
    with engine.begin() as conn:
        conn.execute(insert(SiteRow.__table__), [dict(id=1, key="s", start_urls=["http://s/"])])
        conn.execute(insert(PageRow.__table__), [
            dict(id=1, site_id=1, url="http://s/", lang="en", eligible=False, links=links[:2],
                 topic=dict(TOPIC, links=[70, 0])),
            dict(id=2, site_id=1, url="http://s/x.html", lang="en", eligible=False, links=links,
                 topic=dict(TOPIC, links=[10, 5, 90])),
            dict(id=3, site_id=1, url="http://s/y.html", lang="en", eligible=False, links=links, topic=None),
        ])
    engine.dispose()
    runtime = BitextRuntime(None, config=BitextConfig.from_settings({"BITEXT_DB_URL": url}), stats=Stats())
    try:
        state = runtime.open_site(Site("s", ("http://s/",), frozenset({"s"})))
        assert state.frontier_priorities == {"http://s/a.html": 70, "http://s/b.html": 5, "http://s/c.html": 90}
    finally:
        runtime.close()
