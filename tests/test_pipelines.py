"""The pipeline chain on hand-made pages, without the network: items in, stored rows out."""

import asyncio

import pytest
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler
from support import EN_A, EN_B, EN_B_LIST, FR_A, SITE, item, page_html

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider
from bitext_spider.store.database import Store
from pipelines.language import LanguagePipeline
from pipelines.normalize import NormalizePipeline
from pipelines.size_filter import SizeFilterPipeline
from pipelines.store import StorePipeline
from pipelines.structure_filter import StructureFilterPipeline


@pytest.fixture
def chain(tmp_path):
    # The WebMining stages alone (size, language, structure): the settings that go with that chain
    # leave the content filter and the site evidence off, so no decision runs at close.
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'p.db'}",
                                       "BITEXT_CONTENT_ENABLED": False, "BITEXT_EVIDENCE_ENABLED": False})
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    stages = [cls.from_crawler(crawler) for cls in (NormalizePipeline, LanguagePipeline, SizeFilterPipeline,
                                                    StructureFilterPipeline, StorePipeline)]

    def run(it):
        async def go():
            for stage in stages:
                result = stage.process_item(it)
                it2 = await result if asyncio.iscoroutine(result) else result
                assert it2 is it
            return it
        return asyncio.run(go())

    yield crawler, runtime, stages, run
    stages[3].close_spider()
    runtime.close()


def test_translation_pair_found_and_stored(chain, tmp_path):
    crawler, runtime, stages, run = chain
    en = run(item("http://s.test/en/a", page_html("en", EN_A)))
    assert en.lang == "en" and en.eligible and en.candidates == []
    enb = run(item("http://s.test/en/b", page_html("en", EN_B).replace("</h1>", "</h1>" + EN_B_LIST)))
    assert enb.lang == "en"
    fr = item("http://s.test/fr/a", page_html("fr", FR_A), encoding="iso-8859-1")
    run(fr)
    assert fr.lang == "fr" and fr.encoding == "cp1252"
    runtime.close()
    stats = crawler.stats.get_stats()
    assert stats["bitext/pages"] == 3 and stats["bitext/pages/lang/en"] == 2
    assert stats["bitext/candidates/compared"] == 2
    assert stats["bitext/candidates/structure"] == 1, stats
    assert stats["bitext/pairs"] == 1 and stats["bitext/pairs/en-fr"] == 1
    store = Store(runtime.config.db_url, create=False)
    pairs = [(r.url1, r.url2) for r in store.pairs()]
    assert pairs == [("http://s.test/en/a", "http://s.test/fr/a")]
    cand = next(iter(store.candidates()))
    assert set(cand.scores) >= {"size_file", "size_tags", "size_paragraphs", "edit_distance", "structure",
                                "chunk_correlation"}
    pages = {p.url: p for p in store.pages()}
    assert "bibliothèque" in pages["http://s.test/fr/a"].text


def test_languages_of_interest(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'l.db'}", "BITEXT_LANGS": "en,de"})
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    it = item("http://s.test/fr/a", page_html("fr", FR_A))
    for cls in (NormalizePipeline, LanguagePipeline, SizeFilterPipeline):
        cls.from_crawler(crawler).process_item(it)
    assert it.lang == "fr" and not it.eligible and it.candidates == []
    assert len(runtime.sites[SITE.key].index) == 0


def test_binary_body_is_dropped_with_a_reason(chain):
    crawler, runtime, stages, run = chain
    with pytest.raises(DropItem, match="binary content"):
        stages[0].process_item(PageItem(url="http://s.test/x.html", site=SITE.key,
                                        body=b"%PDF-1.4\x00\x01" * 100, content_type="text/html"))
    assert crawler.stats.get_value("bitext/pages/dropped/binary") == 1


def test_disabled_matching_pipelines_are_not_configured(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'd.db'}", "BITEXT_ENABLED": False})
    for cls in (NormalizePipeline, LanguagePipeline, SizeFilterPipeline, StructureFilterPipeline, StorePipeline):
        with pytest.raises(NotConfigured):
            cls.from_crawler(crawler)


def test_page_record_keeps_the_best_candidates_per_language():
    import numpy as np

    from matchers.site.page_index import CandidateSet
    from pipelines.store import page_record

    class Index:
        urls = [f"http://s.test/en/{i}" for i in range(6)]

    it = item("http://s.test/fr/x", page_html("fr", FR_A))
    cand = CandidateSet("en", np.arange(6))
    cand.add_scores(structure=np.array([0.5, 0.9, 0.7, 0.2, 0.95, 0.1]), edit_distance=np.arange(6.0))
    it.candidates = [cand]
    rec = page_record(it, 1, lambda lang: Index, max_per_lang=2)
    assert [(c.other_url, c.score) for c in rec.candidates] == [("http://s.test/en/4", 0.95),
                                                                ("http://s.test/en/1", 0.9)]
    assert rec.candidates[0].scores == {"structure": 0.95, "edit_distance": 4.0}
    everything = page_record(it, 1, lambda lang: Index)
    assert len(everything.candidates) == 6


