"""``bitext eval``: page-pair precision/recall as the shared scorer (bench/score.py), sentence scoring, errors."""

import json
import subprocess
import sys

import pytest
from sqlalchemy import insert

from bitext_spider.commands.cli import main as bitext_main
from bitext_spider.commands.evaluation import LinkedPair, score_pairs, score_sentences
from bitext_spider.store.models import PageRow, PairRow, SentenceRow, SiteRow, make_engine

URLS = ["en1", "fr1", "en2", "fr2", "en3", "fr3", "de1", "en5", "es5"]
# (url1, url2, score) of the final pairs; en1-fr2 breaks the one-to-one rule (en1 has a French partner)
PAIRS = [("en1", "fr1", 0.9), ("en2", "fr3", 0.8), ("en3", "fr2", 0.7), ("en1", "de1", 0.6),
         ("en5", "es5", 0.5), ("en1", "fr2", 0.4)]
SENTENCES = {
    ("en1", "fr1"): [("Hello world.", "Bonjour le monde."), ("Good  bye", "Au revoir"), ("Wrong", "Faux")],
    ("en1", "de1"): [("Hello world.", "Hallo Welt.")],
    ("en2", "fr2"): [("Extra", "Extra fr")],  # not a final pair
}
GOLD = """lang1\turl1\tlang2\turl2
en\thttp://a/en1\tfr\thttp://a/fr1
en\thttp://a/en2\tfr\thttp://a/fr2
fr\thttp://a/fr3\ten\thttp://a/en3
de\thttp://a/de1\ten\thttp://a/en1
en\thttp://a/en9\tfr\thttp://a/fr9
"""
GOLD_SENTENCES = """text1\ttext2
Bonjour   le monde.\tHello world.
Au revoir\tGood bye
Missing\tManquant
Extra\tExtra fr
"""


def _url(name):
    return f"http://a/{name}"


def _lang(name):
    return name[:2]


@pytest.fixture
def case(tmp_path):
    """(db url, gold path, gold sentences path) of the hand-made case."""
    engine = make_engine(f"sqlite:///{tmp_path / 'e.db'}")
    ids = {name: i for i, name in enumerate(URLS, 1)}

    def row(a, b, **extra):
        return dict(site_id=1, page1_id=ids[a], page2_id=ids[b], lang1=_lang(a), lang2=_lang(b), **extra)

    with engine.begin() as conn:
        conn.execute(insert(SiteRow.__table__), [dict(id=1, key="a", start_urls=[])])
        conn.execute(insert(PageRow.__table__),
                     [dict(id=i, site_id=1, url=_url(n), lang=_lang(n)) for n, i in ids.items()])
        conn.execute(insert(PairRow.__table__), [row(a, b, score=s) for a, b, s in PAIRS])
        conn.execute(insert(SentenceRow.__table__), [
            row(a, b, position=i, text1=t1, text2=t2, score=0.5)
            for (a, b), sents in SENTENCES.items() for i, (t1, t2) in enumerate(sents)
        ])
    engine.dispose()
    gold = tmp_path / "gold.tsv"
    gold.write_text(GOLD, "utf-8")
    gold_sentences = tmp_path / "gold-sentences.tsv"
    gold_sentences.write_text(GOLD_SENTENCES, "utf-8")
    return f"sqlite:///{tmp_path / 'e.db'}", gold, gold_sentences


