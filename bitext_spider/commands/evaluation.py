"""Precision and recall ("coverage") of the crawl against a manually built reference corpus.

The evaluation module of Tomás et al. (*WebMining*, section 2).  Page pairs are scored with the
rules of the shared scorer ``../shared/bench/score.py``, so both give the same numbers on the same pairs:

- pairs are unordered, and language pairs are reported by the gold standard's language labels;
- predictions are read best score first and, as in the WMT16 document-alignment task, one is
  dropped when either URL is already paired with a page in the other's language (base language:
  ``pt-br`` counts as ``pt``);
- ``crawled`` restricts the gold standard to pairs whose two URLs were both reached;
- ``langs`` keeps one language pair (base languages) on both sides.

Sentence pairs are matched on their cleaned text (:func:`bitext_spider.store.corpus_export.clean_text`),
in either orientation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bitext_spider.store.corpus_export import clean_text
from matchers.page.lang_codes import primary_subtag

GOLD_PAIR_FIELDS = "lang1, url1, lang2, url2"


class GoldFormatError(ValueError):
    """A line of a gold file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class LinkedPair:
    """Two pages said to be translations of each other; ``score`` is None in a gold standard."""

    lang1: str
    url1: str
    lang2: str
    url2: str
    score: float | None = None




def parse_langs(value: str) -> frozenset[str]:
    """``"en,fr"`` -> base languages; raises ValueError unless there are exactly two codes."""
    codes = [x.strip() for x in value.split(",")]
    if len(codes) != 2 or not all(codes):
        raise ValueError(f"--langs takes two language codes, e.g. en,fr (got {value!r})")
    return frozenset(primary_subtag(x) for x in codes)