def test_runtime_sets_and_restores_the_gil_switch_interval(tmp_path):
    import sys

    sys.setswitchinterval(0.005)  # Python's default; other tests' runtimes may have left theirs
    before = sys.getswitchinterval()
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'g.db'}"})
    runtime = BitextRuntime.of(crawler)
    assert sys.getswitchinterval() == pytest.approx(0.05)
    runtime.close()
    assert sys.getswitchinterval() == pytest.approx(before)
    off = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'h.db'}", "BITEXT_ENABLED": False})
    BitextRuntime.of(off)
    assert sys.getswitchinterval() == pytest.approx(before)


def test_structure_filter_keep_equals_exhaustive_top_k():
    """The staged, best-first search returns the same top candidates as scoring every pair."""
    import copy

    import numpy as np

    from matchers.page.linearize import tag_code
    from matchers.site.page_index import PageFeatures, SiteIndex
    from matchers.structure.structure_filter import structure_filter

    rng = np.random.default_rng(7)
    tags = [tag_code(t) for t in ("div", "p", "a", "em", "li", "h2")] + [tag_code("p", True), tag_code("div", True)]
    base = [int(x) for x in rng.choice(tags, 60)]

    def variant():
        seq = [t if rng.random() > 0.06 else int(rng.choice(tags)) for t in base]
        for _ in range(int(rng.integers(3, 9))):
            seq.insert(int(rng.integers(0, len(seq))), int(rng.integers(1, 40)))
        return np.array(seq, dtype=np.int32)

    index = SiteIndex("s")
    for i in range(150):
        tokens = variant()
        index.register(PageFeatures(f"/en/{i}", "en", 1000, 1000, 60, 10, tokens))
    for j in range(20):
        query = variant()
        cands = index.register(PageFeatures(f"/fr/{j}", "fr", 1000, 1000, 60, 10, query))
        everything = copy.deepcopy(cands)
        structure_filter(index, query, cands, 0.3, 0.5, keep=3)
        structure_filter(index, query, everything, 0.3, 0.5, keep=0)
        for got, full in zip(cands, everything, strict=True):
            best = np.sort(full.scores["structure"])[::-1][:3]
            assert np.allclose(np.sort(got.scores["structure"])[::-1], best)
            assert len(got) == min(3, len(full))


def test_best_structure_record():
    import numpy as np

    from matchers.structure.best_structure import BestStructure, pruning_limits

    rec = BestStructure()
    assert rec.get("fr", np.array([0, 5])).tolist() == [0.0, 0.0]
    rec.raise_to("fr", np.array([3, 700]), np.array([0.8, 0.6]))
    rec.raise_to("fr", np.array([3, 4]), np.array([0.7, float("nan")]))
    assert rec.get("fr", np.array([3, 4, 700, 5000])).tolist() == [0.8, 0.0, 0.6, 0.0]
    assert rec.get("de", np.array([3])).tolist() == [0.0]  # per other language
    lim = pruning_limits(np.array([0.0, 0.9, 0.95]), np.array([100, 100, 200]), 0.1, 10)
    assert lim[0] > 10**9 and lim[1:].tolist() == [200, 300]


