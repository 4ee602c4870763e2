"""Pairs as Scrapy items: provisional and final pair items in a feed (`-O pairs.jsonl`), the
pair_found signal, a failing feed's exit status, and `bitext resolve` after a kill -9 and on a
cleanly closed database."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scrapy.exceptions import DropItem
from scrapy.pipelines import ItemPipelineManager
from scrapy.utils.test import get_crawler
from support import FAST, ROOT, kill_once_stored, page_urls, pairs_of, scrapy_crawl, stat

from bitext_spider import settings as project_settings
from bitext_spider.addon import EXTENSIONS as ADDON_EXTENSIONS
from bitext_spider.crawl.pair_flow import ProvisionalPairs
from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.items import PageItem, PairItem
from bitext_spider.runtime import BitextRuntime, Stats
from bitext_spider.spiders.site import SiteSpider
from bitext_spider.store.database import Store
from matchers.site.page_index import CandidateSet

TESTS = Path(__file__).resolve().parent
BITEXT = [sys.executable, "-m", "bitext_spider.commands.cli"]
PAIR_KEYS = {"lang1", "url1", "lang2", "url2", "score", "status"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("pairsite")
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=14, langs=("en", "fr", "de"), seed=3)
    with serve_site(root, port=port):
        yield info


def crawl_cmd(seeds: Path, db: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL={db}",
            *FAST, *extra]


def probe_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}


def export_pairs(db: str) -> list[dict]:
    out = subprocess.run([*BITEXT, "export", "pairs", "--db", db, "--format", "jsonl"], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def export_sentences(db: str) -> str:
    return subprocess.run([*BITEXT, "export", "sentences", "--db", db], check=True, cwd=ROOT, capture_output=True,
                          text=True).stdout


def resolve(db: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*BITEXT, "resolve", "--db", db, *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=240)


@pytest.fixture(scope="module")
def fed(site, tmp_path_factory):
    """One uninterrupted crawl writing `-O pairs.jsonl`, with a pair_found handler connected."""
    d = tmp_path_factory.mktemp("fed")
    db = f"sqlite:///{d / 'crawl.db'}"
    feed, probe = d / "pairs.jsonl", d / "probe.jsonl"
    extensions = json.dumps({**ADDON_EXTENSIONS, "pair_probe.PairProbe": 900})
    proc = subprocess.run(
        crawl_cmd(site.seeds_path, db, "-O", str(feed), "-s", f"PAIR_PROBE_FILE={probe}",
                  "-s", f"EXTENSIONS={extensions}"),
        cwd=ROOT, capture_output=True, text=True, timeout=240, env=probe_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
    signals = [json.loads(line) for line in probe.read_text(encoding="utf-8").splitlines()]
    return db, items, signals, proc.stderr


@pytest.mark.slow
def test_feed_holds_provisional_then_final_pairs_equal_to_export(fed):
    db, items, _signals, log = fed
    assert items and all(set(i) == PAIR_KEYS for i in items)  # pair items only: no page got in
    statuses = [i["status"] for i in items]
    first_final = statuses.index("final")
    assert first_final > 0 and set(statuses[:first_final]) == {"provisional"}
    assert set(statuses[first_final:]) == {"final"}
    final = [{k: v for k, v in i.items() if k != "status"} for i in items[first_final:]]
    assert final == export_pairs(db)
    assert stat(log, "bitext/pairs/provisional") == first_final
    assert stat(log, "bitext/pairs/final_items") == len(final) == stat(log, "bitext/pairs")
    # Pages leave the item flow quietly after the store stage.
    assert stat(log, "item_dropped_reasons_count/PageStored") == len(page_urls(db))
    assert stat(log, "item_scraped_count") == len(items)
    # Most pairs announced while pages were still arriving stand in the end.
    provisional = {frozenset((i["url1"], i["url2"])) for i in items[:first_final]}
    assert len(provisional & pairs_of(db)) >= 0.8 * len(pairs_of(db))


@pytest.mark.slow
def test_pair_found_signal_announces_every_pair_item(fed):
    db, items, signals, _log = fed
    assert sorted(json.dumps(s["item"], sort_keys=True) for s in signals) == sorted(
        json.dumps(i, sort_keys=True) for i in items)
    assert {s["spider"] for s in signals} == {"site"}
    provisional = [s for s in signals if s["item"]["status"] == "provisional"]
    # Announced during the crawl, not at its end.
    assert min(s["pages"] for s in provisional) < len(page_urls(db)) / 2


@pytest.mark.slow
def test_a_feed_that_cannot_be_written_fails_the_crawl(site, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the feed's directory should be", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'c.db'}"
    proc = scrapy_crawl(site.seeds_path, db, "-O", str(blocker / "pairs.jsonl"))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert stat(proc.stderr, "bitext/errors/feed") == 1
    assert "items were not written; the crawl exits with status 1" in proc.stderr
    assert pairs_of(db)  # the database has the pairs all the same


@pytest.mark.slow
def test_a_feed_storage_failure_fails_the_crawl(tmp_path):
    """The storage fails at close (a feed URI scheme whose store() raises)."""
    port = free_port()
    info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=3, langs=("en", "fr"),
                         seed=7, extras=False)
    db = f"sqlite:///{tmp_path / 'c.db'}"
    feeds = json.dumps({"broken://x/pairs.jsonl": {"format": "jsonl"}})
    with serve_site(tmp_path / "site", port=port):
        proc = subprocess.run(
            crawl_cmd(info.seeds_path, db, "-s", f"FEEDS={feeds}",
                      "-s", "FEED_STORAGES={\"broken\": \"pair_probe_storage.BrokenStorage\"}"),
            cwd=ROOT, capture_output=True, text=True, timeout=240, env=probe_env())
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert stat(proc.stderr, "feedexport/failed_count/BrokenStorage") == 1
    assert "could not be stored" in proc.stderr


@pytest.mark.slow
def test_resolve_reproduces_a_closed_crawls_pairs_and_sentences(fed, tmp_path):
    db, *_ = fed
    copy = tmp_path / "copy.db"
    shutil.copy(db.removeprefix("sqlite:///"), copy)
    before, sentences = export_pairs(db), export_sentences(db)
    proc = resolve(str(copy))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "steps: content, decision, one-to-one, sentences" in proc.stderr
    assert f"bitext: {len(before)} pairs from 1 sites" in proc.stderr
    assert export_pairs(f"sqlite:///{copy}") == before
    assert export_sentences(f"sqlite:///{copy}") == sentences


@pytest.mark.slow
def test_resolve_takes_settings(fed, tmp_path):
    db, *_ = fed
    copy = tmp_path / "copy.db"
    shutil.copy(db.removeprefix("sqlite:///"), copy)
    url = f"sqlite:///{copy}"
    proc = resolve(url, "--set", "BITEXT_CONTENT_ENABLED=False", "--set", "BITEXT_EVIDENCE_ENABLED=False")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "steps: one-to-one" in proc.stderr
    store = Store(url, create=False)
    try:
        accepted = {frozenset((c.url1, c.url2)) for c in store.candidates()}
    finally:
        store.close()
    assert pairs_of(url) and pairs_of(url) <= accepted
    assert resolve(url, "--set", "BITEXT_STRUCTURE_MAX_RATIO=7").returncode == 2
    assert resolve(url, "--set", "no-equals-sign").returncode == 2
    assert resolve(str(tmp_path / "missing.db")).returncode == 2


@pytest.mark.slow
def test_resolve_after_kill_9_then_resume_gives_the_uninterrupted_pairs(site, fed, tmp_path):
    db_full, *_ = fed
    db = f"sqlite:///{tmp_path / 'killed.db'}"
    kill_once_stored(crawl_cmd(site.seeds_path, db, "-s", "DOWNLOAD_DELAY=0.05", "-s", "AUTOTHROTTLE_ENABLED=False",
                               "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1", "-s", "BITEXT_WRITER_BATCH=1"), db, 20)
    stored = page_urls(db)
    assert 20 <= len(stored) < len(page_urls(db_full))
    assert not pairs_of(db)  # killed before its close: no pairs
    done = resolve(db)
    assert done.returncode == 0, done.stderr[-3000:]
    found = pairs_of(db)
    assert found and all(u in stored for pair in found for u in pair)
    again = scrapy_crawl(site.seeds_path, db)
    assert again.returncode == 0, again.stderr[-3000:]
    urls = page_urls(db)
    assert urls[: len(stored)] == stored
    assert len(urls) == len(set(urls)) == len(page_urls(db_full))
    assert pairs_of(db) == pairs_of(db_full)


# -- without a crawl ---------------------------------------------------------------------------
def _cand(lang: str, rows: list[int], **scores: list[float]) -> CandidateSet:
    cand = CandidateSet(lang, np.array(rows, dtype=np.int64))
    cand.add_scores(**{k: np.array(v, dtype=np.float64) for k, v in scores.items()})
    return cand


def test_provisional_rule_best_of_both_pages():
    en = ["en/a", "en/b"]
    urls = {"en": en}.__getitem__
    pairs = ProvisionalPairs(decision=False)
    assert pairs.offer("s", "fr/a", "fr", [_cand("en", [0, 1], structure=[0.9, 0.8])], urls) == [
        PairItem("en", "en/a", "fr", "fr/a", 0.9, "provisional")]
    # fr/x's best is en/a, but en/a has a better partner already: nothing.
    assert pairs.offer("s", "fr/x", "fr", [_cand("en", [0], structure=[0.85])], urls) == []
    # fr/y is better for en/a than fr/a: announced (fr/a - en/a is superseded).
    assert pairs.offer("s", "fr/y", "fr", [_cand("en", [0, 1], structure=[0.95, 0.5])], urls) == [
        PairItem("en", "en/a", "fr", "fr/y", 0.95, "provisional")]
    # en/b's best so far is fr/a (0.8); fr/z at 0.7 is not better.
    assert pairs.offer("s", "fr/z", "fr", [_cand("en", [1], structure=[0.7])], urls) == []
    assert pairs.offer("other-site", "fr/z", "fr", [_cand("en", [1], structure=[0.7])], urls) != []


def test_provisional_rule_uses_the_decision_on_arrival_evidence():
    urls = {"en": ["en/a", "en/b", "en/c"]}.__getitem__
    pairs = ProvisionalPairs(decision=True)
    # Structure 0.75 alone stays under the decision's 0.40; with a trained model's content it passes.
    weak = _cand("en", [0], structure=[0.75])
    assert pairs.offer("s", "fr/a", "fr", [weak], urls) == []
    supported = _cand("en", [1], structure=[0.75], content_share=[0.8], content_maturity=[1.0])
    (pair,) = pairs.offer("s", "fr/b", "fr", [supported], urls)
    assert (pair.url1, pair.url2, pair.score) == ("en/b", "fr/b", pytest.approx(0.775))
    users = _cand("en", [2], structure=[0.75], x_numbers=[0.2])
    assert [p.url1 for p in pairs.offer("s", "fr/c", "fr", [users], urls)] == ["en/c"]


def _pipelines(tmp_path) -> tuple[ItemPipelineManager, BitextRuntime]:
    settings = {k: getattr(project_settings, k) for k in dir(project_settings) if k.isupper()}
    settings.update(BITEXT_DB_URL=f"sqlite:///{tmp_path / 'p.db'}", BITEXT_PARSE_WORKERS=0,
                    BITEXT_STRUCTURE_WORKER=False)
    crawler = get_crawler(SiteSpider, settings)
    crawler.spider = SiteSpider(seeds="http://s.test/")
    return ItemPipelineManager.from_crawler(crawler), BitextRuntime.of(crawler)


def test_users_items_and_pairs_pass_every_stage_and_pages_leave(tmp_path):
    manager, runtime = _pipelines(tmp_path)
    from support import SITE, item, page_html

    runtime.open_site(SITE)
    own = {"title": "a user's own item", "body": "text"}
    pair = PairItem("en", "http://s.test/en/a", "fr", "http://s.test/fr/a", 0.9, "final")

    async def run(x):
        return await manager.process_item_async(x)

    try:
        assert asyncio.run(run(own)) == {"title": "a user's own item", "body": "text"}
        assert asyncio.run(run(pair)) is pair
        page = item("http://s.test/en/a", page_html("en", ["Opening hours", "The library opens at nine."]))
        with pytest.raises(DropItem) as exc:
            asyncio.run(run(page))
        assert type(exc.value).__name__ == "PageStored" and exc.value.log_level == "DEBUG"
        assert isinstance(page, PageItem) and page.lang == "en"  # it went through the stages first
    finally:
        asyncio.run(manager.close_spider_async())
        runtime.close()
    assert page_urls(runtime.config.db_url) == ["http://s.test/en/a"]


def test_resolver_steps_follow_the_settings(tmp_path):
    from bitext_spider.config import BitextConfig
    from bitext_spider.resolution import DictionaryConfigError

    dic = tmp_path / "en-fr.dic"
    dic.write_text("en\tfr\nlibrary\tbibliothèque\nhouse\tmaison\n", encoding="utf-8")

    def steps(**extra):
        runtime = BitextRuntime(None, config=BitextConfig.from_settings(
            {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 's.db'}", **extra}), stats=Stats())
        try:
            return runtime.resolver.steps()
        finally:
            runtime.close()

    assert steps() == ["content", "decision", "one-to-one", "sentences"]
    assert steps(BITEXT_CONTENT_ENABLED=False) == ["decision", "one-to-one"]
    assert steps(BITEXT_CONTENT_ENABLED=False, BITEXT_EVIDENCE_ENABLED=False) == ["one-to-one"]
    assert steps(BITEXT_DICTIONARY=str(dic)) == ["content", "dictionary", "decision", "one-to-one", "sentences"]
    assert steps(BITEXT_ENABLED=False, BITEXT_DICTIONARY=str(dic)) == ["one-to-one"]
    with pytest.raises(DictionaryConfigError):
        steps(BITEXT_DICTIONARY=str(tmp_path / "missing.dic"))


def test_pair_found_is_sent_only_to_connected_handlers():
    """A pair is announced when a handler listens (connected through Scrapy or to any sender),
    and its item still goes through the pipelines when none does."""
    from pydispatch import dispatcher
    from scrapy.signalmanager import SignalManager

    from bitext_spider.crawl.pair_flow import _has_receivers, send_pair
    from bitext_spider.signals import pair_found

    class Scraper:
        def __init__(self) -> None:
            self.items: list[object] = []

        async def start_itemproc_async(self, item: object, response: object = None) -> None:
            self.items.append(item)

    class Crawler:
        def __init__(self) -> None:
            self.signals = SignalManager(self)
            self.engine = type("Engine", (), {"scraper": Scraper()})()
            self.spider = None

    crawler = Crawler()
    assert not _has_receivers(crawler, pair_found)
    pair = object()
    asyncio.run(send_pair(crawler, pair))  # type: ignore[arg-type]
    assert crawler.engine.scraper.items == [pair]

    heard: list[object] = []

    def on_pair(item: object, spider: object) -> None:
        heard.append(item)

    crawler.signals.connect(on_pair, signal=pair_found)
    assert _has_receivers(crawler, pair_found)
    asyncio.run(send_pair(crawler, pair))  # type: ignore[arg-type]
    assert heard == [pair] and crawler.engine.scraper.items == [pair, pair]
    crawler.signals.disconnect(on_pair, signal=pair_found)
    assert not _has_receivers(crawler, pair_found)

    dispatcher.connect(on_pair, signal=pair_found, sender=dispatcher.Any)
    try:
        assert _has_receivers(crawler, pair_found)
    finally:
        dispatcher.disconnect(on_pair, signal=pair_found, sender=dispatcher.Any)