def _lines(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    with open(path, encoding="utf-8-sig") as fh:  # -sig: a spreadsheet's BOM must not hide the header
        for number, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if line.strip():
                yield number, line.split("\t")


def read_gold_pairs(path: str | Path) -> list[LinkedPair]:
    """``lang1 TAB url1 TAB lang2 TAB url2`` lines; a first line starting with ``lang`` is a header.

    Blank lines are skipped and extra columns ignored (as score.py does); a line with fewer than
    four non-empty fields raises :class:`GoldFormatError`.
    """
    pairs = []
    for number, parts in _lines(path):
        if number == 1 and parts[0].lower().startswith("lang"):
            continue
        if len(parts) < 4 or not all(parts[:4]):
            raise GoldFormatError(
                f"{path}:{number}: expected 4 non-empty tab-separated fields ({GOLD_PAIR_FIELDS}), "
                f"got {len(parts)}"
            )
        pairs.append(LinkedPair(*parts[:4]))
    return pairs


def read_gold_sentences(path: str | Path) -> list[tuple[str, str]]:
    """``text1 TAB text2`` lines, cleaned; a first line starting with ``text1`` is a header."""
    pairs = []
    for number, parts in _lines(path):
        if number == 1 and parts[0].strip().lower() == "text1":
            continue
        texts = [clean_text(x) for x in parts]
        if len(texts) != 2 or not all(texts):
            raise GoldFormatError(
                f"{path}:{number}: expected 2 non-empty tab-separated texts (text1, text2), got {len(parts)}"
            )
        pairs.append((texts[0], texts[1]))
    return pairs


def prf(tp: int, fp: int, n: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``tp`` correct and ``fp`` wrong answers for ``n`` gold items."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / n if n else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


@dataclass
class Counts:
    gold: int = 0
    tp: int = 0
    fp: int = 0

    def as_dict(self) -> dict[str, Any]:
        p, r, f = prf(self.tp, self.fp, self.gold)
        return {"precision": p, "recall": r, "f1": f, "gold": self.gold, "tp": self.tp, "fp": self.fp}


@dataclass
class PairScores:
    """Counts per gold language pair (``("en", "fr")``), plus false positives outside them."""

    per_pair: dict[tuple[str, str], Counts] = field(default_factory=dict)
    other_fp: int = 0

    @property
    def total(self) -> Counts:
        return Counts(
            gold=sum(c.gold for c in self.per_pair.values()),
            tp=sum(c.tp for c in self.per_pair.values()),
            fp=sum(c.fp for c in self.per_pair.values()) + self.other_fp,
        )

    def as_dict(self) -> dict[str, Any]:
        """score.py's ``--json`` object, plus ``other_fp``."""
        total = self.total.as_dict()
        out = {k: total[k] for k in ("precision", "recall", "f1", "tp", "fp", "gold")}
        out["pairs"] = {f"{k[0]}-{k[1]}": c.as_dict() for k, c in self.per_pair.items()}
        out["other_fp"] = self.other_fp
        return out


def _lang_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def score_pairs(
    gold: Iterable[LinkedPair],
    predicted: Iterable[LinkedPair],
    langs: frozenset[str] | None = None,
    crawled: Collection[str] | None = None,
) -> PairScores:
    """Score ``predicted`` page pairs against ``gold`` (rules in the module docstring)."""
    url_lang: dict[str, str] = {}
    gold_sets: dict[tuple[str, str], set[frozenset[str]]] = defaultdict(set)
    for g in gold:
        # Every gold line labels its URLs, even one that the filters below leave out.
        url_lang[g.url1], url_lang[g.url2] = g.lang1, g.lang2
        if langs and frozenset((primary_subtag(g.lang1), primary_subtag(g.lang2))) != langs:
            continue
        if crawled is not None and (g.url1 not in crawled or g.url2 not in crawled):
            continue
        gold_sets[_lang_key(g.lang1, g.lang2)].add(frozenset((g.url1, g.url2)))

    preds = list(predicted)
    if any(p.score is not None for p in preds):
        preds.sort(key=lambda p: -(p.score if p.score is not None else float("-inf")))
    taken: set[tuple[str, str]] = set()
    kept = []
    for p in preds:
        if langs and frozenset((primary_subtag(p.lang1), primary_subtag(p.lang2))) != langs:
            continue
        if (p.url1, primary_subtag(p.lang2)) in taken or (p.url2, primary_subtag(p.lang1)) in taken:
            continue
        taken.add((p.url1, primary_subtag(p.lang2)))
        taken.add((p.url2, primary_subtag(p.lang1)))
        kept.append(p)

    scores = PairScores({k: Counts(gold=len(v)) for k, v in sorted(gold_sets.items())})
    gold_key = {pair: key for key, pairs in gold_sets.items() for pair in pairs}
    for p in kept:
        pair = frozenset((p.url1, p.url2))
        g1, g2 = url_lang.get(p.url1), url_lang.get(p.url2)
        labelled = _lang_key(g1, g2) if g1 and g2 else None
        if pair in gold_key:
            scores.per_pair[gold_key[pair]].tp += 1
        elif labelled in scores.per_pair:
            # A wrong partner for gold pages: charged to the language pair the gold gives them.
            scores.per_pair[labelled].fp += 1
        else:
            scores.other_fp += 1
    return scores


def sentence_key(text1: str, text2: str) -> tuple[str, str]:
    """Orientation-free key of a sentence pair (texts already cleaned)."""
    return (text1, text2) if text1 <= text2 else (text2, text1)


@dataclass
class SentenceScores:
    predicted: int
    gold: int
    tp: int

    def as_dict(self) -> dict[str, Any]:
        p, r, f = prf(self.tp, self.predicted - self.tp, self.gold)
        return {"precision": p, "recall": r, "f1": f, "tp": self.tp, "fp": self.predicted - self.tp,
                "gold": self.gold, "predicted": self.predicted}


def score_sentences(gold: Iterable[tuple[str, str]], predicted: Iterable[tuple[str, str]]) -> SentenceScores:
    """Distinct predicted text pairs found in the gold pairs (both sides cleaned, either orientation)."""
    gold_keys = {sentence_key(clean_text(a), clean_text(b)) for a, b in gold}
    pred_keys = {sentence_key(clean_text(a), clean_text(b)) for a, b in predicted}
    return SentenceScores(predicted=len(pred_keys), gold=len(gold_keys), tp=len(pred_keys & gold_keys))


def format_report(pairs: PairScores, sentences: SentenceScores | None = None) -> str:
    """The plain-text table: one line per gold language pair, then the totals."""
    lines = []
    for key, c in pairs.per_pair.items():
        d = c.as_dict()
        lines.append(
            f"{key[0] + '-' + key[1]:12s} gold {c.gold:5d}  tp {c.tp:5d}  fp {c.fp:5d}  "
            f"P {d['precision']:.3f}  R {d['recall']:.3f}  F1 {d['f1']:.3f}"
        )
    if pairs.other_fp:
        lines.append(f"{'(no gold)':12s} fp {pairs.other_fp}")
    t = pairs.total
    p, r, f = prf(t.tp, t.fp, t.gold)
    lines.append(f"overall: P {p:.3f} R {r:.3f} F1 {f:.3f} (tp {t.tp}, fp {t.fp}, gold {t.gold})")
    if sentences is not None:
        d = sentences.as_dict()
        lines.append(
            f"sentences: P {d['precision']:.3f} R {d['recall']:.3f} F1 {d['f1']:.3f} "
            f"(tp {d['tp']}, fp {d['fp']}, gold {d['gold']}, predicted {d['predicted']})"
        )
    return "\n".join(lines)
