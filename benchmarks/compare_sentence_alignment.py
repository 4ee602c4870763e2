#!/usr/bin/env python3
"""Score this project's sentence alignment, and hunalign's, against the gold sentence pairs of a
news-editions site.

    python benchmarks/compare_sentence_alignment.py SITE DB --langs de-en
        [--hunalign PATH] [--dictionary PATH|none] [--realign] [--examples 4] [--json OUT]

SITE is a folder made by ``benchmarks/make_news_editions.py`` (``gold.tsv``, ``sentences.tsv``;
``news_sentence_gold.py`` says what the gold is); DB the SQLite database of a crawl of it
(``python benchmarks/evaluate_site.py SITE --keep DB``), a path or a ``sqlite:///`` URL.  Only
the gold page pairs of ``--langs`` that ``sentences.tsv`` covers are scored.

* **The project's sentence pairs** are the ``sentences`` table's rows of those page pairs (the
  beads with sentences on both sides of the final pairs, as the crawl stored them, before the
  export's deduplication and identity filter).
* **hunalign's** (``--hunalign``, the binary of github.com/danielvarga/hunalign; skipped without
  it) come from the same sentences: each page's main-content sentences as the project segmented
  them (``page_content`` of the page's stored paragraphs), one a line, as lower-cased word tokens
  (``word_tokens``), lang1 the source.  Its dictionary (``target @ source`` lines) is converted
  from ``--dictionary`` (default ``../shared/data/dics/L1-L2.dic`` when it exists; ``none``:
  hunalign's empty dictionary, which makes it build one from a first length-based pass).
  ``-text`` output; its segments are mapped back to sentence numbers by counting sentences.

Scoring.  A page's sentences are located in the text of the paragraphs they come from, and so
is every gold sentence, in order (:meth:`Side.locate`); gold and predicted sentences are then
character spans of the same text.  A bead is *in scope* when one of its sentences overlaps a gold
sentence (material the gold covers); precision is over beads in scope, recall over gold pairs.

* *strict*: the bead is 1-1 and its two sentences are exactly the two sentences of a gold pair;
* *consistent*: the bead's two sides are exactly the two sides of a run of consecutive gold pairs
  (adjacent on both pages), e.g. a 1-1 bead of two sentences the splitter glued on both sides,
  or a 2-2 bead of two gold pairs.  A gold pair is recalled, consistently, when such a bead holds it.
* *recall on intact*: strict recall over the gold pairs whose two sentences the project's splitter
  kept as single sentences: the aligner's own recall, without the splitter's loss.

Splitter loss: gold sentences that are not one of the project's sentences, by kind: *glued* (part
of a longer sentence), *cut* (exactly two or more sentences), *straddling* (cut elsewhere and
glued), *missing* (not in the page's main-content sentences: in a paragraph identified as
another language, or not extracted at all, e.g. removed as boilerplate).  The boundaries the
splitter missed or added around them are counted once each, by what lies there (a closing quote
or bracket, no final stop as after a heading or title, an abbreviation ...), with examples.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from hunalign_aligner import hunalign_dictionary, run_hunalign  # noqa: E402

from matchers.page.lang_codes import same_language  # noqa: E402
from matchers.page.page_content import page_content  # noqa: E402

Span = tuple[int, int]
Bead = tuple[tuple[int, ...], tuple[int, ...]]
PairKey = tuple[str, str]  # (lang1 URL, lang2 URL)
MAX_RUN = 4  # longest run of gold pairs or sentences a bead side is matched against
UNIQUE_CHARS = 25  # a gold sentence this long is located even in the middle of a project sentence
MAX_EXAMPLES = 20  # kept per splitter failure kind


def norm(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------- spans


@dataclass
class Side:
    """One page's sentences as the project segmented them, with their spans in ``text``: the
    paragraphs they come from, one space apart, or else the sentences themselves."""

    sentences: list[str]
    paragraphs: list[str] = field(default_factory=list)
    other_language: list[str] = field(default_factory=list)  # paragraphs page_content leaves out
    text: str = ""
    spans: list[Span] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sentences = [norm(s) for s in self.sentences]
        # The paragraphs keep what lies between sentences, such as a bracket the splitter put
        # at the start of the next sentence.
        self.text = " ".join(map(norm, self.paragraphs))
        at = 0
        for s in self.sentences:
            found = self.text.find(s, at)
            if found < 0:
                self.text = ""
                break
            self.spans.append((found, found + len(s)))
            at = found + len(s)
        if not self.text:
            self.text, self.spans, at = " ".join(self.sentences), [], 0
            for s in self.sentences:
                self.spans.append((at, at + len(s)))
                at += len(s) + 1

    def starts(self) -> set[int]:
        return {a for a, _ in self.spans}

    def locate(self, texts: Sequence[str]) -> list[Span | None]:
        """Spans of ``texts`` (in document order) in the page's text; None where absent.

        An occurrence counts when it starts or ends a sentence, or is long enough to be no
        chance (a one-word heading the page lost must not be found inside a later sentence).
        Only occurrences before the next text's first (or the one after, if the next is absent)
        are taken (no jumping ahead), and of them the last that is a whole sentence wins, else
        the first that starts one: a title is also in the ``<title>`` sentence, before the
        headline, alone or with the site's name."""
        starts, ends = self.starts(), {e for _, e in self.spans}
        out: list[Span | None] = []
        pos = 0
        for k, t in enumerate(texts):
            found = list(self._acceptable(t, pos, starts, ends))
            later = [next(self._acceptable(u, pos, starts, ends), None) for u in texts[k + 1:k + 4]]
            nxt = next((o for o in later if o is not None), None)
            before = [o for o in found if nxt is None or o < nxt]
            if not before:
                out.append(None)
                continue
            whole = [o for o in before if o in starts and o + len(t) in ends]
            at = whole[-1] if whole else next((o for o in before if o in starts), before[0])
            out.append((at, at + len(t)))
            pos = at + len(t)
        return out

    def _acceptable(self, t: str, pos: int, starts: set[int], ends: set[int]) -> Iterable[int]:
        for at in _occurrences(self.text, t, pos):
            if at in starts or at + len(t) in ends or len(t) >= UNIQUE_CHARS:
                yield at

    def classify(self, span: Span | None, text: str = "") -> str:
        """How the project segmented a gold sentence (``text``, at ``span``): intact, glued, cut,
        straddling, or missing (in a paragraph identified as another language, or not at all)."""
        if span is None:
            return "missing: other language" if any(text in p for p in self.other_language) else "missing"
        a, b = span
        inside = [i for i, (s, e) in enumerate(self.spans) if s < b and e > a]
        if not inside:
            return "missing"
        first, last = self.spans[inside[0]], self.spans[inside[-1]]
        if len(inside) == 1:
            return "intact" if first == span else "glued"
        return "cut" if (first[0], last[1]) == span else "straddling"


