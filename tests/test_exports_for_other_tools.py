"""Exports other corpus tools read: Bitextor's sentence columns (read by bifixer), TMX 1.4b as the
standard requires, gzip for every format, Moses files in new directories, a closed pipe."""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from support import XML_LANG, build_db

from bitext_spider.commands.cli import main as bitext_main
from bitext_spider.store.corpus_export import validate_tmx

ROOT = Path(__file__).resolve().parents[1]
# TMX 1.4b, section 3: the attributes every <header> must carry.
TMX_HEADER_REQUIRED = ("creationtool", "creationtoolversion", "segtype", "o-tmf", "adminlang", "srclang", "datatype")


def test_bitextor_columns_one_row_per_source_oriented_by_langs(tmp_path, capsys):
    db = build_db(tmp_path / "c.db")
    capsys.readouterr()
    assert bitext_main(["export", "sentences", "--db", db, "--format", "bitextor", "--langs", "fr-en"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert all(len(r) == 5 for r in rows)
    # French first, as asked; the pair found on two page pairs is written once per source, each
    # row with the aligner's score on its own page pair.
    hello = [r for r in rows if r[2] == "Bonjour le monde."]
    assert hello == [["http://a/fr1", "http://a/en1", "Bonjour le monde.", "Hello world.", "0.5"],
                     ["http://a/fr4", "http://a/en4", "Bonjour le monde.", "Hello world.", "0.7"]]
    assert {r[0].rsplit("/", 1)[1][:2] for r in rows} == {"fr"}  # no de-en row
    assert bitext_main(["export", "sentences", "--db", db, "--format", "bitextor", "--langs", "de-en"]) == 0
    assert capsys.readouterr().out.splitlines() == ["http://a/de1\thttp://a/en1\tHallo Welt.\tHello world.\t0.8"]


def test_langs_selects_and_orients_every_sentence_format(tmp_path, capsys):
    db = build_db(tmp_path / "c.db")
    french = ["Bonjour le monde.", "Au revoir", "Contr\u00f4le ici", "Seulement ici"]
    english = ["Hello world.", "Good bye", "Ctrl char here", "Only here"]

    def export(fmt: str, langs: str) -> Path:
        out = tmp_path / langs / f"s.{fmt}"
        assert bitext_main(["export", "sentences", "--db", db, "--format", fmt, "--langs", langs, "-o", str(out)]) == 0
        return out

    tsv = [r.split("\t") for r in export("tsv", "fr-en").read_text("utf-8").splitlines()]
    assert tsv[0] == ["lang1", "lang2", "text1", "text2", "score", "url1", "url2"]
    assert [(r[0], r[1]) for r in tsv[1:]] == [("fr", "en")] * 4
    assert [r[2] for r in tsv[1:]] == french and [r[3] for r in tsv[1:]] == english
    assert tsv[1][5:] == ["http://a/fr1 http://a/fr4", "http://a/en1 http://a/en4"]
    # A region subtag selects by base language.
    assert export("tsv", "fr_FR-en").read_bytes() == (tmp_path / "fr-en" / "s.tsv").read_bytes()
    jsonl = [json.loads(r) for r in export("jsonl", "fr-en").read_text("utf-8").splitlines()]
    assert [(r["lang1"], r["text1"], r["text2"]) for r in jsonl] == [("fr", f, e) for f, e in zip(french, english, strict=True)]
    assert jsonl[0]["sources"] == [["http://a/fr1", "http://a/en1"], ["http://a/fr4", "http://a/en4"]]
    tmx = export("tmx", "fr-en")
    assert validate_tmx(tmx) == [] and tmx_problems(tmx.read_bytes()) == []
    tus = etree.parse(str(tmx)).getroot().findall("body/tu")
    assert [[(v.get(XML_LANG), v.findtext("seg")) for v in tu.findall("tuv")] for tu in tus] == [
        [("fr", f), ("en", e)] for f, e in zip(french, english, strict=True)]
    assert [p.text for p in tus[0].findall("tuv")[0].findall("prop[@type='source-document']")] == [
        "http://a/fr1", "http://a/fr4"]
    moses = export("moses", "fr-en")
    assert sorted(f.name for f in moses.parent.glob("s.moses*")) == ["s.moses.fr-en.en", "s.moses.fr-en.fr"]
    assert (moses.parent / "s.moses.fr-en.fr").read_text("utf-8").splitlines() == french
    assert (moses.parent / "s.moses.fr-en.en").read_text("utf-8").splitlines() == english
    assert export("tsv", "en-de").read_text("utf-8").splitlines()[1:] == [
        "en\tde\tHello world.\tHallo Welt.\t0.8\thttp://a/en1\thttp://a/de1"]


def test_bifixer_reads_the_bitextor_export(tmp_path):
    db = build_db(tmp_path / "c.db")
    corpus, fixed = tmp_path / "en-fr.sent", tmp_path / "en-fr.fixed"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "bitextor", "--langs", "en-fr",
                        "-o", str(corpus)]) == 0
    proc = subprocess.run(
        [sys.executable, "-m", "bifixer.bifixer", str(corpus), str(fixed), "en", "fr", "--scol", "3", "--tcol", "4",
         "--ignore_segmentation", "-q"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    original = [line.split("\t") for line in corpus.read_text(encoding="utf-8").splitlines()]
    out = [line.split("\t") for line in fixed.read_text(encoding="utf-8").splitlines()]
    # bifixer keeps the columns and appends its hash and rank columns to each row it keeps.
    assert len(out) == len(original) == 5
    assert [r[:5] for r in out] == original
    assert all(len(r) == 7 and len(r[5]) == 16 for r in out)
    # The same sentence pair from two pages has one hash: bifixer's deduplication works on it.
    hello = [r for r in out if r[2] == "Hello world."]
    assert len(hello) == 2 and hello[0][5] == hello[1][5]


def tmx_problems(tmx: bytes) -> list[str]:
    """What a TMX document lacks: the header attributes TMX 1.4b requires, and on each unit the
    aligner's score and, on each variant, the source documents (one per source, the same number on
    both variants), a language and a segment."""
    root = etree.fromstring(tmx)
    problems = [] if root.get("version") == "1.4" else [f"tmx version {root.get('version')!r}"]
    header = root.find("header")
    if header is None:
        return problems + ["no header"]
    problems += [f"header without {a}" for a in TMX_HEADER_REQUIRED if not header.get(a)]
    tus = root.findall("body/tu")
    if not tus:
        problems.append("no unit")
    for i, tu in enumerate(tus, 1):
        scores = [p.text for p in tu.findall("prop[@type='score-aligner']")]
        if len(scores) != 1 or not scores[0] or not 0 <= float(scores[0]) <= 1:
            problems.append(f"tu {i}: score-aligner props {scores}")
        tuvs = tu.findall("tuv")
        if len(tuvs) != 2:
            problems.append(f"tu {i}: {len(tuvs)} variants")
        urls = [[p.text for p in tuv.findall("prop[@type='source-document']")] for tuv in tuvs]
        if not all(urls) or len({len(u) for u in urls}) != 1 or not all(all(u) for u in urls):
            problems.append(f"tu {i}: source-document props {urls}")
        if not all(tuv.get(XML_LANG) and tuv.findtext("seg") for tuv in tuvs):
            problems.append(f"tu {i}: a variant without xml:lang or segment")
    return problems


def test_tmx_follows_tmx_14b(tmp_path):
    db = build_db(tmp_path / "c.db")
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    assert validate_tmx(out) == []
    assert tmx_problems(out.read_bytes()) == []
    header = etree.parse(str(out)).getroot().find("header")
    assert header.get("segtype") == "sentence" and header.get("datatype") == "plaintext"
    assert header.get("srclang") == "*all*" and header.get("adminlang") == "en"
    # The units carry the pages of their own sources, in the order of the variants' languages.
    for tu in etree.parse(str(out)).getroot().findall("body/tu"):
        for tuv in tu.findall("tuv"):
            lang = tuv.get(XML_LANG)
            assert all(p.text.startswith(f"http://a/{lang}") for p in tuv.findall("prop[@type='source-document']"))


def _drop(tmx: bytes, xpath: str, attribute: str | None = None, first_only: bool = False) -> bytes:
    root = etree.fromstring(tmx)
    found = root.xpath(xpath)
    assert found, xpath
    for el in found[:1] if first_only else found:
        if attribute:
            del el.attrib[attribute]
        else:
            el.getparent().remove(el)
    return etree.tostring(root, encoding="utf-8", xml_declaration=True)


def test_the_tmx_check_fails_on_a_tmx_without_the_header_attributes_or_props(tmp_path):
    db = build_db(tmp_path / "c.db")
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    tmx = out.read_bytes()
    assert tmx_problems(tmx) == []
    for attribute in TMX_HEADER_REQUIRED:
        broken = _drop(tmx, "/tmx/header", attribute)
        assert tmx_problems(broken) == [f"header without {attribute}"]
        assert validate_tmx(broken) != [], attribute  # the bundled DTD requires it too
    no_score = _drop(tmx, "//tu/prop[@type='score-aligner']", first_only=True)
    assert [p.split(":")[0] for p in tmx_problems(no_score)] == ["tu 1"]
    no_urls = _drop(tmx, "//tu/tuv/prop[@type='source-document']")
    assert len(tmx_problems(no_urls)) == 5
    # The pair from two page pairs lists both on each variant; one URL less is an unmatched list.
    one_url_less = _drop(tmx, "//tu[2]/tuv[1]/prop[@type='source-document'][2]")
    assert [p.split(":")[0] for p in tmx_problems(one_url_less)] == ["tu 2"]
    for broken in (no_score, no_urls, one_url_less):
        assert validate_tmx(broken) == []  # TMX allows units without props: only the check sees it


def _keys_db(path: Path) -> str:
    """Eligible pages under /en/ and /fr/: one URL pairing key."""
    pages = {i + 1: (f"http://a/{lang}/doc{i // 2}.html", lang) for i, lang in enumerate(["en", "fr"] * 6)}
    db = build_db(path, pages=pages, pairs=[], sentences={})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE pages SET eligible = 1")
    return db


def test_every_format_is_gzipped_when_the_name_ends_in_gz(tmp_path):
    db, keys_db = build_db(tmp_path / "c.db"), _keys_db(tmp_path / "k.db")
    for what, fmt in (("pairs", "tsv"), ("pairs", "jsonl"), ("candidates", "tsv"), ("candidates", "jsonl"),
                      ("pages", "tsv"), ("pages", "jsonl"), ("keys", "tsv"), ("keys", "jsonl"),
                      ("sentences", "tsv"), ("sentences", "jsonl"), ("sentences", "bitextor"),
                      ("sentences", "tmx")):
        plain, packed = tmp_path / f"{what}.{fmt}", tmp_path / "new" / "dir" / f"{what}.{fmt}.gz"
        source = keys_db if what == "keys" else db
        assert bitext_main(["export", what, "--db", source, "--format", fmt, "-o", str(plain)]) == 0
        assert bitext_main(["export", what, "--db", source, "--format", fmt, "-o", str(packed)]) == 0
        assert packed.read_bytes()[:2] == b"\x1f\x8b"
        assert plain.read_bytes() and gzip.decompress(packed.read_bytes()) == plain.read_bytes(), (what, fmt)
    assert validate_tmx(gzip.decompress((tmp_path / "new" / "dir" / "sentences.tmx.gz").read_bytes())) == []


def test_moses_creates_its_directory_and_gzips(tmp_path, capsys):
    db = build_db(tmp_path / "c.db")
    prefix = tmp_path / "out" / "corpus" / "c"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "moses", "-o", str(prefix)]) == 0
    en = (tmp_path / "out" / "corpus" / "c.en-fr.en").read_text(encoding="utf-8").splitlines()
    fr = (tmp_path / "out" / "corpus" / "c.en-fr.fr").read_text(encoding="utf-8").splitlines()
    assert len(en) == len(fr) == 4 and en[0] == "Hello world." and fr[0] == "Bonjour le monde."
    assert bitext_main(["export", "sentences", "--db", db, "--format", "moses", "-o", str(prefix) + ".gz"]) == 0
    packed = tmp_path / "out" / "corpus" / "c.en-fr.en.gz"
    assert gzip.decompress(packed.read_bytes()).decode("utf-8").splitlines() == en


