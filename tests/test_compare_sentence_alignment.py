"""benchmarks/compare_sentence_alignment.py: locating gold sentences in a page's segmentation,
scoring beads against gold pairs, reading hunalign's output; tiny hand-made inputs, no crawl and
no hunalign binary; benchmarks/hunalign_aligner.py's input and output formats."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compare_sentence_alignment",
                                               ROOT / "benchmarks" / "compare_sentence_alignment.py")
csa = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = csa
_spec.loader.exec_module(csa)
hunalign = sys.modules["hunalign_aligner"]  # imported by the script from benchmarks/


def test_sentences_get_spans_in_their_paragraphs_text():
    side = csa.Side(["One.", "Two", ") Three."], paragraphs=["One.", "Two) Three."])
    assert side.text == "One. Two) Three."
    assert side.spans == [(0, 4), (5, 8), (8, 16)]
    # Without paragraphs (or when a sentence is not in them) the sentences are the text.
    assert csa.Side(["One.", "Two"]).spans == [(0, 4), (5, 8)]
    assert csa.Side(["One.", "Two"], paragraphs=["Other"]).text == "One. Two"


def test_locate_prefers_whole_sentences_and_never_jumps_ahead():
    side = csa.Side(["Title | Site", "Title", "Question", "The question is long enough here.", "Answer"])
    # The title is the headline (a whole sentence), not the <title> sentence.
    assert side.locate(["Title", "The question is long enough here."]) == [(13, 18), (28, 61)]
    # A lost one-word heading is not found inside a later sentence.
    side = csa.Side(["Intro.", "A sentence about the Frage here.", "Frage"])
    assert side.locate(["Frage", "A sentence about the Frage here."]) == [None, (7, 39)]
    # Word boundaries: "Tags" is not in "Tagset".
    assert csa.Side(["Tagset"]).locate(["Tags"]) == [None]


def test_classify_gold_sentences_against_the_segmentation():
    side = csa.Side(["A b. C d.", "E f.", "G h.", "I j."], other_language=["Foreign text."])
    assert side.classify((10, 14)) == "intact"
    assert side.classify((0, 4)) == "glued"
    assert side.classify((10, 19)) == "cut"
    assert side.classify((5, 14)) == "straddling"
    assert side.classify(None, "Foreign text.") == "missing: other language"
    assert side.classify(None, "Gone.") == "missing"


def test_wrong_boundaries_and_their_kinds():
    side = csa.Side(["See e.g.", "The spec. Then more."])
    missed, added = csa.wrong_boundaries(side, side.locate(["See e.g. The spec."])[0])
    assert missed == [19] and added == [9]
    assert csa.boundary_example(side, 9)[0] == "abbreviation or initial before the period"
    assert csa.boundary_example(side, 19)[0] == "plain stop"
    kind = csa.boundary_kind
    assert kind('He said "Stop."', "Then") == "closing quote or bracket after the stop"
    assert kind("(Also this.", ") Next") == "closing quote or bracket cut off the sentence"
    assert kind("Heading", "Text") == "no final stop (title, heading, list item)"
    assert kind("Title |", "Site") == "title and site name"
    assert kind("names, etc.", "Consider") == "abbreviation or initial before the period"
    assert kind("in HTML.", "xml:lang is") == "stop before a lower-case word"
    assert kind("as follows:", "The") == "colon or semicolon"


def pair() -> csa.PagePair:
    """Two pages of three sentences; gold: 0-0, 1-1, 2-2, where side 2's last two sentences are
    glued into one by the splitter."""
    de = csa.Side(["Titel", "Erster Satz.", "Zweiter Satz."])
    en = csa.Side(["Title", "First sentence. Second sentence."])
    return csa.PagePair(de, en, [("Titel", "Title"), ("Erster Satz.", "First sentence."),
                                 ("Zweiter Satz.", "Second sentence.")])


def test_scores_strict_and_consistent_beads():
    pp = pair()
    assert pp.spans[1] == ((6, 18), (6, 21))
    sc = csa.score(pp, [((0,), (0,)), ((1, 2), (1,))])
    assert (sc.beads, sc.in_scope, sc.strict, sc.consistent) == (2, 2, 1, 2)
    assert (sc.gold, sc.intact_gold, sc.recalled_strict, sc.recalled_consistent, sc.recalled_intact) == (3, 1, 1, 3, 1)
    assert dict(sc.kinds) == {"1-1": 1, "2-1/1-2": 1} == dict(sc.kinds_consistent)
    f = sc.figures()
    assert f["P_strict"] == 0.5 and f["P_consistent"] == 1.0 and f["R_strict"] == round(1 / 3, 4)
    assert f["R_on_intact"] == 1.0
    # A wrong bead in scope counts against precision; nothing is recalled by it.
    wrong = csa.score(pp, [((0,), (1,))])
    assert (wrong.in_scope, wrong.strict, wrong.consistent, wrong.recalled_consistent) == (1, 0, 0, 0)


def test_beads_outside_the_gold_are_not_judged():
    de = csa.Side(["Titel", "Ungedeckt."])
    en = csa.Side(["Title", "Uncovered."])
    pp = csa.PagePair(de, en, [("Titel", "Title")])
    sc = csa.score(pp, [((0,), (0,)), ((1,), (1,))])
    assert (sc.beads, sc.in_scope, sc.strict) == (2, 1, 1)
    total = csa.Score()
    total.add(sc)
    total.add(csa.score(pair(), []))
    assert (total.page_pairs, total.gold, total.beads, total.recalled_strict) == (2, 4, 2, 1)


def test_stored_bead_texts_map_to_runs_of_sentences():
    sentences = ["A.", "B.", "C.", "D."]
    assert csa.runs_of(sentences, ["A.", "B. C.", "D.", "X."]) == [(0,), (1, 2), (3,), None]
    # A repeated sentence is found after the previous bead first.
    assert csa.runs_of(["Q", "A.", "Q", "B."], ["Q", "A.", "Q"]) == [(0,), (1,), (2,)]


def test_hunalign_text_output_maps_back_to_sentence_numbers():
    t1 = ["a b", "c", "d e"]
    t2 = ["x", "y z", "w", "v"]
    out = "a b\tx ~~~ y z\t0.5\n\tw\t-0.3\nc ~~~ d e\tv\t0.2\n"
    assert hunalign.parse_text_output(out, t1, t2) == [((0,), (0, 1)), ((1, 2), (3,))]
    with pytest.raises(ValueError):
        hunalign.parse_text_output("a b\tx\t0.5\n", t1, t2)


def test_dictionary_is_written_target_at_source(tmp_path):
    dic = tmp_path / "en-de.dic"
    dic.write_text("en\tde\nprotocol\tProtokoll\nlanguage tag\tSprach-Tag\n\tleer\n", "utf-8")
    out = tmp_path / "hunalign.dic"
    assert hunalign.hunalign_dictionary(dic, "de", "en", out) == 2
    assert out.read_text("utf-8") == "protocol @ protokoll\nlanguage tag @ sprach-tag\n"
    assert hunalign.hunalign_dictionary(None, "de", "en", out) == 0 and out.read_text() == ""
    with pytest.raises(SystemExit):
        hunalign.hunalign_dictionary(dic, "de", "fr", out)