def _occurrences(text: str, sub: str, start: int, limit: int = 50) -> Iterable[int]:
    """Where ``sub`` occurs in ``text`` from ``start`` between word boundaries (spaces or ends)."""
    at = text.find(sub, start)
    while at >= 0 and limit:
        end = at + len(sub)
        if (at == 0 or text[at - 1] == " ") and (end == len(text) or text[end] == " "):
            yield at
            limit -= 1
        at = text.find(sub, at + 1)


# Abbreviations that are often the last word of a sentence too ("etc." ending a list).
_ABBREVIATIONS = {"etc", "usw", "bspw", "bzw", "vgl", "ca", "ms", "mr", "mrs", "dr", "vs", "sr", "sra", "st", "no"}


def boundary_kind(left: str, right: str) -> str:
    """What lies at a sentence boundary that one segmentation has and the other lacks: the text
    before it (``left``) and after it (``right``)."""
    left, right = left.rstrip(), right.lstrip()
    words = left.split()
    word = words[-1].lstrip("(\"'“‘«„") if words else ""
    if re.match(r"[\"'“”’»)\]]", right) and re.search(r"[.!?…]$", left):
        return "closing quote or bracket cut off the sentence"
    if re.search(r"[.!?…][\"'“”’»)\]]+$", left):
        return "closing quote or bracket after the stop"
    if re.search(r"\s[-|–]$", left) or re.match(r"[-|–]\s", right):
        return "title and site name"
    if word.endswith(".") and (re.fullmatch(r"(\w\.)+", word) or word[:-1].lower() in _ABBREVIATIONS):
        return "abbreviation or initial before the period"
    if re.search(r"[.!?…]$", left) and right[:1].islower():
        return "stop before a lower-case word"
    if re.search(r"[.!?…]$", left) and (right[:1] == "<" or re.search(r"<[^>]*$", left)):
        return "stop in markup or code shown as text"
    if re.search(r"[.!?…]$", left) and right[:1].isdigit():
        return "stop before a number"
    if re.search(r"\d\.$", left):
        return "number before the period"
    if re.search(r"[.!?…]$", left):
        return "plain stop"
    if re.search(r"[:;]$", left):
        return "colon or semicolon"
    return "no final stop (title, heading, list item)"


