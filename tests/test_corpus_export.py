"""``bitext export sentences``: dedup, final pairs only, TSV / JSONL / TMX / Moses."""

import json

import pytest
from lxml import etree
from support import XML_LANG, build_db

from bitext_spider.commands.cli import main as bitext_main
from bitext_spider.store.corpus_export import clean_text, validate_tmx


@pytest.fixture
def db(tmp_path):
    return build_db(tmp_path / "c.db")


def _tsv(capsys, *args):
    capsys.readouterr()
    assert bitext_main(["export", "sentences", *args]) == 0
    captured = capsys.readouterr()
    return [line.split("\t") for line in captured.out.splitlines()], captured.err


def test_clean_text_drops_xml_invalid_characters_and_collapses_whitespace():
    assert clean_text(" a\x01b\x0bc\x1fd\n\te\u2028f\ufffe ") == "ab c d e f"


def test_tsv_dedups_across_pages_and_keeps_every_url_pair(db, capsys):
    rows, err = _tsv(capsys, "--db", db)
    assert rows[0] == ["lang1", "lang2", "text1", "text2", "score", "url1", "url2"]
    assert rows[1:] == [
        ["de", "en", "Hallo Welt.", "Hello world.", "0.8", "http://a/de1", "http://a/en1"],
        ["en", "fr", "Hello world.", "Bonjour le monde.", "0.7",
         "http://a/en1 http://a/en4", "http://a/fr1 http://a/fr4"],
        ["en", "fr", "Good bye", "Au revoir", "0.6", "http://a/en1", "http://a/fr1"],
        ["en", "fr", "Ctrl char here", "Contr\u00f4le ici", "0.3", "http://a/en1", "http://a/fr1"],
        ["en", "fr", "Only here", "Seulement ici", "0.4", "http://a/en2", "http://a/fr2"],
    ]
    assert "5 sentence pairs exported" in err


def test_sentences_of_candidates_that_are_not_final_pairs_are_left_out(db, capsys):
    rows, _ = _tsv(capsys, "--db", db)
    assert not any("Not final" in row for row in rows)


def test_min_score_applies_before_dedup(db, capsys):
    rows, _ = _tsv(capsys, "--db", db, "--min-score", "0.55")
    hello = [r for r in rows if r[2] == "Hello world."]
    assert hello == [["en", "fr", "Hello world.", "Bonjour le monde.", "0.7", "http://a/en4", "http://a/fr4"]]
    # Hello world.'s first occurrence is now on (8, 9), after (1, 2)'s Good bye
    assert [r[2] for r in rows[1:]] == ["Hallo Welt.", "Good bye", "Hello world."]


