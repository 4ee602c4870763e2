"""The content stages on hand-made pages, without the network: main content, the content filter's
schedule and rescue, the model's persistence, the sentences of final pairs."""

import asyncio
import threading
import time

import numpy as np
import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler
from support import EN_A, FR_A, SITE, item, page_html

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.seeds import Site
from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider
from bitext_spider.store.database import Store
from matchers.content.content_filter import ContentFilter
from matchers.content.content_schedule import combined_score, required_share
from matchers.content.training_pairs import TrainingPairs
from matchers.content.translation_model import TranslationModel
from matchers.page.word_tokens import word_tokens
from pipelines.content_filter import ContentFilterPipeline
from pipelines.language import LanguagePipeline
from pipelines.main_content import MainContentPipeline
from pipelines.normalize import NormalizePipeline
from pipelines.size_filter import SizeFilterPipeline
from pipelines.store import StorePipeline
from pipelines.structure_filter import StructureFilterPipeline

STAGES = (NormalizePipeline, LanguagePipeline, MainContentPipeline, SizeFilterPipeline, StructureFilterPipeline,
          ContentFilterPipeline, StorePipeline)


def other_template(lang, blocks):
    """The same text in a table layout: no size or structure filter lets it near page_html's."""
    cells = "".join(f"<tr><td><font>{b}</font></td></tr>" for b in blocks[1:])
    return (f'<html lang="{lang}"><head><title>{blocks[0]}</title></head><body><table><tr><td><b>{blocks[0]}</b>'
            f"</td></tr>{cells}</table><div><span>City of Example</span></div></body></html>")


def make_chain(tmp_path, db_url=None, **settings):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": db_url or f"sqlite:///{tmp_path / 'c.db'}", **settings})
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    stages = [cls.from_crawler(crawler) for cls in STAGES]

    def run(it):
        async def go():
            for stage in stages:
                result = stage.process_item(it)
                await result if asyncio.iscoroutine(result) else result
            return it

        return asyncio.run(go())

    def close():
        for stage in stages:
            if hasattr(stage, "close_spider") and not asyncio.iscoroutinefunction(stage.close_spider):
                stage.close_spider()
        runtime.close()

    return crawler, runtime, run, close


def site_id(runtime):
    return runtime.sites[SITE.key].site_id


def train(runtime, times=3):
    """Teach the site's en-fr model the test texts' sentences (what earlier accepted pairs would do)."""
    model = runtime.models.trainable("en", "fr", site_id(runtime))
    pairs = [(word_tokens(e), word_tokens(f)) for e, f in zip(EN_A, FR_A, strict=True)]
    for _ in range(times):
        model.update(pairs)
    runtime.models.updated("en", "fr", site_id(runtime))
    return model


def test_schedule_and_score():
    class M:
        sentences_seen = 0

    m = M()
    assert required_share(m, 0.3, 300) == 0.0
    m.sentences_seen = 150
    assert required_share(m, 0.3, 300) == pytest.approx(0.15)
    m.sentences_seen = 3000
    assert required_share(m, 0.3, 300) == pytest.approx(0.3)
    s = combined_score(np.array([0.8, 0.8, np.nan]), np.array([np.nan, 0.4, 0.6]))
    assert s.tolist() == pytest.approx([0.8, 0.6, 0.3])
    young = combined_score(np.array([0.8, 0.8]), np.array([0.2, 0.9]), weight=0.1)
    assert young.tolist() == pytest.approx([0.74, 0.81])


def test_main_content_is_stored_with_types_and_languages(tmp_path):
    crawler, runtime, run, close = make_chain(tmp_path)
    en = run(item("http://s.test/en/a", page_html("en", EN_A)))
    assert en.content is None  # the store stage let go of it
    close()
    store = Store(runtime.config.db_url, create=False)
    page = next(iter(store.stored_pages(1)))
    store.close()
    kinds = [p[0] for p in page.paragraphs]
    assert kinds[0] == "title" and "heading" in kinds and "text" in kinds
    assert all(p[1] in ("en", "und") for p in page.paragraphs)
    assert crawler.stats.get_value("bitext/content/sentences") >= 4