def _eval_json(capsys, *args):
    capsys.readouterr()
    assert bitext_main(["eval", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_page_pairs_hand_made_case(case, capsys):
    db, gold, _ = case
    result = _eval_json(capsys, "--db", db, "--gold", str(gold))
    # en1-fr1 right; en2-fr3 and en3-fr2 wrong partners of gold pages; en1-fr2 dropped (one-to-one);
    # en5-es5 has no gold language pair; en9-fr9 never crawled but counted without --crawled
    assert result["pairs"]["en-fr"] == {
        "gold": 4, "tp": 1, "fp": 2, "precision": 1 / 3, "recall": 0.25, "f1": pytest.approx(2 / 7)}
    assert result["pairs"]["de-en"]["tp"] == 1 and result["pairs"]["de-en"]["fp"] == 0
    assert (result["tp"], result["fp"], result["gold"], result["other_fp"]) == (2, 3, 5, 1)
    assert result["precision"] == 0.4 and result["recall"] == 0.4

    crawled = _eval_json(capsys, "--db", db, "--gold", str(gold), "--crawled")
    assert crawled["pairs"]["en-fr"]["gold"] == 3 and crawled["gold"] == 4 and crawled["recall"] == 0.5

    en_fr = _eval_json(capsys, "--db", db, "--gold", str(gold), "--langs", "fr,en")
    assert list(en_fr["pairs"]) == ["en-fr"]
    assert (en_fr["tp"], en_fr["fp"], en_fr["gold"]) == (1, 2, 4)


def test_plain_report(case, capsys):
    db, gold, _ = case
    capsys.readouterr()
    assert bitext_main(["eval", "--db", db, "--gold", str(gold), "--crawled"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "de-en", "gold", "1", "tp", "1", "fp", "0", "P", "1.000", "R", "1.000", "F1", "1.000"]
    assert lines[1].startswith("en-fr") and "gold     3" in lines[1]
    assert lines[2].split() == ["(no", "gold)", "fp", "1"]
    assert lines[3] == "overall: P 0.400 R 0.500 F1 0.444 (tp 2, fp 3, gold 4)"


def test_sentence_scoring(case, capsys):
    db, gold, gold_sentences = case
    result = _eval_json(capsys, "--db", db, "--gold", str(gold), "--gold-sentences", str(gold_sentences))
    # predicted: Hello/Bonjour, Good bye/Au revoir, Wrong/Faux, Hallo/Hello; Extra is not a final pair
    assert result["sentences"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "tp": 2, "fp": 2, "gold": 4,
                                   "predicted": 4}
    en_fr = _eval_json(capsys, "--db", db, "--gold", str(gold), "--gold-sentences", str(gold_sentences),
                       "--langs", "en,fr")
    assert (en_fr["sentences"]["tp"], en_fr["sentences"]["predicted"]) == (2, 3)
    capsys.readouterr()
    args = ["eval", "--db", db, "--gold", str(gold), "--gold-sentences", str(gold_sentences)]
    assert bitext_main(args) == 0
    assert "sentences: P 0.500 R 0.500 F1 0.500 (tp 2, fp 2, gold 4, predicted 4)" in capsys.readouterr().out


def test_score_functions_directly():
    gold = [LinkedPair("pt-br", "u1", "en", "u2"), LinkedPair("en", "u3", "pt-br", "u4")]
    pred = [LinkedPair("en", "u2", "pt", "u1", 0.2), LinkedPair("pt", "u4", "en", "u2", 0.9)]
    scores = score_pairs(gold, pred)  # the better u2-u4 takes u2, so u1-u2 is dropped
    assert scores.as_dict()["pairs"]["en-pt-br"] == {
        "gold": 2, "tp": 0, "fp": 1, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert score_sentences([("a  b", "c")], [("c", "a b"), ("c", "d")]).as_dict()["tp"] == 1


@pytest.mark.parametrize(
    "extra", [[], ["--crawled"], ["--langs", "en,fr"], ["--crawled", "--langs", "de,en"]]
)
def test_same_numbers_as_score_py(case, tmp_path, capsys, extra, shared_data):
    score_py = shared_data("bench/score.py")
    db, gold, _ = case
    pairs_tsv = tmp_path / "pairs.tsv"
    assert bitext_main(["export", "pairs", "--db", db, "-o", str(pairs_tsv)]) == 0
    cmd = [sys.executable, str(score_py), str(gold), str(pairs_tsv), "--json"]
    if "--langs" in extra:
        cmd += ["--langs", extra[extra.index("--langs") + 1]]
    if "--crawled" in extra:
        crawled = tmp_path / "crawled.txt"
        pages = tmp_path / "pages.jsonl"
        assert bitext_main(["export", "pages", "--db", db, "--format", "jsonl", "-o", str(pages)]) == 0
        urls = [json.loads(line)["url"] for line in pages.read_text("utf-8").splitlines()]
        crawled.write_text("\n".join(urls) + "\n", "utf-8")
        cmd += ["--crawled", str(crawled)]
    expected = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    ours = _eval_json(capsys, "--db", db, "--gold", str(gold), *extra)
    ours.pop("other_fp")
    assert ours == expected


def test_errors_are_one_line_and_exit_2(case, tmp_path, capsys):
    db, gold, gold_sentences = case

    def fails(*args):
        capsys.readouterr()
        assert bitext_main(["eval", *args]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        return err

    assert "no database" in fails("--db", str(tmp_path / "none.db"), "--gold", str(gold))
    assert "no gold file" in fails("--db", db, "--gold", str(tmp_path / "none.tsv"))
    assert "no gold file" in fails("--db", db, "--gold", str(gold), "--gold-sentences", str(tmp_path / "x"))
    bad = tmp_path / "bad.tsv"
    bad.write_text("en\thttp://a/en1\tfr\thttp://a/fr1\nen http://a/en2 fr http://a/fr2\n", "utf-8")
    assert f"{bad}:2:" in fails("--db", db, "--gold", str(bad))
    bad.write_text("only one field\n", "utf-8")
    assert f"{bad}:1:" in fails("--db", db, "--gold", str(gold), "--gold-sentences", str(bad))
    assert "two language codes" in fails("--db", db, "--gold", str(gold), "--langs", "en")
    bad.write_bytes(b"en\thttp://a/\xff\tfr\thttp://a/fr1\n")
    assert "cannot read the gold file" in fails("--db", db, "--gold", str(bad))


def test_gold_with_bom_and_crlf(case, tmp_path, capsys):
    db, gold, _ = case
    expected = _eval_json(capsys, "--db", db, "--gold", str(gold))
    windows = tmp_path / "gold-windows.tsv"
    windows.write_bytes(b"\xef\xbb\xbf" + GOLD.replace("\n", "\r\n").encode("utf-8"))
    assert _eval_json(capsys, "--db", db, "--gold", str(windows)) == expected
