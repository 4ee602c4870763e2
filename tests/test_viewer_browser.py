"""The viewer in a real browser (Playwright driving the system's Chromium) on the database of a
crawl of the W3C Internationalization site (``../shared/data/w3c-i18n``, served on a free loopback
port), and the crawl's ``crawl_runs`` row.

Chromium is Debian's (/usr/bin/chromium; .ci/run installs it): Playwright's own browser download
is not used.  The viewer runs as ``bitext view --annotate`` on a free loopback port.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_shared
from support import ROOT, scrapy_crawl

from bitext_spider.demo.loopback_server import free_port

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _bitext(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def crawl_db(tmp_path_factory) -> Path:
    """The database of a default crawl of the W3C site, served on a free port (its pages link
    relatively, so only the site's hosts, seeds and gold name the port)."""
    source = require_shared("data/w3c-i18n")
    work = tmp_path_factory.mktemp("w3c")
    site = work / "site"
    site.mkdir()
    (site / "www").symlink_to(source / "www", target_is_directory=True)
    old = source.joinpath("hosts.tsv").read_text().split("\t")[1].strip()
    new = f"http://127.0.0.1:{free_port()}"
    for name in ("hosts.tsv", "seeds.txt", "gold.tsv"):
        (site / name).write_text(source.joinpath(name).read_text(encoding="utf-8").replace(old, new), "utf-8")
    server = subprocess.Popen([sys.executable, str(source.parents[1] / "bench" / "serve.py"), str(site),
                               "--for", "900"], stdout=subprocess.DEVNULL)
    try:
        db = work / "w3c.db"
        proc = scrapy_crawl(site / "seeds.txt", f"sqlite:///{db}", timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
    finally:
        server.terminate()
        server.wait()
    return db


def _query(db: Path, sql: str, *params) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


def test_a_crawl_records_its_run(crawl_db):
    rows = _query(crawl_db, "SELECT spider, started_at, finished_at, settings, stats FROM crawl_runs")
    assert len(rows) == 1
    import json

    spider, started, finished, settings, stats = rows[0]
    settings, stats = json.loads(settings), json.loads(stats)
    assert spider == "site" and finished > started
    assert settings["BITEXT_DB_URL"] == f"sqlite:///{crawl_db}"
    assert "DEPTH_LIMIT" in settings and "ROBOTSTXT_OBEY" in settings
    pages = _query(crawl_db, "SELECT count(*) FROM pages")[0][0]
    assert stats["bitext/pages"] == pages


@pytest.fixture(scope="module")
def viewer(crawl_db, tmp_path_factory):
    """``bitext view --annotate`` on a copy of the crawl's database; yields (base URL, database)."""
    if not CHROMIUM.exists():
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)", pytrace=False)
    db = tmp_path_factory.mktemp("view") / "view.db"
    shutil.copy(crawl_db, db)
    proc = subprocess.Popen([sys.executable, "-m", "bitext_spider.commands.cli", "view", "--db", str(db),
                             "--port", "0", "--annotate"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    assert m, line
    yield m.group(1), db
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page whose console messages and page errors are collected."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    p = context.new_page()
    p.messages = []
    p.on("console", lambda msg: p.messages.append(f"console {msg.type}: {msg.text}"))
    p.on("pageerror", lambda exc: p.messages.append(f"page error: {exc}"))
    yield p
    context.close()


def _open(page, url: str) -> None:
    response = page.goto(url, wait_until="networkidle")
    assert response is not None and response.status == 200, url
    assert page.messages == [], url


def test_every_page_opens_without_errors(viewer, page):
    base, db = viewer
    a, b = _query(db, "SELECT page1_id, page2_id FROM pairs ORDER BY score DESC LIMIT 1")[0]
    for path in ("", "pairs", "pairs?status=all&sort=score_asc", "plots", "corrections", f"pair/{a}/{b}",
                 f"page/{a}"):
        _open(page, base + path)
    _open(page, base)
    assert page.locator(".card .n").first.inner_text() == "1"
    assert page.locator("svg.timeline polyline").count() == 2
    assert page.locator("div.run").count() == 1


def test_the_plots_show_the_crawls_data(viewer, page):
    base, db = viewer
    _open(page, base + "plots")
    keys = page.locator("svg[id^=plot-]").evaluate_all("els => els.map(e => e.id)")
    assert keys == ["plot-score-distributions", "plot-structure-threshold", "plot-image-frequencies",
                    "plot-learning-curve", "plot-pairs-vs-pages"]
    # Every plot drew data: no "no data" figure, and drawn marks in each.
    assert page.locator("svg[id^=plot-] [id$=no-data]").count() == 0
    marks = {"score-distributions": "structure-accepted", "structure-threshold": "pair0-s", "image-frequencies": "kde",
             "learning-curve": "curve0-line", "pairs-vs-pages": "pairs"}
    for key, mark in marks.items():
        assert page.locator(f"#plot-{key} [id^={key}-{'site0-' if key == 'image-frequencies' else ''}{mark}]").count() > 0, key
    # The growth plot ends at the crawl's pages and final pairs.
    pages, pairs = (_query(db, f"SELECT count(*) FROM {t}")[0][0] for t in ("pages", "pairs"))
    assert f"{pairs:,} pairs after {pages:,} pages" in page.locator("#plot-pairs-vs-pages").text_content()


def test_the_pairs_page_lists_what_export_pairs_prints(viewer, page):
    base, db = viewer
    proc = _bitext("export", "pairs", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    exported = [line.split("\t") for line in proc.stdout.splitlines()[1:]]
    _open(page, base + "pairs?limit=200")
    assert int(page.locator("#total").inner_text().replace(",", "")) == len(exported)
    shown = [row.locator("td.url a").all_inner_texts() for row in page.locator("table.pairs tbody tr").all()]
    assert shown == [[row[1], row[3]] for row in exported[:200]]


def test_filters(viewer, page):
    base, db = viewer
    _open(page, base + "pairs")
    total = _query(db, "SELECT count(*) FROM pairs")[0][0]
    assert int(page.locator("#total").inner_text().replace(",", "")) == total
    page.select_option("select[name=langs]", "en-fr")
    page.click("form.filters button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert "langs=en-fr" in page.url
    en_fr = _query(db, "SELECT count(*) FROM pairs WHERE lang1 || lang2 IN ('enfr', 'fren')")[0][0]
    assert en_fr > 0 and int(page.locator("#total").inner_text()) == en_fr
    langs = set(page.locator("table.pairs td .lang").all_inner_texts())
    assert langs == {"en", "fr"}
    page.select_option("select[name=status]", "all")
    page.fill("input[name=min]", "0.5")
    page.click("form.filters button[type=submit]")
    page.wait_for_load_state("networkidle")
    scores = [float(s) for s in page.locator("table.pairs td.num").all_inner_texts()]
    assert scores and min(scores) >= 0.5
    assert page.messages == []


def test_a_pair_shows_its_sentences_and_evidence(viewer, page):
    base, db = viewer
    _open(page, base + "pairs")
    page.locator("a.open").first.click()
    page.wait_for_load_state("networkidle")
    a, b = (int(x) for x in re.search(r"/pair/(\d+)/(\d+)$", page.url).groups())
    n = _query(db, "SELECT count(*) FROM sentences WHERE page1_id = ? AND page2_id = ?", a, b)[0][0]
    assert n > 0
    assert page.locator("table.sentences tbody tr").count() == n
    assert page.locator(".side a.sent").count() > 0  # marked in the pages' text
    assert page.locator("table.evidence td.key").count() > 0
    assert "score" in page.locator("table.decision").inner_text()
    assert "Final pair: yes" in page.inner_text("main")
    # Hovering a marked sentence lights up its row.
    page.locator(".side a.sent").first.hover()
    assert page.locator("table.sentences tr.hot").count() == 1
    assert page.messages == []


def test_corrections_reach_the_gold_file(viewer, page, tmp_path):
    base, db = viewer
    pairs = _query(db, "SELECT p.page1_id, p.page2_id, a.url, b.url FROM pairs p JOIN pages a ON a.id = p.page1_id "
                       "JOIN pages b ON b.id = p.page2_id ORDER BY p.score DESC LIMIT 2")
    (a1, b1, right1, right2), (a2, b2, _w1, _w2) = pairs
    _open(page, base + f"pair/{a1}/{b1}")
    page.click("button.right")
    page.wait_for_load_state("networkidle")
    assert page.locator(".verdict .badge.v-right").count() == 1
    _open(page, base + f"pair/{a2}/{b2}")
    page.click("button.wrong")
    page.wait_for_load_state("networkidle")
    assert page.locator(".verdict .badge.v-wrong").count() == 1
    # A missed pair, from a page's own form: two stored pages of different languages, not paired.
    x, ux, y, uy = _query(db, "SELECT a.id, a.url, b.id, b.url FROM pages a, pages b WHERE a.lang = 'en' AND "
                              "b.lang = 'de' AND NOT EXISTS (SELECT 1 FROM pairs p WHERE p.page1_id IN (a.id, b.id) "
                              "AND p.page2_id IN (a.id, b.id)) LIMIT 1")[0]
    _open(page, base + f"page/{x}")
    page.fill("form.missed input[name=url2]", uy)
    page.click("form.missed button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("/corrections")
    assert page.locator("table.data .badge").all_inner_texts() == ["missed", "wrong", "right"]
    assert page.messages == []
    gold = tmp_path / "gold.tsv"
    proc = _bitext("export", "gold", "--db", str(db), "-o", str(gold))
    assert proc.returncode == 0, proc.stderr
    assert "2 gold pairs exported" in proc.stderr
    lines = gold.read_text().splitlines()
    lang = dict(_query(db, "SELECT url, lang FROM pages WHERE url IN (?, ?, ?, ?)", right1, right2, ux, uy))
    assert lines == ["lang1\turl1\tlang2\turl2", f"{lang[right1]}\t{right1}\t{lang[right2]}\t{right2}",
                     f"en\t{ux}\tde\t{uy}"]
    # The corrections measure the crawl: the pair marked right is found, the missed one is not.
    proc = _bitext("eval", "--db", str(db), "--gold", str(gold), "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    scores = json.loads(proc.stdout)
    assert (scores["gold"], scores["tp"], scores["recall"]) == (2, 1, 0.5)