def wrong_boundaries(side: Side, span: Span) -> tuple[list[int], list[int]]:
    """Positions of the boundaries the splitter got wrong around a gold sentence: gold boundaries
    inside a project sentence (missed), project boundaries inside the gold sentence (added).  A
    boundary's position is where the next sentence starts."""
    a, b = span
    starts, ends = side.starts(), {e for _, e in side.spans}
    missed = [x for x, known in ((a, starts), (b, ends)) if x not in known]
    missed = [x + len(side.text[x:]) - len(side.text[x:].lstrip()) for x in missed]
    inner = [x for x in starts if a < x < b]
    return [x for x in missed if 0 < x < len(side.text) and any(s < x < e for s, e in side.spans)], inner


def boundary_example(side: Side, x: int) -> tuple[str, str]:
    """(kind, context) of the boundary before ``side.text[x]``; the context marks it with ‖."""
    left, right = side.text[:x], side.text[x:]
    return boundary_kind(left, right), f"{left.rstrip()[-60:]} ‖ {right[:40]}"


# ------------------------------------------------------------------------------------- scoring


@dataclass
class PagePair:
    """A gold page pair: both pages' segmentations and the gold sentence pairs, located."""

    side1: Side
    side2: Side
    gold: list[tuple[str, str]]
    spans: list[tuple[Span | None, Span | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.spans = list(zip(self.side1.locate([g[0] for g in self.gold]),
                              self.side2.locate([g[1] for g in self.gold]), strict=True))

    def covered(self) -> tuple[set[int], set[int]]:
        """Sentences (of each side) that overlap a located gold sentence."""
        out: tuple[set[int], set[int]] = (set(), set())
        for side, spans, k in ((self.side1, [s[0] for s in self.spans], 0), (self.side2, [s[1] for s in self.spans], 1)):
            for i, (s, e) in enumerate(side.spans):
                if any(g is not None and g[0] < e and g[1] > s for g in spans):
                    out[k].add(i)
        return out

    def runs(self) -> dict[tuple[Span, Span], list[int]]:
        """Side spans of runs of consecutive gold pairs adjacent on both pages -> the pairs."""
        out: dict[tuple[Span, Span], list[int]] = {}
        for k in range(len(self.spans)):
            for m in range(k, min(len(self.spans), k + MAX_RUN)):
                run = self.spans[k:m + 1]
                if any(s1 is None or s2 is None for s1, s2 in run):
                    break
                if m > k and (run[-1][0][0] != run[-2][0][1] + 1 or run[-1][1][0] != run[-2][1][1] + 1):
                    break
                out.setdefault(((run[0][0][0], run[-1][0][1]), (run[0][1][0], run[-1][1][1])), list(range(k, m + 1)))
        return out


def bead_kind(bead: Bead) -> str:
    n1, n2 = len(bead[0]), len(bead[1])
    return "1-1" if n1 == n2 == 1 else "2-1/1-2" if sorted((n1, n2)) == [1, 2] else "2-2" if n1 == n2 == 2 else "other"


@dataclass
class Score:
    """Counts of one aligner over some page pairs (see the module docstring)."""

    page_pairs: int = 0
    beads: int = 0
    in_scope: int = 0
    strict: int = 0
    consistent: int = 0
    gold: int = 0
    intact_gold: int = 0
    recalled_strict: int = 0
    recalled_intact: int = 0
    recalled_consistent: int = 0
    kinds: Counter = field(default_factory=Counter)
    kinds_in_scope: Counter = field(default_factory=Counter)
    kinds_consistent: Counter = field(default_factory=Counter)

    def add(self, other: Score) -> None:
        for name, value in vars(other).items():
            if isinstance(value, Counter):
                getattr(self, name).update(value)
            else:
                setattr(self, name, getattr(self, name) + value)

    def figures(self) -> dict[str, float]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 4) if b else 0.0

        return {"P_strict": ratio(self.strict, self.in_scope), "P_consistent": ratio(self.consistent, self.in_scope),
                "R_strict": ratio(self.recalled_strict, self.gold),
                "R_consistent": ratio(self.recalled_consistent, self.gold),
                "R_on_intact": ratio(self.recalled_intact, self.intact_gold)}


def score(pp: PagePair, beads: Sequence[Bead]) -> Score:
    """Score ``beads`` (sentence numbers of side 1, of side 2; both sides non-empty) on ``pp``."""
    sc = Score(page_pairs=1, gold=len(pp.gold))
    gold_index = {(s1, s2): k for k, (s1, s2) in enumerate(pp.spans) if s1 is not None and s2 is not None}
    intact = {k for k, (s1, s2) in enumerate(pp.spans)
              if pp.side1.classify(s1) == "intact" and pp.side2.classify(s2) == "intact"}
    sc.intact_gold = len(intact)
    runs, (cov1, cov2) = pp.runs(), pp.covered()
    strict_hits: set[int] = set()
    consistent_hits: set[int] = set()
    for bead in beads:
        kind = bead_kind(bead)
        sc.beads += 1
        sc.kinds[kind] += 1
        if not (set(bead[0]) & cov1 or set(bead[1]) & cov2):
            continue
        sc.in_scope += 1
        sc.kinds_in_scope[kind] += 1
        span1 = (pp.side1.spans[bead[0][0]][0], pp.side1.spans[bead[0][-1]][1])
        span2 = (pp.side2.spans[bead[1][0]][0], pp.side2.spans[bead[1][-1]][1])
        if kind == "1-1" and (span1, span2) in gold_index:
            sc.strict += 1
            strict_hits.add(gold_index[span1, span2])
        if (span1, span2) in runs:
            sc.consistent += 1
            sc.kinds_consistent[kind] += 1
            consistent_hits.update(runs[span1, span2])
    sc.recalled_strict, sc.recalled_consistent = len(strict_hits), len(consistent_hits)
    sc.recalled_intact = len(strict_hits & intact)
    return sc


def runs_of(sentences: Sequence[str], texts: Sequence[str]) -> list[tuple[int, ...] | None]:
    """The runs of consecutive ``sentences`` whose space-joined text is each of ``texts`` (a
    bead side as stored), found in order; None for a text matching no run."""
    sentences = [norm(s) for s in sentences]
    out: list[tuple[int, ...] | None] = []
    pos = 0
    for text in map(norm, texts):
        hit = _run_at(sentences, text, pos) or _run_at(sentences, text, 0)
        out.append(hit)
        if hit:
            pos = hit[-1] + 1
    return out


def _run_at(sentences: Sequence[str], text: str, start: int) -> tuple[int, ...] | None:
    for i in range(start, len(sentences)):
        if not text.startswith(sentences[i]):
            continue
        for n in range(1, MAX_RUN + 1):
            if " ".join(sentences[i:i + n]) == text:
                return tuple(range(i, i + n))
    return None


# ------------------------------------------------------------------------------------- the run


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text("utf-8").splitlines() if line.strip()]