@pytest.mark.parametrize("at_arrival", [True, False])
def test_other_template_is_paired_on_content_once_the_model_is_trained(tmp_path, at_arrival):
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10,
                                              BITEXT_CONTENT_RESCUE_MIN_SENTENCES=3,
                                              BITEXT_CONTENT_RESCUE_AT_ARRIVAL=at_arrival)
    train(runtime)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    fr = run(item("http://s.test/fr/a", other_template("fr", FR_A)))
    assert fr.lang == "fr"
    assert crawler.stats.get_value("bitext/candidates/structure", 0) == 0  # structure turned it down
    # found as the page arrives, or else by the close sweep with the same model: a page no other
    # filter gave a candidate is searched at once anyway, but only a mutual best of the bags of
    # words is taken then, and these two pages share no word
    assert crawler.stats.get_value("bitext/content/rescued", 0) == int(at_arrival)
    close()
    assert crawler.stats.get_value("bitext/content/rescued_at_close", 0) == int(not at_arrival)
    store = Store(runtime.config.db_url, create=False)
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    cand = next(iter(store.candidates()))
    assert cand.scores["content_share"] >= 0.6 and "structure" not in cand.scores
    sentences = list(store.engine.connect().exec_driver_sql("select lang1, lang2, text1, text2 from sentences"))
    store.close()
    assert len(sentences) >= 3
    assert all(lang1 == "en" and lang2 == "fr" for lang1, lang2, _, _ in sentences)
    assert any("library" in t1 and "bibliothèque" in t2 for _, _, t1, t2 in sentences)


def test_untrained_model_does_not_pair_on_content_alone(tmp_path):
    crawler, runtime, run, close = make_chain(tmp_path)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", other_template("fr", FR_A)))
    close()
    assert crawler.stats.get_value("bitext/pairs") == 0
    assert not crawler.stats.get_value("bitext/content/rescued")


def test_model_state_survives_a_new_crawl_on_the_same_database(tmp_path):
    crawler, runtime, _run, close = make_chain(tmp_path)
    model = train(runtime)
    seen = model.sentences_seen
    close()
    assert crawler.stats.get_value("bitext/models/folded_sentences") == seen
    _, runtime2, _run2, close2 = make_chain(tmp_path)
    again = runtime2.models.get("fr", "en", site_id(runtime2))
    assert again.sentences_seen == seen and again.lang1 == "en"
    assert again.score(word_tokens(EN_A[1]), word_tokens(FR_A[1])) == pytest.approx(
        model.score(word_tokens(EN_A[1]), word_tokens(FR_A[1])))
    close2()


@pytest.fixture(scope="module")
def pg_server():
    from pg_server import postgres_server

    with postgres_server() as url:
        yield url


@pytest.mark.slow
def test_two_crawls_on_one_database_add_up_their_models_training(tmp_path, caplog, pg_server):
    """Two crawls (nodes, on PostgreSQL) train en-fr at once: each judges with its own training
    only, and the stored model ends up with both, whatever the order they close in."""
    from pg_server import create_database

    db = create_database(pg_server)
    crawler1, runtime1, _run1, close1 = make_chain(tmp_path, db)
    crawler2, runtime2, _run2, close2 = make_chain(tmp_path, db)
    first, second = train(runtime1, times=2), train(runtime2, times=3)
    n1, n2 = first.sentences_seen, second.sentences_seen
    close1()
    close2()
    assert crawler1.stats.get_value("bitext/models/folded_sentences") == n1
    assert crawler2.stats.get_value("bitext/models/folded_sentences") == n2
    assert second.sentences_seen == n2  # the second crawl's decisions never saw the first's training
    with caplog.at_level("INFO", logger="bitext_spider.store.model_registry"):
        _, runtime3, _run3, close3 = make_chain(tmp_path, db)
        again = runtime3.models.get("en", "fr", site_id(runtime3))
    assert again.sentences_seen == n1 + n2 and again.pairs_seen == 5
    assert f"translation model en-fr: resumed ({n1 + n2} sentence pairs seen)" in caplog.text
    close3()