def test_jsonl(db, tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(rows) == 5
    assert rows[1]["sources"] == [["http://a/en1", "http://a/fr1"], ["http://a/en4", "http://a/fr4"]]


def test_tmx_is_valid_and_complete(db, tmp_path, capsys):
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    assert validate_tmx(out) == []
    assert validate_tmx(out.read_bytes()) == []
    root = etree.parse(str(out)).getroot()
    assert root.tag == "tmx" and root.get("version") == "1.4"
    header = root.find("header")
    assert header.get("creationtool") == "bitext-spider" and header.get("srclang") == "*all*"
    tus = root.findall("body/tu")
    assert len(tus) == 5
    langs = [[tuv.get(XML_LANG) for tuv in tu.findall("tuv")] for tu in tus]
    assert langs == [["de", "en"]] + [["en", "fr"]] * 4
    hello = tus[1]
    assert hello.findtext("prop[@type='score-aligner']") == "0.7"
    en, fr = hello.findall("tuv")
    assert [p.text for p in en.findall("prop[@type='source-document']")] == ["http://a/en1", "http://a/en4"]
    assert [p.text for p in fr.findall("prop[@type='source-document']")] == ["http://a/fr1", "http://a/fr4"]
    assert en.findtext("seg") == "Hello world." and fr.findtext("seg") == "Bonjour le monde."
    assert [tuv.findtext("seg") for tuv in tus[3].findall("tuv")] == ["Ctrl char here", "Contr\u00f4le ici"]


def test_tmx_to_stdout_and_empty_corpus(tmp_path, capsys):
    db = build_db(tmp_path / "empty.db", sentences={})
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx"]) == 0
    out = capsys.readouterr().out.encode("utf-8")
    assert validate_tmx(out) == []
    assert etree.fromstring(out).findall("body/tu") == []


def test_validate_tmx_reports_errors():
    missing_header_attr = (b'<tmx version="1.4"><header creationtool="x"/><body>'
                           b'<tu><tuv xml:lang="en"><seg>a</seg></tuv></tu></body></tmx>')
    errors = validate_tmx(missing_header_attr)
    assert errors and any("segtype" in e for e in errors)
    assert validate_tmx(b'<tmx version="1.4"><body/></tmx>')  # no header
    assert validate_tmx(b"<tmx") and validate_tmx(b"<tmx")[0].startswith("not well-formed")


def test_moses_files_are_line_aligned(db, tmp_path, capsys):
    prefix = tmp_path / "corpus"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "moses", "-o", str(prefix)]) == 0
    printed = capsys.readouterr().out.split()
    names = ["corpus.de-en.de", "corpus.de-en.en", "corpus.en-fr.en", "corpus.en-fr.fr"]
    assert printed == [str(tmp_path / n) for n in names]
    read = {n: (tmp_path / n).read_text("utf-8").split("\n") for n in names}
    assert read["corpus.de-en.de"] == ["Hallo Welt.", ""] and read["corpus.de-en.en"] == ["Hello world.", ""]
    assert read["corpus.en-fr.en"] == ["Hello world.", "Good bye", "Ctrl char here", "Only here", ""]
    assert read["corpus.en-fr.fr"] == [
        "Bonjour le monde.", "Au revoir", "Contr\u00f4le ici", "Seulement ici", ""]


def test_export_sentences_errors(db, tmp_path, capsys):
    capsys.readouterr()
    assert bitext_main(["export", "sentences", "--db", db, "--format", "moses"]) == 2
    assert "-o PREFIX" in capsys.readouterr().err
    assert bitext_main(["export", "pairs", "--db", db, "--format", "tmx"]) == 2
    assert "only for sentences" in capsys.readouterr().err
    assert bitext_main(["export", "sentences", "--db", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert "no database" in err and len(err.splitlines()) == 1
    (tmp_path / "a-file").write_text("")
    bad_prefix = tmp_path / "a-file" / "c"  # a directory cannot be made under a file
    assert bitext_main(["export", "sentences", "--db", db, "--format", "moses", "-o", str(bad_prefix)]) == 2
    assert "cannot write" in capsys.readouterr().err
    # A subtag joined by "-" would make the split ambiguous (Portuguese-English or Portuguese-Breton).
    for langs in ("english", "pt-br-en", "en-en", "en-EN_gb"):
        assert bitext_main(["export", "sentences", "--db", db, "--langs", langs]) == 2, langs
        assert "language pair" in capsys.readouterr().err
    assert bitext_main(["export", "pairs", "--db", db, "--langs", "en-fr"]) == 2
    assert "only for sentences" in capsys.readouterr().err


def test_tmx_stays_valid_with_cdata_ends_and_markup_in_the_text(tmp_path):
    sentences = {(1, 2): [("Close a section with ]]> and <b>bold</b> & more.", "Fermez avec ]]> et <b>gras</b> & co.",
                           0.9)]}
    db = build_db(tmp_path / "c.db", pairs=[(1, 2, 0.9)], sentences=sentences)
    out = tmp_path / "c.tmx"
    assert bitext_main(["export", "sentences", "--db", db, "--format", "tmx", "-o", str(out)]) == 0
    assert validate_tmx(out) == []
    segs = [tuv.findtext("seg") for tuv in etree.parse(str(out)).getroot().findall("body/tu/tuv")]
    assert segs == ["Close a section with ]]> and <b>bold</b> & more.", "Fermez avec ]]> et <b>gras</b> & co."]
