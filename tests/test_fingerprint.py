"""ILSP-FC section 3.9 structural fingerprints: the paper's format and the distance ratio."""

import random
from array import array

import pytest

from matchers.page.main_content import Paragraph
from matchers.structure.fingerprint import (
    FingerprintShape,
    bucketed,
    content_paragraphs,
    fingerprint,
    fingerprint_distance_ratio,
    fingerprint_features,
    paragraph_count,
    shape_distance_ratio,
)

# The paper's Figure 2 (its topic attribute aside).
TITLE = "Strategia degli investimenti"
TEXT = (
    "I ricavi degli investimenti sono un elemento essenziale per finanziare le rendite e mantenere il "
    "potere d'acquisto dei beneficiari delle rendite."
)
ITEM = "Document:"
BOILER = 'Factsheet "La strategia d\'investimento della Suva in sintesi" (Il link viene aperto in una nuova finestra)'
HEADING = "Perché la Suva effettua investimenti finanziari?"
LAST = (
    "Nonostante i molti sforzi compiuti nella prevenzione degli infortuni sul lavoro e nel tempo libero "
    "ogni anno accadono oltre 2500 infortuni con conseguenze invalidanti o mortali. In questi casi si "
    "versa una rendita per invalidità agli infortunati oppure una rendita per orfani o vedovile ai "
    "superstiti. Nello stesso anno in cui attribuisce una rendita, la Suva provvede ad accantonare i "
    "mezzi necessari a pagare le rendite future. La maggior parte del patrimonio investito dalla Suva è "
    "rappresentato proprio da questi mezzi, ossia dal capitale di copertura delle rendite. La restante "
    "parte del patrimonio è costituita da accantonamenti per prestazioni assicurative a breve termine "
    "come le spese di cura, le indennità giornaliera e le riserve."
)


def figure2() -> list[Paragraph]:
    return [
        Paragraph(TITLE, "title", False),
        Paragraph(TEXT, "text", False),
        Paragraph(ITEM, "listitem", False),
        Paragraph(BOILER, "listitem", True),
        Paragraph(HEADING, "heading", False),
        Paragraph(LAST, "text", False),
    ]


def test_fingerprint_of_the_papers_example():
    # The paper prints [-2, 28, 145, -4, 9, -3, 48, -5, 740]: -5 is its topic marker, which this
    # crawler has no domain definition for; its last paragraph, as printed, is 741 characters.
    assert fingerprint(figure2()) == [-2, 28, 145, -4, 9, -3, 48, 741]
    assert fingerprint(figure2(), weighted=False) == [-2, 28, 145, -4, 9, -3, 48, 741]


def test_fingerprint_of_stored_triples_skips_nothing_and_matches():
    stored = [[p.kind, "it", p.text] for p in figure2() if not p.boilerplate]
    assert fingerprint(stored) == fingerprint(figure2())
    assert content_paragraphs(stored)[0] == ("title", "it", TITLE)
    assert fingerprint([]) == []
    assert fingerprint([("text", "en", "")]) == []


def test_weighted_lengths_count_cjk_three():
    paragraphs = [("heading", "zh", "中文标题"), ("text", "zh", "abc 中文")]
    assert fingerprint(paragraphs, weighted=False) == [-3, 4, 6]
    assert fingerprint(paragraphs) == [-3, 12, 10]


def test_bucketed():
    assert bucketed([-2, 1, 2, 3, 4, 7, 8, 28, 30, 145, 150], 2) == [-2, 1, 2, 2, 3, 3, 4, 5, 5, 8, 8]
    with pytest.raises(ValueError):
        bucketed([5], 1.0)


def test_distance_ratio_on_hand_made_fingerprints():
    a = [-2, 28, 145, -4, 9]
    b = [-2, 30, 150, 9]
    # Exact lengths: 28->30 and 145->150 substituted, -4 deleted: 3 edits over 5.
    assert fingerprint_distance_ratio(a, b, None) == pytest.approx(3 / 5)
    # Base-2 buckets: [-2, 5, 8, -4, 4] against [-2, 5, 8, 4]: the deletion only.
    assert fingerprint_distance_ratio(a, b, 2.0) == pytest.approx(1 / 5)
    assert fingerprint_distance_ratio(a, b) == pytest.approx(1 / 5)  # the default is base 2
    assert fingerprint_distance_ratio(a, a, None) == 0.0
    assert fingerprint_distance_ratio(a, [], None) == 1.0
    assert fingerprint_distance_ratio([], [], None) == 1.0
    # As a site keeps them (machine ints, negative type codes included).
    for base in (None, 2.0, 1.5):
        assert fingerprint_distance_ratio(array("i", a), array("i", b), base) == fingerprint_distance_ratio(a, b, base)


def test_shapes_give_the_distance_ratio_of_their_fingerprints():
    rng = random.Random(7)
    codes = [-5, -4, -3, -2]
    for base in (2.0, 1.5, 3.0):
        for _ in range(300):
            a, b = ([rng.choice(codes) if rng.random() < 0.3 else rng.randint(1, 50_000)
                     for _ in range(rng.randint(0, 30))] for _ in range(2))
            sa, sb = FingerprintShape(array("i", a), base), FingerprintShape(b, base)
            assert shape_distance_ratio(sa, sb) == fingerprint_distance_ratio(a, b, base)
            assert (sa.paragraphs, sb.paragraphs) == (paragraph_count(a), paragraph_count(b))
    assert shape_distance_ratio(FingerprintShape([]), FingerprintShape([])) == 1.0
    with pytest.raises(ValueError):
        FingerprintShape([1, 2], None)


def test_fingerprint_features():
    a = [-2, 28, 145, -4, 9]
    b = [-2, 30, 150, 9]
    assert paragraph_count(a) == 3 and paragraph_count(b) == 3
    assert fingerprint_features(a, b) == pytest.approx((4 / 5, 1.0, 1 / 5))
    assert fingerprint_features(a, b, None) == pytest.approx((4 / 5, 1.0, 3 / 5))