def test_a_site_judges_with_its_own_training_only(tmp_path):
    """What makes a site's pairs independent of the sites sharing its process or node: another
    site's training is not in its model, neither at arrival nor at close, until it is folded."""
    other = Site("o.test", ("http://o.test/",), frozenset({"o.test"}))
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10,
                                              BITEXT_CONTENT_RESCUE_MIN_SENTENCES=3)
    runtime.open_site(other)
    train(runtime)  # SITE's model is trained; o.test's is not
    o_id = runtime.sites[other.key].site_id
    assert runtime.models.get("en", "fr", o_id).sentences_seen == 0
    for url, html in (("http://o.test/en/a", page_html("en", EN_A)), ("http://o.test/fr/a", other_template("fr", FR_A))):
        it = item(url, html)
        it.site = other.key
        run(it)
    # The same pages paired on content in SITE (test above); o.test's untrained model cannot.
    assert not crawler.stats.get_value("bitext/content/rescued")
    close()
    assert crawler.stats.get_value("bitext/pairs") == 0
    store = Store(runtime.config.db_url, create=False)
    assert store.model_row("en", "fr").sentences_seen == 12  # SITE's training, folded at close
    store.close()


def test_a_killed_crawl_resumes_with_its_sites_saved_training(tmp_path):
    """Saved but never folded (the crawl was killed): the resumed site starts from it."""
    crawler, runtime, _run, _close = make_chain(tmp_path, BITEXT_CONTENT_MODEL_SAVE_INTERVAL=0)
    model = train(runtime)
    seen = model.sentences_seen
    runtime.writer.close()  # no close(): nothing folded
    runtime.writer_lock.release()  # the operating system's part of a kill
    store = Store(runtime.config.db_url, create=False)
    assert store.model_row("en", "fr") is None
    assert store.site_model_row(site_id(runtime), "en", "fr").sentences_seen == seen
    store.close()
    _, runtime2, _run2, close2 = make_chain(tmp_path)
    again = runtime2.models.get("en", "fr", site_id(runtime2))
    assert again.sentences_seen == seen and not again.has_pending
    assert again.score(word_tokens(EN_A[1]), word_tokens(FR_A[1])) == pytest.approx(
        model.score(word_tokens(EN_A[1]), word_tokens(FR_A[1])))
    close2()
    store = Store(runtime.config.db_url, create=False)
    assert store.model_row("en", "fr").sentences_seen == seen  # folded once, not twice
    assert store.site_models() == []
    store.close()


def test_content_stage_can_be_turned_off(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'o.db'}",
                                       "BITEXT_CONTENT_ENABLED": False})
    with pytest.raises(NotConfigured):
        ContentFilterPipeline.from_crawler(crawler)
    BitextRuntime.of(crawler).close()


# Same template as page_html, unrelated text except one sentence of FR_A: a quarter of its beads align.
FR_PART = ["Plan des pistes cyclables du quartier", FR_A[1],
           "Les casques sont conseillés pour les cyclistes de tout âge qui roulent la nuit en ville.",
           "Merci de respecter les piétons sur les trottoirs."]