@pytest.fixture(scope="module")
def big_db(tmp_path_factory) -> str:
    """Far more output than a pipe's buffer holds (64 KiB), so the export is still writing when
    the reader goes away."""
    pages = {i: (f"http://a/{'en' if i % 2 else 'fr'}{i}", "en" if i % 2 else "fr") for i in range(1, 2001)}
    pairs = [(i, i + 1, 0.9) for i in range(1, 2001, 2)]
    sentences = {(i, i + 1): [(f"Sentence {j} of page {i}.", f"Phrase {j} de la page {i}.", 0.5) for j in range(5)]
                 for i in range(1, 2001, 2)}
    return build_db(tmp_path_factory.mktemp("pipe") / "big.db", pages=pages, pairs=pairs, sentences=sentences)


@pytest.mark.parametrize(("what", "fmt", "first_line"), [
    ("pages", "tsv", "url\tlang\t"),
    ("sentences", "bitextor", "http://a/en1\thttp://a/fr2\tSentence 0 of page 1.\tPhrase 0 de la page 1.\t0.5"),
    ("sentences", "tmx", "<?xml version='1.0' encoding='utf-8'?>"),
])
def test_a_closed_pipe_ends_the_export_quietly(big_db, what, fmt, first_line):
    reader = "import sys; print(sys.stdin.readline(), end=''); sys.stdin.close()"
    export = subprocess.Popen(
        [sys.executable, "-m", "bitext_spider.commands.cli", "export", what, "--db", big_db, "--format", fmt],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.run([sys.executable, "-c", reader], stdin=export.stdout, capture_output=True, text=True,
                          timeout=60)
    export.stdout.close()
    err = export.stderr.read().decode()
    assert export.wait(timeout=60) == 0 and head.returncode == 0
    assert head.stdout.startswith(first_line)
    # No traceback, no "Exception ignored", and no "N exported" line: the export was cut short.
    assert err == ""