def load_gold(site: Path, lang1: str, lang2: str) -> dict[PairKey, list[tuple[str, str]]]:
    """Gold sentence pairs of each covered page pair of the language pair, in document order."""
    gold: dict[PairKey, list[tuple[str, str]]] = defaultdict(list)
    for l1, u1, l2, u2, t1, t2 in read_tsv(site / "sentences.tsv"):
        if (l1, l2) == (lang1, lang2):
            gold[u1, u2].append((t1, t2))
    return dict(gold)


def connect(db: str) -> sqlite3.Connection:
    path = db.removeprefix("sqlite:///")
    if not Path(path).is_file():
        raise SystemExit(f"no database at {path}")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def page_sides(conn: sqlite3.Connection, urls: Iterable[str]) -> dict[str, tuple[int, Side]]:
    """Page id and main-content sentences (as the crawl's content filter had them) of each URL found."""
    out = {}
    for url in urls:
        row = conn.execute("SELECT id, lang, paragraphs FROM pages WHERE url = ?", (url,)).fetchone()
        if row is None:
            continue
        pid, lang, paragraphs = row
        paragraphs = [tuple(p) for p in json.loads(paragraphs or "[]")]
        sentences = page_content(paragraphs, lang).sentences if paragraphs and lang else []
        # The paragraphs page_content leaves out, as it decides.
        other = [norm(text) for _, plang, text in paragraphs
                 if lang and plang and plang != "und" and not same_language(plang, lang)]
        kept = [text for _, plang, text in paragraphs if norm(text) not in other]
        out[url] = (pid, Side(sentences, kept, other))
    return out