def test_a_young_models_judgment_is_made_again_at_close(tmp_path):
    """A wrong candidate that a young model let through (same template, a share its scaled-down
    requirement accepts) is judged again with the trained model at close, dropped, and the page's
    translation in another template is then found on content: the outcome does not hang on when the
    model matured."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=20,
                                              BITEXT_CONTENT_RESCUE_MIN_SENTENCES=3)
    train(runtime, 1)  # 4 of 20 sentences: required share 0.3 * 0.2
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/x", page_html("fr", FR_PART)))
    run(item("http://s.test/fr/a", other_template("fr", FR_A)))
    assert crawler.stats.get_value("bitext/candidates/content") == 1  # en/a - fr/x, judged young
    assert not crawler.stats.get_value("bitext/content/rescued")
    train(runtime, 5)  # what the rest of a crawl would have taught it
    close()
    assert crawler.stats.get_value("bitext/content/dropped_at_close") == 1
    assert crawler.stats.get_value("bitext/content/rescued_at_close") == 1
    store = Store(runtime.config.db_url, create=False)
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    assert {frozenset((c.url1, c.url2)) for c in store.candidates()} == {
        frozenset(("http://s.test/en/a", "http://s.test/fr/a"))}
    # The pair found at close keeps the alignment that found it: its sentences are not aligned
    # again, and they are what the final model aligns.
    assert crawler.stats.get_value("bitext/content/sentences_reused_at_close") == 1
    assert crawler.stats.get_value("bitext/content/sentences_aligned_at_close", 0) == 0
    stored = [tuple(r) for r in store.engine.connect().exec_driver_sql(
        "select text1, text2 from sentences order by position")]
    index = runtime.sites[SITE.key].index
    from matchers.content.content_match import match_content
    fresh = match_content(runtime.models.get("en", "fr", site_id(runtime)), index.content("http://s.test/en/a"),
                          index.content("http://s.test/fr/a"), runtime.config.content_sentence_threshold)
    assert stored and stored == [(t1, t2) for t1, t2, _ in fresh.sentence_pairs()]
    store.close()


def test_a_young_judgment_is_made_again_at_close_by_a_model_still_young_but_trained_further(tmp_path):
    """The same wrong candidate, judged when the model had seen 4 of 25 sentences (required share
    0.3 * 0.16).  At close the model has seen 24, one short of mature: it knows more than the one
    that ruled, so it judges again with the share scaled to its own maturity (0.3 * 0.96), and
    the candidate a quarter of whose beads align is dropped."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=25,
                                              BITEXT_CONTENT_RESCUE_MIN_SENTENCES=3)
    train(runtime, 1)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/x", page_html("fr", FR_PART)))
    assert crawler.stats.get_value("bitext/candidates/content") == 1  # en/a - fr/x, judged young
    train(runtime, 5)
    assert runtime.models.get("en", "fr", site_id(runtime)).sentences_seen == 24
    close()
    assert crawler.stats.get_value("bitext/content/rejudged_at_close") == 1
    assert crawler.stats.get_value("bitext/content/dropped_at_close") == 1
    store = Store(runtime.config.db_url, create=False)
    assert list(store.pairs()) == [] and list(store.candidates()) == []
    store.close()


def test_a_young_judgment_made_again_at_close_keeps_a_candidate_that_passes(tmp_path):
    """A translation judged young and judged again by a model still young at close stays, with
    the share and the maturity it was judged at last."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=40)
    train(runtime, 1)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    train(runtime, 5)
    runtime.resolver.content.flush_training()  # the pair's own training, held back until idle
    seen = runtime.models.get("en", "fr", site_id(runtime)).sentences_seen
    close()
    assert 4 < seen < 40
    assert crawler.stats.get_value("bitext/content/rejudged_at_close") == 1
    assert crawler.stats.get_value("bitext/content/dropped_at_close") == 0
    store = Store(runtime.config.db_url, create=False)
    [cand] = store.candidates()
    assert cand.scores["content_maturity"] == pytest.approx(seen / 40)
    assert cand.scores["content_share"] >= 0.3 * seen / 40
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    store.close()


SENTENCES_QUERY = ("select p1.url, p2.url, text1, text2 from sentences join pages p1 on p1.id = page1_id "
                   "join pages p2 on p2.id = page2_id order by position")


def test_a_young_judgment_is_made_again_as_soon_as_the_model_matures(tmp_path):
    """The same wrong candidate as above: the next page after the model matures has it judged
    again, in the crawl, by the model then; the close applies that verdict without aligning."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=20,
                                              BITEXT_CONTENT_RESCUE_MIN_SENTENCES=3)
    train(runtime, 1)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/x", page_html("fr", FR_PART)))
    assert crawler.stats.get_value("bitext/candidates/content") == 1  # en/a - fr/x, judged young
    train(runtime, 5)
    assert not crawler.stats.get_value("bitext/content/rejudged_at_maturity")
    run(item("http://s.test/fr/a", other_template("fr", FR_A)))
    assert crawler.stats.get_value("bitext/content/rejudged_at_maturity") == 1
    assert crawler.stats.get_value("bitext/content/dropped_at_maturity") == 1
    close()
    assert crawler.stats.get_value("bitext/content/rejudged_at_close") == 0
    assert crawler.stats.get_value("bitext/content/dropped_at_close") == 1
    store = Store(runtime.config.db_url, create=False)
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    assert {frozenset((c.url1, c.url2)) for c in store.candidates()} == {
        frozenset(("http://s.test/en/a", "http://s.test/fr/a"))}
    store.close()


