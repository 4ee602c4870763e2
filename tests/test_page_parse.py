"""Page parsing in a worker process (pipelines.page_parse, matchers.page.page_parse): the stages must
give the same items, stored rows and pairs whether a worker parsed the page or they did."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import sqlite3
import time

import numpy as np
import pytest
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler
from support import FR_A, SITE, page_html, scrapy_crawl, stat

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider
from matchers.page.language_id import LanguageIdentifier
from matchers.page.main_content import paragraph_keys
from matchers.page.page_content import split_paragraph
from matchers.page.page_parse import ParseOptions, paragraph_language, parse_page, parse_pages
from pipelines.image_evidence import ImageEvidencePipeline
from pipelines.language import LanguagePipeline
from pipelines.link_evidence import LinkEvidencePipeline
from pipelines.main_content import MainContentPipeline
from pipelines.normalize import NormalizePipeline
from pipelines.page_parse import PageParsePipeline

STAGES = (NormalizePipeline, LanguagePipeline, MainContentPipeline, LinkEvidencePipeline, ImageEvidencePipeline)

ARTICLE = (
    "<html><head><title>Les traductions du site</title></head><body>"
    "<nav><a href='/en/'>English</a> <a href='/fr/'>Français</a></nav>"
    "<h1>Les traductions du site</h1>"
    "<p>Ce paragraphe est assez long pour être reconnu comme du contenu principal par jusText, avec "
    "plusieurs phrases. La deuxième phrase parle de la traduction des pages web et de leurs liens.</p>"
    "<p>This paragraph is written in English inside a French page, and it is long enough for fastText "
    "to identify it on its own.</p>"
    "<p><img src='/img/carte.png'> Une image et <a href='/fr/b.html' hreflang='fr'>un lien</a>.</p>"
    "<footer>Mentions légales</footer></body></html>"
)

PAGES = [
    ("http://s.test/fr/a", page_html("fr", FR_A).encode("utf-8"), "text/html; charset=utf-8"),
    ("http://s.test/fr/article", ARTICLE.encode("utf-8"), "text/html"),
    ("http://s.test/fr/latin1", ARTICLE.encode("iso-8859-1"), "text/html; charset=iso-8859-1"),
    ("http://s.test/ja/sjis", "<html><body><p>日本語のページです。翻訳のテストをしています。</p></body></html>"
     .encode("shift_jis"), "text/html"),
]


def run_stages(crawler, item: PageItem) -> PageItem:
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    for cls in STAGES:
        cls.from_crawler(crawler).process_item(item)
    return item


def comparable(item: PageItem) -> dict:
    content = item.content
    return {
        "html": item.html, "encoding": item.encoding, "size_chars": item.size_chars,
        "tokens": item.features.tokens.tolist(), "blocks": item.features.blocks, "title": item.features.title,
        "too_large": item.too_large, "lang": item.lang, "lang_score": item.lang_score, "eligible": item.eligible,
        "outlinks": item.outlinks, "images": item.images,
        "paragraphs": None if content is None else item.paragraphs,
        "sentences": None if content is None else content.sentences,
        "tokens_c": None if content is None else content.tokens,
        "chars": None if content is None else content.chars.tolist(),
    }


@pytest.mark.parametrize("url,body,ctype", PAGES)
def test_stages_give_the_same_item_with_a_parsed_page(tmp_path, url, body, ctype):
    settings = {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'a.db'}", "BITEXT_LANGS": "en,fr,ja"}
    here = run_stages(get_crawler(SiteSpider, settings), PageItem(url=url, site=SITE.key, body=body,
                                                                  content_type=ctype))
    settings["BITEXT_DB_URL"] = f"sqlite:///{tmp_path / 'b.db'}"
    crawler = get_crawler(SiteSpider, settings)
    options = BitextRuntime.of(crawler).config.parse_options()
    item = PageItem(url=url, site=SITE.key, body=body, content_type=ctype)
    item.parsed = parse_page(body, ctype, url, options, LanguageIdentifier())
    worked = run_stages(crawler, item)
    assert comparable(worked) == comparable(here)
    assert here.lang in ("fr", "ja") and here.eligible


def test_parse_page_finds_paragraph_languages_and_skips_what_is_not_needed():
    lid = LanguageIdentifier()
    parsed = parse_page(ARTICLE.encode(), "text/html", "http://s.test/fr/article", ParseOptions(), lid)
    assert parsed.lang == "fr"
    draft = parsed.draft
    assert parsed.paragraphs and draft is not None
    assert len(parsed.paragraph_langs) == len(draft.split) == len(parsed.paragraph_keys) == len(parsed.paragraphs)
    sizes = np.diff(draft.starts).tolist()
    for p, lang, split, n in zip(parsed.paragraphs, parsed.paragraph_langs, draft.split, sizes, strict=True):
        if p.boilerplate:  # never kept by the stage: not identified, not split
            assert lang is None and not split and n == 0
            continue
        assert lang == paragraph_language(p.text, "fr", ParseOptions(), lid)
        assert split == (lang in ("fr", "und"))
        assert n == (len(split_paragraph(p.text, "fr")) if split else 0)
    assert 2 in sizes  # the two-sentence French paragraph
    assert parsed.paragraph_keys == paragraph_keys(parsed.paragraphs, "fr")
    assert any(p.boilerplate for p in parsed.paragraphs)  # the navigation
    assert ("http://s.test/fr/b.html", "un lien", "fr") in parsed.outlinks
    assert parsed.images == ["carte.png"]
    # Without a content stage, or outside the languages of interest, no main content is made.
    assert parse_page(ARTICLE.encode(), "text/html", "u", ParseOptions(main_content=False), lid).paragraphs is None
    assert parse_page(ARTICLE.encode(), "text/html", "u", ParseOptions(langs=frozenset({"de"})), lid).paragraphs is None
    assert parse_page(b"%PDF-1.4\x00\x01" * 100, "text/html", "u", ParseOptions(), lid).binary
    # Without the site-evidence stages no links or images are kept; the links to follow are.
    bare = parse_page(ARTICLE.encode(), "text/html", "http://s.test/fr/article", ParseOptions(evidence=False), lid)
    assert bare.outlinks == [] and bare.images == []
    assert bare.follow == parsed.follow and "http://s.test/fr/b.html" in bare.follow


def test_a_batch_of_pages_parses_as_the_pages_one_by_one():
    lid = LanguageIdentifier()
    pages = [(body, ctype, url) for url, body, ctype in PAGES]
    pages.insert(2, (b"%PDF-1.4\x00\x01" * 100, "text/html", "http://s.test/doc.pdf"))
    for options in (ParseOptions(), ParseOptions(main_content=False, evidence=False)):
        batch = parse_pages(pages, options, lid)
        alone = [parse_page(body, ctype, url, options, lid) for body, ctype, url in pages]
        assert [p.binary for p in batch] == [False, False, True, False, False]
        for a, b in zip(batch, alone, strict=True):
            assert a.cpu_seconds > 0 or a.binary
            a.cpu_seconds = b.cpu_seconds = 0.0
            if a.features is not None:
                assert a.features.tokens.tolist() == b.features.tokens.tolist()
                a.features.tokens = b.features.tokens
            if a.draft is not None:
                assert pickle.dumps(a.draft) == pickle.dumps(b.draft)  # its arrays have no ==
                a.draft = b.draft
            assert a == b


def test_options_want_the_same_languages_as_the_config():
    from bitext_spider.config import BitextConfig

    for langs in (None, "en,pt-BR", "zh_Hans,nb"):
        config = BitextConfig.from_settings({"BITEXT_LANGS": langs} if langs else {})
        options = config.parse_options()
        for code in ("en", "EN", "pt", "pt-br", "pt_PT", "zh", "zh-Hant", "nb", "no", "und", "", None, "fr"):
            assert options.wants(code) == config.wants(code), (langs, code)


def test_worker_process_parses_and_a_dead_worker_costs_no_page(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'w.db'}", "BITEXT_PARSE_WORKERS": 1})
    crawler.stats.open_spider()
    stage = PageParsePipeline.from_crawler(crawler)
    url, body, ctype = PAGES[1]

    async def go() -> list[PageItem]:
        stage.open_spider()
        items = []
        for _ in range(2):
            item = PageItem(url=url, site=SITE.key, body=body, content_type=ctype)
            items.append(await stage.process_item(item))
            # Kill the worker after the first page: the second is parsed here and a new worker starts.
            for pid in stage.runtime.page_parser.worker_pids():
                os.kill(pid, signal.SIGKILL)
        item = PageItem(url=url, site=SITE.key, body=body, content_type=ctype)
        items.append(await stage.process_item(item))
        return items

    try:
        items = asyncio.run(go())
    finally:
        stage.close_spider()
    expected = parse_page(body, ctype, url, stage.parse_options, LanguageIdentifier())
    for item in items:
        assert item.parsed is not None
        assert np.array_equal(item.parsed.features.tokens, expected.features.tokens)
        assert item.parsed.paragraphs == expected.paragraphs
        got, want = item.parsed.draft, expected.draft
        assert got.split == want.split and np.array_equal(got.starts, want.starts)
        assert got.content.packed == want.content.packed and got.content.words == want.content.words
        assert item.parsed.lang == expected.lang == "fr"
    assert crawler.stats.get_value("bitext/errors/parse_worker") >= 1
    assert crawler.stats.get_value("bitext/time/parse_cpu_ms") is not None


def test_binary_page_from_the_worker_is_dropped(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'b.db'}"})
    BitextRuntime.of(crawler).open_site(SITE)
    body = b"%PDF-1.4\x00\x01" * 100
    item = PageItem(url="http://s.test/x.html", site=SITE.key, body=body, content_type="text/html")
    item.parsed = parse_page(body, "text/html", item.url, ParseOptions(), LanguageIdentifier())
    with pytest.raises(DropItem, match="binary content"):
        NormalizePipeline.from_crawler(crawler).process_item(item)


def rows(db: str) -> dict[str, list]:
    """The stored rows, each page pair in URL order (which page of a pair has the lower id depends
    on when the writer thread stored it, not on what was computed)."""
    con = sqlite3.connect(db.removeprefix("sqlite:///"))
    url = "(select url from pages p where p.id = {})"
    pair = f"min({url.format('page1_id')}, {url.format('page2_id')}), max({url.format('page1_id')}, {url.format('page2_id')})"
    try:
        return {
            "pages": con.execute(
                "select url, encoding, size_bytes, size_chars, n_tags, n_paragraphs, n_words, lang, lang_score,"
                " eligible, title, text, tokens, links, paragraphs, outlinks, images, note from pages order by url"
            ).fetchall(),
            "candidates": con.execute(f"select {pair}, score, scores, accepted from candidates order by 1, 2").fetchall(),
            "pairs": con.execute(f"select {pair}, score from pairs order by 1, 2").fetchall(),
        }
    finally:
        con.close()


@pytest.mark.slow
def test_crawl_with_a_worker_stores_what_a_crawl_without_one_stores(tmp_path):
    """The demo site, one page at a time (so pages arrive in the same order).

    With the content filter off every stored row must be the same.  With it on, the model's
    training interleaves with later pages' checks as the threads run, so candidate scores vary
    slightly between any two crawls (with or without a worker); the pages and the pairs must not.
    """
    from bitext_spider.demo.loopback_server import free_port, serve_site
    from bitext_spider.demo.site import generate_site

    port = free_port()
    info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=30, langs=("en", "fr", "de"),
                         seed=5, coverage=0.9, retemplated=0.3, extras=True)
    # One page at a time, each through the pipelines before the next is fetched: with a worker the
    # spider schedules a page's links only when its parse comes back, so a crawl that overlapped
    # would take the pages in another order.
    same = ["-s", "CONCURRENT_REQUESTS=1", "-s", "SCRAPER_SLOT_MAX_ACTIVE_SIZE=1",
            "-s", "BITEXT_CONTENT_MATURE_SENTENCES=100"]
    out = {}
    with serve_site(tmp_path / "site", port=port):
        for content in (False, True):
            for workers in (0, 1):
                db = f"sqlite:///{tmp_path / f'w{workers}{content}.db'}"
                proc = scrapy_crawl(info.seeds_path, db, *same, "-s", f"BITEXT_PARSE_WORKERS={workers}",
                                    "-s", f"BITEXT_CONTENT_ENABLED={content}")
                assert proc.returncode == 0, proc.stderr[-3000:]
                out[workers, content] = (rows(db), proc.stderr)
                assert (stat(proc.stderr, "bitext/time/parse_cpu_ms") is None) == (workers == 0)
    worker, here = out[1, False][0], out[0, False][0]
    assert len(worker["pairs"]) >= 60 and worker["candidates"]
    for table in ("pages", "candidates", "pairs"):
        assert worker[table] == here[table], table
    worker, here = out[1, True][0], out[0, True][0]
    assert worker["pages"] == here["pages"]
    assert [p[:2] for p in worker["pairs"]] == [p[:2] for p in here["pairs"]]
    assert stat(out[1, True][1], "bitext/content/sentences") == stat(out[0, True][1], "bitext/content/sentences") > 0


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:") and "Z" in line for line in f)  # a zombie has exited
    except FileNotFoundError:
        return True


def test_worker_ends_when_the_crawl_process_is_killed(tmp_path):
    """A crawl killed with SIGKILL cannot stop its pool; its worker must not live on."""
    import subprocess
    import sys
    import time

    script = (
        "import asyncio, os, time\n"
        "from matchers.page.page_parse import ParseOptions\n"
        "from bitext_spider.workers.parse_worker import init_worker\n"
        "from bitext_spider.workers.channel import WorkerChannel\n"
        "async def pid(worker):\n"
        "    return await worker.call(os.getpid)\n"
        "if __name__ == '__main__':\n"
        "    worker = WorkerChannel('bitext-parse', init_worker, (ParseOptions(),))\n"
        "    print(asyncio.run(pid(worker)), flush=True)\n"
        "    time.sleep(120)\n"
    )
    path = tmp_path / "crawl_like.py"
    path.write_text(script)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.Popen([sys.executable, str(path)], cwd=root, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": root})
    try:
        worker = int(proc.stdout.readline())
        assert not _gone(worker)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 15
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _gone(worker)
    finally:
        proc.kill()


def test_a_page_that_keeps_the_worker_too_long_is_dropped_and_the_worker_replaced(tmp_path):
    # 10 ms is less than a new worker needs to import its parsers: the first page cannot make it.
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 't.db'}",
                                       "BITEXT_PARSE_TIMEOUT": 0.01})
    crawler.stats.open_spider()
    stage = PageParsePipeline.from_crawler(crawler)
    url, body, ctype = PAGES[1]

    async def go() -> list[int]:
        stage.open_spider()
        pids = stage.runtime.page_parser.worker_pids()
        with pytest.raises(DropItem, match="BITEXT_PARSE_TIMEOUT"):
            await stage.process_item(PageItem(url=url, site=SITE.key, body=body, content_type=ctype))
        return pids

    try:
        pids = asyncio.run(go())
    finally:
        stage.close_spider()
    assert stage.runtime.page_parser.worker_pids() == []
    assert crawler.stats.get_value("bitext/pages/dropped/parse_timeout") == 1
    assert crawler.stats.get_value("bitext/errors/parse_worker") == 1
    for pid in pids:  # killed, not left running the stuck page
        deadline = time.monotonic() + 10
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(pid)


def test_page_language_is_read_from_the_content_not_from_a_long_menu_or_code():
    # A documentation page: a long English menu first, an English console listing, a short
    # German article.  Its first 1,500 characters are all menu.
    menu = "".join(f"<li><a href='/de/{w}/'>{w.replace('-', ' ')}</a></li>"
                   for w in ["getting-started", "first-steps", "path-parameters", "query-parameters",
                             "request-body", "dependencies", "security", "middleware", "background-tasks",
                             "testing", "debugging", "deployment", "settings", "templates"] * 8)
    page = (
        "<html><head><title>Erste Schritte</title></head><body>"
        f"<header><a href='/de/'>Docs</a></header><nav><ul>{menu}</ul></nav><main>"
        "<h1>Erste Schritte</h1>"
        "<pre>$ uv run server dev\nStarting development server, watching for changes in these directories\n"
        "Application startup complete. Uvicorn running on the local address, press CTRL+C to quit</pre>"
        "<p>Die einfachste Datei könnte so aussehen. Kopieren Sie sie in eine Datei und starten Sie den "
        "Server, dann öffnen Sie die Seite im Browser und sehen die Antwort.</p>"
        "<p>Die interaktive Dokumentation zeigt alle Pfade der Anwendung mit ihren Parametern.</p>"
        "</main><footer>Built with love</footer></body></html>"
    )
    lid = LanguageIdentifier()
    parsed = parse_page(page.encode(), "text/html", "http://s.test/de/first-steps/", ParseOptions(), lid)
    assert parsed.lang == "de"
    # Read from its first characters, as a whole, the page looks English.
    assert lid.identify(parsed.features.text)[0] == "en"
    assert sum(parsed.features.block_chrome) > 100
