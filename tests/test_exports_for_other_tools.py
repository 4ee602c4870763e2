"""Exports other corpus tools read: Bitextor's sentence columns (read by bifixer), TMX 1.4b as the
standard requires, gzip for every format, Moses files in new directories, a closed pipe."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

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


def test_tmx_follows_tmx_14b(tmp_path):
    db = build_db(tmp_path / "c.db")
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    assert validate_tmx(out) == []
    root = etree.parse(str(out)).getroot()
    assert root.get("version") == "1.4"
    header = root.find("header")
    missing = [a for a in TMX_HEADER_REQUIRED if not header.get(a)]
    assert missing == []
    assert header.get("segtype") == "sentence" and header.get("datatype") == "plaintext"
    for tu in root.findall("body/tu"):
        # The aligner's score on the unit, and every variant names the documents it comes from.
        assert float(tu.findtext("prop[@type='score-aligner']")) > 0
        tuvs = tu.findall("tuv")
        assert len(tuvs) == 2 and all(t.get(XML_LANG) for t in tuvs)
        counts = {len(t.findall("prop[@type='source-document']")) for t in tuvs}
        assert len(counts) == 1 and counts.pop() >= 1
        assert all(t.findtext("seg") for t in tuvs)


def test_a_tmx_without_the_required_header_attributes_fails_the_check(tmp_path):
    db = build_db(tmp_path / "c.db")
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    broken = out.read_bytes().replace(b' o-tmf="bitext-spider"', b"")
    assert validate_tmx(broken) != []


def test_every_format_is_gzipped_when_the_name_ends_in_gz(tmp_path):
    db = build_db(tmp_path / "c.db")
    for what, fmt in (("pairs", "tsv"), ("pages", "jsonl"), ("sentences", "tsv"), ("sentences", "jsonl"),
                      ("sentences", "bitextor"), ("sentences", "tmx")):
        plain, packed = tmp_path / f"{what}.{fmt}", tmp_path / "new" / "dir" / f"{what}.{fmt}.gz"
        assert bitext_main(["export", what, "--db", db, "--format", fmt, "-o", str(plain)]) == 0
        assert bitext_main(["export", what, "--db", db, "--format", fmt, "-o", str(packed)]) == 0
        assert packed.read_bytes()[:2] == b"\x1f\x8b"
        assert gzip.decompress(packed.read_bytes()) == plain.read_bytes(), (what, fmt)
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


def test_a_closed_pipe_ends_the_export_quietly(tmp_path):
    pages = {i: (f"http://a/{lang}{i}", lang) for i in range(1, 4001) for lang in ("en" if i % 2 else "fr",)}
    db = build_db(tmp_path / "big.db", pages=pages, pairs=[], sentences={})
    reader = "import sys; sys.stdin.readline(); sys.stdin.close()"
    export = subprocess.Popen([sys.executable, "-m", "bitext_spider.commands.cli", "export", "pages", "--db", db],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.run([sys.executable, "-c", reader], stdin=export.stdout, timeout=60)
    export.stdout.close()
    err = export.stderr.read().decode()
    assert export.wait(timeout=60) == 0 and head.returncode == 0
    assert err == ""