def test_a_candidate_accepted_when_judged_again_has_its_sentences_stored_in_the_crawl(tmp_path):
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=40)
    train(runtime, 1)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    assert runtime.writer.flush(10)
    store = Store(runtime.config.db_url, create=False)
    assert list(store.engine.connect().exec_driver_sql(SENTENCES_QUERY)) == []  # a young model's: not kept
    model = train(runtime, 10)
    run(item("http://s.test/en/z", page_html("en", FR_PART[2:] + EN_A[:1])))  # any later page
    assert crawler.stats.get_value("bitext/content/rejudged_at_maturity") == 1
    assert not crawler.stats.get_value("bitext/content/dropped_at_maturity")
    assert runtime.writer.flush(10)
    stored = list(store.engine.connect().exec_driver_sql(SENTENCES_QUERY))
    assert {(u1, u2) for u1, u2, _, _ in stored} == {("http://s.test/en/a", "http://s.test/fr/a")}
    index = runtime.sites[SITE.key].index
    from matchers.content.content_match import match_content
    then = match_content(model, index.content("http://s.test/en/a"), index.content("http://s.test/fr/a"),
                         runtime.config.content_sentence_threshold)
    assert [(t1, t2) for _, _, t1, t2 in stored] == [(t1, t2) for t1, t2, _ in then.sentence_pairs()]
    close()
    assert crawler.stats.get_value("bitext/content/rejudged_at_close") == 0
    assert crawler.stats.get_value("bitext/content/sentences_aligned_at_close", 0) == 0
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    (cand,) = [c for c in store.candidates() if {c.url1, c.url2} == {"http://s.test/en/a", "http://s.test/fr/a"}]
    assert cand.scores["content_maturity"] == 1.0
    assert cand.scores["content_share"] == pytest.approx(then.share, abs=1e-6)
    assert list(store.engine.connect().exec_driver_sql(SENTENCES_QUERY)) == stored
    store.close()


def test_a_failure_judging_young_candidates_again_loses_no_page(tmp_path, monkeypatch):
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=40)
    train(runtime, 1)

    def broken(*args, **kwargs):
        raise RuntimeError("broken")

    monkeypatch.setattr(runtime.resolver.content, "rejudge_matured", broken)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    assert crawler.stats.get_value("bitext/errors/young_judgments") == 2
    train(runtime, 10)
    close()  # the close judges the young candidate with the final model
    assert crawler.stats.get_value("bitext/content/rejudged_at_close") == 1
    store = Store(runtime.config.db_url, create=False)
    assert len(list(store.pages())) == 2
    assert [(r.url1, r.url2) for r in store.pairs()] == [("http://s.test/en/a", "http://s.test/fr/a")]
    store.close()