def project_beads(conn: sqlite3.Connection, id1: int, id2: int, pp: PagePair) -> tuple[list[Bead], int] | None:
    """The stored beads of a page pair (side 1 the gold's lang1 page) and how many stored rows
    match no run of sentences; None when the project did not pair the two pages."""
    a, b = sorted((id1, id2))
    if conn.execute("SELECT 1 FROM pairs WHERE page1_id = ? AND page2_id = ?", (a, b)).fetchone() is None:
        return None
    rows = conn.execute("SELECT page1_id, text1, text2 FROM sentences WHERE page1_id = ? AND page2_id = ? "
                        "ORDER BY position", (a, b)).fetchall()
    oriented = [(t1, t2) if p1 == id1 else (t2, t1) for p1, t1, t2 in rows]
    runs1 = runs_of(pp.side1.sentences, [t1 for t1, _ in oriented])
    runs2 = runs_of(pp.side2.sentences, [t2 for _, t2 in oriented])
    beads = [(r1, r2) for r1, r2 in zip(runs1, runs2, strict=True) if r1 and r2]
    return beads, len(rows) - len(beads)


def splitter_loss(pairs: dict[PairKey, PagePair], lang1: str, lang2: str) -> dict[str, dict]:
    """Per language: gold sentences by how the project segmented them, and the wrong boundaries
    (each once per page) by kind, with examples."""
    out = {}
    for k, lang in ((0, lang1), (1, lang2)):
        kinds: Counter = Counter()
        boundaries: Counter = Counter()
        examples: dict[str, list[str]] = defaultdict(list)
        for pp in pairs.values():
            side = (pp.side1, pp.side2)[k]
            missed: set[int] = set()
            added: set[int] = set()
            for gold, spans in zip(pp.gold, pp.spans, strict=True):
                kind = side.classify(spans[k], gold[k])
                kinds[kind] += 1
                if kind.startswith("missing"):
                    if len(examples[kind]) < MAX_EXAMPLES:
                        examples[kind].append(gold[k][:100])
                elif kind != "intact":
                    m, a = wrong_boundaries(side, spans[k])
                    missed.update(m)
                    added.update(a)
            for name, points in (("missed", missed), ("added", added)):
                for x in sorted(points):
                    bkind, context = boundary_example(side, x)
                    boundaries[f"{name}: {bkind}"] += 1
                    if len(examples[f"{name}: {bkind}"]) < MAX_EXAMPLES:
                        examples[f"{name}: {bkind}"].append(context)
        out[lang] = {"sentences": sum(kinds.values()), "kinds": dict(kinds), "boundaries": dict(boundaries),
                     "examples": dict(examples)}
    return out


