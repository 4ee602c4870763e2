"""End-to-end, content evidence: a site where part of one language's pages moved to another
template, so only their text can pair them; a dictionary filter crawl; sentence exports."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from lxml import etree
from support import ROOT, gold_of, pairs_of, scrapy_crawl, stat

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.store.corpus_export import validate_tmx
from bitext_spider.store.database import Store

# Crawls in subprocesses or against servers: the full tier only (pytest -m "not slow" skips them).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_templates(tmp_path_factory):
    root = tmp_path_factory.mktemp("retemplated")
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=40, langs=("en", "fr"), seed=11,
                         coverage=1.0, retemplated=0.3, extras=False)
    with serve_site(root, port=port):
        yield info


def moved_gold(info) -> set[frozenset[str]]:
    moved = set(info.retemplated)
    return {g for g in gold_of(info) if g & moved}


# The demo site's documents are short, so the model counts as trained sooner than the default.
CONTENT = ["-s", "BITEXT_CONTENT_MATURE_SENTENCES=150"]


@pytest.fixture(scope="module")
def content_crawl(two_templates, tmp_path_factory):
    db = f"sqlite:///{tmp_path_factory.mktemp('db') / 'content.db'}"
    proc = scrapy_crawl(two_templates.seeds_path, db, *CONTENT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return db, proc.stderr


def test_structure_alone_cannot_pair_the_other_template(two_templates, tmp_path):
    db = f"sqlite:///{tmp_path / 'structure.db'}"
    proc = scrapy_crawl(two_templates.seeds_path, db, "-s", "BITEXT_CONTENT_ENABLED=False")
    assert proc.returncode == 0, proc.stderr[-3000:]
    moved = moved_gold(two_templates)
    assert len(moved) >= 8
    found = pairs_of(db)
    assert not (found & moved)
    assert len(found & gold_of(two_templates)) >= 0.6 * len(gold_of(two_templates))  # the others it finds


def test_content_filter_pairs_the_other_template(two_templates, content_crawl):
    db, log = content_crawl
    found = pairs_of(db)
    gold = gold_of(two_templates)
    moved = moved_gold(two_templates)
    assert len(found & moved) >= 0.8 * len(moved), (len(found & moved), len(moved))
    assert len(found & gold) >= 0.9 * len(gold)
    assert len(found & gold) >= 0.9 * len(found)  # the hard negatives do not get in
    assert stat(log, "bitext/content/model_updates") > 0
    rescued = (stat(log, "bitext/content/rescued") or 0) + (stat(log, "bitext/content/rescued_at_close") or 0)
    assert rescued >= len(found & moved)


def test_model_state_is_stored_and_a_repeated_crawl_continues_from_it(two_templates, content_crawl, tmp_path):
    db, _ = content_crawl
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from bitext_spider.store.models import TranslationModelRow

    store = Store(db, create=False)
    with Session(store.engine) as s:
        rows = s.execute(select(TranslationModelRow)).scalars().all()
        before = {(r.lang1, r.lang2): r.sentences_seen for r in rows}
    store.close()
    assert before.get(("en", "fr"), 0) > 0
    # The same database again: every page is stored, so nothing is re-fetched or re-trained, and
    # the resolution and the sentences come out the same.
    pairs_before = pairs_of(db)
    proc = scrapy_crawl(two_templates.seeds_path, db, *CONTENT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "translation model en-fr: resumed" in proc.stderr
    assert pairs_of(db) == pairs_before


def test_sentence_exports(content_crawl, tmp_path):
    db, _ = content_crawl
    bitext = [sys.executable, "-m", "bitext_spider.commands.cli"]
    tsv = subprocess.run([*bitext, "export", "sentences", "--db", db], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout.splitlines()
    assert tsv[0] == "lang1\tlang2\ttext1\ttext2\tscore\turl1\turl2"
    rows = [line.split("\t") for line in tsv[1:]]
    assert len(rows) > 100
    assert all(r[0] == "en" and r[1] == "fr" and r[2] and r[3] for r in rows)
    tmx = tmp_path / "corpus.tmx"
    subprocess.run([*bitext, "export", "sentences", "--db", db, "--format", "tmx", "-o", str(tmx)], check=True,
                   cwd=ROOT)
    assert validate_tmx(tmx) == []
    assert len(etree.parse(str(tmx)).findall(".//tu")) == len(rows)
    prefix = tmp_path / "corpus"
    subprocess.run([*bitext, "export", "sentences", "--db", db, "--format", "moses", "-o", str(prefix)],
                   check=True, cwd=ROOT)
    en = (tmp_path / "corpus.en-fr.en").read_text(encoding="utf-8").splitlines()
    fr = (tmp_path / "corpus.en-fr.fr").read_text(encoding="utf-8").splitlines()
    assert len(en) == len(fr) == len(rows)


def test_eval_command_on_the_crawl(two_templates, content_crawl):
    db, _ = content_crawl
    out = subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "eval", "--db", db, "--gold",
                          str(two_templates.gold_path)], check=True, cwd=ROOT, capture_output=True, text=True).stdout
    assert "en-fr" in out


def write_dictionary(path, extra_lines=()) -> None:
    """An en-fr Bitextor dictionary from the demo lexicon's single-word entries."""
    from bitext_spider.demo.site import load_lexicon

    def bare(cell: str) -> str:
        # Noun cells carry their article and gender ("l'aéroport/m", "the airport").
        cell = re.sub(r"/[mfn]$", "", cell)
        return re.sub(r"^(the|le|la|les|l')\s*", "", cell, flags=re.I).strip().lower()

    lex = load_lexicon()
    en, fr = lex.langs.index("en"), lex.langs.index("fr")
    lines = ["en\tfr"]
    for row in lex.rows:
        a, b = bare(row[en]), bare(row[fr])
        if a and b and a != "-" and b != "-" and " " not in a and " " not in b:
            lines.append(f"{a}\t{b}")
    lines[3:3] = list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_dictionary_filter_crawl(two_templates, tmp_path):
    dic = tmp_path / "en-fr.dic"
    write_dictionary(dic, extra_lines=["only-one-field"])
    db = f"sqlite:///{tmp_path / 'dic.db'}"
    proc = scrapy_crawl(two_templates.seeds_path, db, *CONTENT, "-s", f"BITEXT_DICTIONARY={dic}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{dic}:4:" in proc.stderr  # the malformed line, reported with its number
    assert stat(proc.stderr, "bitext/dictionary/checked") > 0
    store = Store(db, create=False)
    scores = [r.scores for r in store.candidates()]
    store.close()
    assert scores and all("dictionary_en" in s and "dictionary_fr" in s for s in scores if "structure" in s)
    found, gold = pairs_of(db), gold_of(two_templates)
    assert len(found & gold) >= 0.8 * len(gold)
    assert len(found & gold) >= 0.95 * len(found)


def test_unusable_dictionary_stops_the_crawl_with_a_clear_message(two_templates, tmp_path):
    dic = tmp_path / "bad.dic"
    dic.write_text("just one column\nhouse\tmaison\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'bad.db'}"
    proc = scrapy_crawl(two_templates.seeds_path, db, "-s", f"BITEXT_DICTIONARY={dic}")
    assert proc.returncode != 0
    assert f"BITEXT_DICTIONARY: {dic}:1:" in proc.stderr


def test_explain_and_keys_commands(two_templates, content_crawl):
    db, log = content_crawl
    store = Store(db, create=False)
    pair = next(iter(store.pairs()))
    store.close()
    bitext = [sys.executable, "-m", "bitext_spider.commands.cli"]
    out = subprocess.run([*bitext, "explain", "--db", db, pair.url1, pair.url2], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout
    assert "evidence:" in out and "decision:" in out and "accepted" in out and "final pair: yes" in out
    missing = subprocess.run([*bitext, "explain", "--db", db, pair.url1, pair.url1 + "?nope"], cwd=ROOT,
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "not a stored page" in missing.stdout
    keys = subprocess.run([*bitext, "export", "keys", "--db", db], check=True, cwd=ROOT, capture_output=True,
                          text=True).stdout.splitlines()
    assert keys[0] == "site\tkey\tpower\tgeneralized\texample\tfield"
    assert stat(log, "bitext/decision/accepted") >= len(pairs_of(db))


def test_unsupervised_structure_thresholds_take_over_with_enough_candidates(two_templates, tmp_path):
    db = f"sqlite:///{tmp_path / 'alg1.db'}"
    proc = scrapy_crawl(two_templates.seeds_path, db, *CONTENT, "-s", "BITEXT_THRESHOLD_MIN_PAIRS=10")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1 language pairs with unsupervised structure thresholds" in proc.stderr
    store = Store(db, create=False)
    scored = [r.scores for r in store.candidates() if "l_d_threshold" in (r.scores or {})]
    store.close()
    assert scored and all(0 < s["l_d_threshold"] < 1 and abs(s["l_d"]) <= 1 for s in scored)
    found, gold = pairs_of(db), gold_of(two_templates)
    # Recall 0.85: two of the moved pages' pairs are usually missed, and in about one crawl in
    # twenty the arrival order costs two more, when a page arrives before its translation,
    # its best candidate (another page of a like template) trains the young model, and the pair
    # keeps the lead at close (measured over 250 crawls: 36 to 39 of the 41 pairs found).
    assert len(found & gold) >= 0.85 * len(gold) and len(found & gold) >= 0.9 * len(found)