def test_kept_alignment_gives_the_sentence_pairs_of_the_match_and_content_keeps_its_tokens():
    from matchers.content.content_match import match_content
    from matchers.content.translation_model import TranslationModel
    from matchers.page.page_content import page_content

    en = page_content([("p", "en", "The river is long. It crosses the city."), ("h", "en", "The old bridge")], "en")
    fr = page_content([("p", "fr", "La rivière est longue. Elle traverse la ville."), ("h", "fr", "Le vieux pont")], "fr")
    assert en.sentences == ["The river is long.", "It crosses the city.", "The old bridge"] and len(en) == 3
    assert en.tokens == [word_tokens(s) for s in en.sentences]
    assert en.bag == {w for sent in en.tokens for w in sent}
    assert en.n_tokens == sum(len(t) for t in en.tokens)
    match = match_content(TranslationModel("en", "fr"), en, fr, 0.3)
    assert match is not None and match.sentence_pairs()
    kept = match.aligned()
    assert kept.sentence_pairs() == match.sentence_pairs()
    assert kept.rows.nbytes == 40 * len(match.sentence_pairs())
    # The sentences unpacked for one pair serve the next pair of the same page, either way round.
    texts: dict[int, list[str]] = {}
    assert kept.sentence_pairs(texts) == match.sentence_pairs()
    assert texts == {en.uid: en.sentences, fr.uid: fr.sentences}
    flipped = kept.starting_with(fr.uid)
    assert flipped.sentence_pairs(texts) == [(b, a, p) for a, b, p in match.sentence_pairs()]


def test_sentences_of_a_trained_models_match_are_stored_as_the_page_arrives_and_kept_if_final(tmp_path):
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10)
    train(runtime)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    assert runtime.writer.flush(10)
    store = Store(runtime.config.db_url, create=False)
    query = SENTENCES_QUERY
    at_arrival = list(store.engine.connect().exec_driver_sql(query))
    assert at_arrival and {(u1, u2) for u1, u2, _, _ in at_arrival} == {("http://s.test/en/a", "http://s.test/fr/a")}
    assert any("library" in t1 and "bibliothèque" in t2 for _, _, t1, t2 in at_arrival)
    close()
    assert list(store.engine.connect().exec_driver_sql(query)) == at_arrival  # final: kept as stored
    assert crawler.stats.get_value("bitext/content/sentences_aligned_at_close", 0) == 0
    assert crawler.stats.get_value("bitext/content/sentences_stored") == len(at_arrival)
    # A pair that is no longer final loses its sentences at the next resolution.
    with store.engine.begin() as con:
        con.exec_driver_sql("delete from candidates")
    runtime2 = BitextRuntime.of(get_crawler(SiteSpider, {"BITEXT_DB_URL": runtime.config.db_url}))
    runtime2.open_site(SITE)
    runtime2.close()
    assert list(store.engine.connect().exec_driver_sql(query)) == []
    store.close()


def test_training_is_applied_once_it_adds_a_sixteenth_of_the_model_and_all_of_it_before_close():
    class Models:
        def __init__(self):
            self.model = TranslationModel("en", "fr")
            self.saved = 0
            self.snapshots: list[bool] = []

        def get(self, lang_a, lang_b, site_id):
            return self.model

        trainable = get

        def updated(self, lang_a, lang_b, site_id, snapshot=True):
            self.saved += 1
            self.snapshots.append(snapshot)

    class Match:
        def training_pairs(self, min_prob):
            return TrainingPairs.from_words([(["the", "house"], ["la", "maison"])] * 10)

    models = Models()
    content = ContentFilter(BitextConfig(), models)
    content._train(1, "fr", "en", Match())  # an untrained model learns at once
    assert models.model.sentences_seen == 10 and models.model.pairs_seen == 1
    for _ in range(30):
        content._train(1, "en", "fr", Match())
    # Applied whenever the held-back pairs reach a sixteenth of what the model has seen: each
    # page's ten pairs up to 160 seen, then every second page's.
    assert models.model.sentences_seen == 310 and models.saved == 1 + 15 + 8
    models.model = TranslationModel("en", "fr")
    models.model.update([(["a"], ["b"])] * 1600)
    for _ in range(5):
        content._train(1, "en", "fr", Match())
    assert models.model.sentences_seen == 1600  # 50 < 1600 / 16: held back
    assert all(models.snapshots)
    content.flush_training()
    assert models.model.sentences_seen == 1650 and models.model.pairs_seen == 1 + 5
    # The close's save follows the flush: the flush asks for no snapshot of its own.
    assert models.snapshots[-1] is False
    assert content.counts["model_updates"] == 36 and content.counts["model_sentences"] == 360
    content.flush_training()  # nothing left
    assert models.model.sentences_seen == 1650