def table(title: str, scores: dict[str, Score]) -> str:
    head = (f"{'aligner':10} {'pairs':>5} {'beads':>6} {'scope':>6} {'1-1':>5} {'2-1/1-2':>7} {'2-2':>4} {'other':>5} "
            f"{'P':>6} {'P cons':>6} {'R':>6} {'R cons':>6} {'R intact':>8}")
    lines = [title, head]
    for name, sc in scores.items():
        f = sc.figures()
        k = sc.kinds_in_scope
        lines.append(f"{name:10} {sc.page_pairs:5} {sc.beads:6} {sc.in_scope:6} {k['1-1']:5} {k['2-1/1-2']:7} {k['2-2']:4} "
                     f"{k['other']:5} {f['P_strict']:6.3f} {f['P_consistent']:6.3f} {f['R_strict']:6.3f} "
                     f"{f['R_consistent']:6.3f} {f['R_on_intact']:8.3f}")
    for name, sc in scores.items():
        lines.append(f"  {name} beads in scope, consistent of all by kind: " + ", ".join(
            f"{kind} {sc.kinds_consistent[kind]}/{n}" for kind, n in sorted(sc.kinds_in_scope.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path, help="a news-editions site folder (gold.tsv, sentences.tsv)")
    ap.add_argument("db", help="SQLite database of a crawl of the site (path or sqlite:/// URL)")
    ap.add_argument("--langs", required=True, help="language pair, e.g. de-en")
    ap.add_argument("--hunalign", type=Path, help="hunalign binary (hunalign is skipped without it)")
    ap.add_argument("--dictionary", help="TSV dictionary for hunalign (default ../shared/data/dics/L1-L2.dic "
                    "if present; 'none' for hunalign's empty dictionary)")
    ap.add_argument("--realign", action="store_true", help="hunalign's -realign (a second pass)")
    ap.add_argument("--examples", type=int, default=3, help="examples printed per splitter failure kind")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    lang1, lang2 = sorted(x.strip() for x in a.langs.split("-", 1))
    if not (a.site / "sentences.tsv").is_file():
        ap.error(f"{a.site} has no sentences.tsv (make it with benchmarks/make_news_editions.py)")
    gold = load_gold(a.site, lang1, lang2)
    gold_pages = {(u1, u2) for l1, u1, l2, u2 in read_tsv(a.site / "gold.tsv") if (l1, l2) == (lang1, lang2)}
    if not gold:
        ap.error(f"sentences.tsv has no {lang1}-{lang2} pairs")
    conn = connect(a.db)
    sides = page_sides(conn, {u for key in gold for u in key})
    pairs: dict[PairKey, PagePair] = {}
    ids: dict[PairKey, tuple[int, int]] = {}
    for (u1, u2), rows in sorted(gold.items()):
        (id1, s1), (id2, s2) = sides.get(u1, (0, Side([]))), sides.get(u2, (0, Side([])))
        pairs[u1, u2] = PagePair(s1, s2, rows)
        if id1 and id2:
            ids[u1, u2] = (id1, id2)
    project: dict[PairKey, list[Bead]] = {}
    unmapped = 0
    for key, (id1, id2) in ids.items():
        found = project_beads(conn, id1, id2, pairs[key])
        if found is not None:
            project[key], lost = found
            unmapped += lost
    aligners: dict[str, dict[PairKey, list[Bead]]] = {"project": project}
    notes = [f"{lang1}-{lang2}: {len(gold_pages)} gold page pairs, {len(gold)} covered by sentences.tsv "
             f"({sum(map(len, gold.values()))} gold sentence pairs); {len(ids)} of them crawled with both pages, "
             f"{len(project)} paired by the project"]
    if unmapped:
        notes.append(f"{unmapped} stored sentence rows matched no run of the pages' sentences (left out)")
    if a.hunalign:
        dic = _dictionary(a.dictionary, lang1, lang2)
        with tempfile.TemporaryDirectory() as tmp:
            dic_file = Path(tmp) / "hunalign.dic"
            entries = hunalign_dictionary(dic, lang1, lang2, dic_file)
            crawled = {key: (pairs[key].side1.sentences, pairs[key].side2.sentences) for key in ids}
            aligners["hunalign"] = run_hunalign(a.hunalign, dic_file, crawled, a.realign)
        notes.append(f"hunalign: {lang1} source, dictionary {dic or 'none'} ({entries} entries)"
                     f"{', -realign' if a.realign else ''}")
    else:
        notes.append("hunalign skipped (no --hunalign PATH)")
    results: dict[str, dict] = {}
    blocks = []
    for subset, keys in (("page pairs the project paired", sorted(project)), ("all covered page pairs", sorted(pairs))):
        scores = {}
        for name, beads in aligners.items():
            sc = Score()
            for key in keys:
                sc.add(score(pairs[key], beads.get(key, [])))
            scores[name] = sc
        blocks.append(table(f"{subset} ({len(keys)}):", scores))
        results[subset] = {name: {**{k: dict(v) if isinstance(v, Counter) else v for k, v in vars(sc).items()},
                                  **sc.figures()} for name, sc in scores.items()}
    loss = splitter_loss(pairs, lang1, lang2)
    print("\n".join(notes) + "\n")
    print("\n\n".join(blocks))
    print("\nP/R strict: exact 1-1 gold pairs; cons: beads equal to runs of adjacent gold pairs; scope: beads "
          "touching gold sentences;\nR intact: strict recall of gold pairs whose sentences the splitter kept whole.")
    print_loss(loss, a.examples)
    if a.json:
        a.json.write_text(json.dumps({"langs": f"{lang1}-{lang2}", "notes": notes, "scores": results,
                                      "splitter": loss}, ensure_ascii=False, indent=1), "utf-8")
    return 0


def _dictionary(option: str | None, lang1: str, lang2: str) -> Path | None:
    if option == "none":
        return None
    if option:
        return Path(option)
    for name in (f"{lang1}-{lang2}.dic", f"{lang2}-{lang1}.dic"):
        if (SHARED / "data" / "dics" / name).is_file():
            return SHARED / "data" / "dics" / name
    return None


def print_loss(loss: dict[str, dict], n_examples: int) -> None:
    print("\nsplitter loss (gold sentences not one project sentence):")
    for lang, info in loss.items():
        kinds = info["kinds"]
        total = info["sentences"] or 1
        print(f"  {lang}: {info['sentences']} gold sentences; " + ", ".join(
            f"{k} {kinds.get(k, 0)} ({kinds.get(k, 0) / total:.1%})"
            for k in ("intact", "glued", "cut", "straddling", "missing: other language", "missing")))
        print("    boundaries the splitter missed (gold boundary inside a sentence) or added (inside a gold sentence):")
        for kind, n in sorted(info["boundaries"].items(), key=lambda kv: -kv[1]):
            print(f"    {n:4}  {kind}")
            for ex in info["examples"][kind][:n_examples]:
                print(f"            {ex}")
        for kind in ("missing: other language", "missing"):
            if info["examples"].get(kind):
                print(f"    {kinds[kind]:4}  {kind} (sentences), e.g.")
                for ex in info["examples"][kind][:n_examples]:
                    print(f"            {ex}")


if __name__ == "__main__":
    sys.exit(main())