def test_structure_filter_pruned_by_best_equals_exhaustive_within_margin():
    """With a margin, the kept candidates are the exhaustive top-k among those that come within
    the margin of their earlier page's best so far and of the new page's best; both pages'
    records are raised."""
    import copy

    import numpy as np

    from matchers.page.linearize import tag_code
    from matchers.site.page_index import PageFeatures, SiteIndex
    from matchers.structure.structure_filter import structure_filter

    rng = np.random.default_rng(11)
    tags = [tag_code(t) for t in ("div", "p", "a", "em", "li", "h2")] + [tag_code("p", True), tag_code("div", True)]
    base = [int(x) for x in rng.choice(tags, 60)]

    def variant():
        seq = [t if rng.random() > 0.06 else int(rng.choice(tags)) for t in base]
        for _ in range(int(rng.integers(3, 9))):
            seq.insert(int(rng.integers(0, len(seq))), int(rng.integers(1, 40)))
        return np.array(seq, dtype=np.int32)

    margin, keep = 0.02, 3
    index = SiteIndex("s")
    for i in range(120):
        index.register(PageFeatures(f"/en/{i}", "en", 1000, 1000, 60, 10, variant()))
    en = index.index("en")
    pruned_any = self_pruned_any = False
    for j in range(40):
        query = variant()
        cands = index.register(PageFeatures(f"/fr/{j}", "fr", 1000, 1000, 60, 10, query))
        everything = copy.deepcopy(cands)
        before = en.best_structure.get("fr", cands[0].rows)
        structure_filter(index, query, everything, 0.3, 0.5, keep=0)
        structure_filter(index, query, cands, 0.3, 0.5, keep=keep, lang="fr", row=j, margin=margin)
        (full,), (got,) = everything, cands
        sims = full.scores["structure"]
        eligible = sims >= before[full.rows] - margin - 1e-9
        pruned_any |= bool(np.any(~eligible))
        if np.any(eligible):  # and within the margin of the new page's own best
            near = sims >= sims[eligible].max() - margin - 1e-9
            self_pruned_any |= np.count_nonzero(near & eligible) < min(keep, np.count_nonzero(eligible))
            eligible &= near
        expected = np.sort(sims[eligible])[::-1][:keep]
        assert len(got) == len(expected)
        assert np.allclose(np.sort(got.scores["structure"])[::-1], expected)
        # records: every kept earlier page knows at least this similarity, the new page its best
        assert np.all(en.best_structure.get("fr", got.rows) >= got.scores["structure"] - 1e-12)
        if len(got):
            assert index.index("fr").best_structure.get("en", np.array([j]))[0] == got.scores["structure"].max()
    assert pruned_any and self_pruned_any  # the test exercised both prunings


def _structure_run(tmp_path, name, worker, pages, kill_after=None):
    """Pages through normalize, language, size and structure; per page its candidates' rows and
    scores.  ``kill_after``: SIGKILL the structure worker after that many pages."""
    import os
    import signal

    crawler = get_crawler(
        SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / name}", "BITEXT_STRUCTURE_WORKER": worker}
    )
    crawler.stats.open_spider()
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    stages = [cls.from_crawler(crawler) for cls in (NormalizePipeline, LanguagePipeline, SizeFilterPipeline,
                                                    StructureFilterPipeline)]
    stages[3].open_spider()
    out = []

    async def go():
        for n, (url, html) in enumerate(pages):
            if n == kill_after and stages[3].worker_pid() is not None:
                os.kill(stages[3].worker_pid(), signal.SIGKILL)
            it = item(url, html)
            for stage in stages:
                result = stage.process_item(it)
                it = await result if asyncio.iscoroutine(result) else result
            out.append([(c.lang, c.rows.tolist(), {k: v.tolist() for k, v in sorted(c.scores.items())})
                        for c in it.candidates])

    try:
        asyncio.run(go())
    finally:
        stages[3].close_spider()
    return out, crawler.stats


def _site_pages(tmp_path):
    from bitext_spider.demo.site import generate_site

    generate_site(tmp_path / "site", base_url="http://s.test", n_docs=12, langs=("en", "fr"), seed=3,
                  extras=False, retemplated=0.3)
    files = sorted((tmp_path / "site" / "www").rglob("*.html"))
    return [(f"http://s.test/{f.relative_to(tmp_path / 'site' / 'www')}", f.read_text("utf-8")) for f in files]


def test_structure_worker_process_computes_what_the_thread_computes(tmp_path):
    pages = _site_pages(tmp_path)
    here, thread_stats = _structure_run(tmp_path, "t.db", False, pages)
    there, stats = _structure_run(tmp_path, "w.db", True, pages)
    assert sum(len(c[1]) for page in here for c in page) >= 10  # the site gives candidates
    assert there == here
    assert stats.get_value("bitext/time/structure_cpu_ms") is not None
    assert stats.get_value("bitext/errors/structure_worker") is None
    # The thread's wall time is published only when the thread filters, and is never under its CPU.
    assert stats.get_value("bitext/time/structure_thread_wall_ms") is None
    wall = thread_stats.get_value("bitext/time/structure_thread_wall_ms")
    assert wall is not None and wall + 1 >= thread_stats.get_value("bitext/time/structure_cpu_ms")


def test_a_dead_structure_worker_costs_no_candidates(tmp_path):
    """After the worker is killed the thread takes over; its best-so-far records start empty, so
    it prunes less, but the kept candidates are those of the thread from the start here."""
    pages = _site_pages(tmp_path)
    here, _ = _structure_run(tmp_path, "t.db", False, pages)
    first = next(n for n, page in enumerate(here) if page)  # the worker has served this page
    there, stats = _structure_run(tmp_path, "k.db", True, pages, kill_after=first + 1)
    assert sum(1 for page in here[first + 1 :] if page) >= 3  # pages the thread took over
    assert stats.get_value("bitext/errors/structure_worker") == 1
    assert [[c[:2] for c in page] for page in there] == [[c[:2] for c in page] for page in here]