def test_the_models_are_saved_beside_the_close_steps(tmp_path, monkeypatch):
    """The save starts before the steps, on a thread of its own, and has ended when the
    resolution returns: the stored model holds the site's training."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10)
    model = train(runtime)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    started, seen = threading.Event(), {}
    save = runtime.save_models

    def save_models():
        seen["save"] = threading.current_thread().name
        started.set()
        save()

    monkeypatch.setattr(runtime, "save_models", save_models)
    resolver = runtime.resolver
    sentences = resolver._sentences

    def last_step(content, state):
        seen["started before the last step"] = started.wait(5)
        seen["step"] = threading.current_thread().name
        return sentences(content, state)

    monkeypatch.setattr(resolver, "_sentences", last_step)
    close()
    assert seen["started before the last step"] and seen["save"] != seen["step"]
    assert crawler.stats.get_value("bitext/pairs") == 1
    store = Store(runtime.config.db_url, create=False)
    assert store.model_row("en", "fr").sentences_seen == model.sentences_seen > 0
    assert not model.has_pending
    store.close()


@pytest.mark.parametrize("then", ["models_saved", "close"])
def test_the_pairs_are_stored_before_the_models_save_ends_and_close_waits_for_it(tmp_path, monkeypatch, then):
    """At idle the crawl sends the final pairs while the models' save ends: the resolution
    returns with the pairs stored, and the save has ended once the crawl waits for it or closes."""
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10)
    model = train(runtime)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    release = threading.Event()
    save = runtime.save_models

    def held_save():
        release.wait(10)
        save()

    monkeypatch.setattr(runtime, "save_models", held_save)
    store = Store(runtime.config.db_url, create=False)
    try:
        runtime.resolve(wait_saved=False)
        saving = [t for t in threading.enumerate() if t.name == "bitext-save-models"]
        assert saving and saving[0].is_alive()
        assert len(list(store.pairs())) == 1  # the final pair is there to be sent
        assert store.model_row("en", "fr") is None  # the models' save has not written yet
    finally:
        release.set()
    if then == "models_saved":
        runtime.models_saved()
        assert not saving[0].is_alive()
        assert store.model_row("en", "fr").sentences_seen == model.sentences_seen > 0
        close()
    else:
        close()
        assert not saving[0].is_alive()
        assert store.model_row("en", "fr").sentences_seen == model.sentences_seen > 0
    store.close()


def test_a_close_step_that_raises_still_waits_for_the_models_save(tmp_path, monkeypatch):
    crawler, runtime, run, close = make_chain(tmp_path, BITEXT_CONTENT_MATURE_SENTENCES=10)
    model = train(runtime)
    run(item("http://s.test/en/a", page_html("en", EN_A)))
    run(item("http://s.test/fr/a", page_html("fr", FR_A)))
    assert runtime.writer.flush(10)
    save = runtime.save_models

    def slow_save():
        time.sleep(0.5)
        save()

    def broken(site_id):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(runtime, "save_models", slow_save)
    monkeypatch.setattr(runtime.store, "resolve_site", broken)
    with pytest.raises(RuntimeError):
        runtime.resolver.run(list(runtime.sites.values()))
    assert not [t for t in threading.enumerate() if t.name == "bitext-save-models"]
    store = Store(runtime.config.db_url, create=False)
    assert store.model_row("en", "fr").sentences_seen == model.sentences_seen
    store.close()
    monkeypatch.undo()
    close()
