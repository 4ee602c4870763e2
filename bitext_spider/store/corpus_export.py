"""Sentence-level corpus export: the aligned sentences of final pairs as TSV, JSONL, Bitextor's
columns, TMX or Moses.

Only sentences of final pairs (rows of ``pairs``) are exported.  Each sentence pair is oriented
with its two languages in sorted order (``en``/``fr``, never ``fr``/``en``) and its text cleaned
(:func:`clean_text`).  A pair whose two sides are the same text but for case, digits, URLs and
punctuation (a number, a name, an untranslated sentence) is left out, as Bicleaner's hard rules
do (matchers.content.hard_rules); identical pairs found on several page pairs are written once, with the best
score and every source URL pair in order of occurrence, each with the score the aligner gave the
pair on that page pair.  Output order: language pair, then first
occurrence (page pair ids, then position in the page pair).

Reading takes two passes over the sentences so that memory holds a 16-byte digest and the source
page ids per distinct pair, never the texts: the first pass gathers scores and sources, the
second writes each pair at its first occurrence.  A crawl writing meanwhile can change the pairs
between the passes; sentence pairs seen by only one pass are left out.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import io
import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from lxml import etree
from sqlalchemy import and_, case, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.models import PageRow, PairRow, SentenceRow
from bitext_spider.store.output import is_gzip, open_output
from matchers.content.hard_rules import same_text
from matchers.page.lang_codes import primary_subtag

TSV_COLUMNS = ["lang1", "lang2", "text1", "text2", "score", "url1", "url2"]
# URLs never contain a literal space (``_url_cell`` percent-encodes any that a page URL might hold),
# so a space separates the sources of a deduplicated pair in the url1/url2 columns.
URL_SEPARATOR = " "

TMX_DTD_RESOURCE = "tmx14.dtd"
TMX_DOCTYPE = '<!DOCTYPE tmx SYSTEM "tmx14.dtd">'
# Bitextor's TMX props: each variant's page as "source-document", the aligner's score as
# "score-aligner" (corpus tools that read Bitextor's TMX find them there).
TMX_SCORE_PROP = "score-aligner"
TMX_URL_PROP = "source-document"
BITEXTOR_COLUMNS = ["url1", "url2", "text1", "text2", "score"]
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

# Characters XML 1.0 forbids.  The C0 controls that Python counts as whitespace (\x0b, \x0c,
# \x1c-\x1f) are left to clean_text's whitespace collapsing, so they still separate words.
_XML_INVALID = re.compile("[\x00-\x08\x0e-\x1b\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> str:
    """Drop XML-invalid characters and collapse every whitespace run (newlines, tabs...) to a space."""
    return " ".join(_XML_INVALID.sub("", text).split())


@dataclass
class SentencePair:
    """One deduplicated sentence pair; ``sources[i]`` is a (url1, url2) pair, url1 in ``lang1``,
    and ``source_scores[i]`` the aligner's score on that page pair (``score`` is the best of them)."""

    lang1: str
    lang2: str
    text1: str
    text2: str
    score: float
    sources: list[tuple[str, str]]
    source_scores: list[float]


@dataclass(frozen=True)
class _Row:
    lang1: str
    lang2: str
    text1: str
    text2: str
    score: float
    page1: int
    page2: int
    url1: str
    url2: str

    @property
    def digest(self) -> bytes:
        # NUL cannot occur in cleaned text, so the join is unambiguous.
        key = "\x00".join((self.lang1, self.lang2, self.text1, self.text2))
        return hashlib.blake2b(key.encode("utf-8"), digest_size=16).digest()


def _sentence_rows(engine: Engine, min_score: float | None) -> Iterator[_Row]:
    """Cleaned, language-sorted sentence rows of final pairs, in export order; empty sides dropped."""
    s, p1, p2 = SentenceRow, aliased(PageRow), aliased(PageRow)
    in_order = s.lang1 <= s.lang2
    q = (
        select(s.lang1, s.lang2, s.text1, s.text2, s.score, s.page1_id, s.page2_id,
               p1.url.label("url1"), p2.url.label("url2"))
        .join(PairRow, and_(PairRow.page1_id == s.page1_id, PairRow.page2_id == s.page2_id))
        .join(p1, p1.id == s.page1_id)
        .join(p2, p2.id == s.page2_id)
        .order_by(
            case((in_order, s.lang1), else_=s.lang2),
            case((in_order, s.lang2), else_=s.lang1),
            s.page1_id, s.page2_id, s.position,
        )
    )
    if min_score is not None:
        q = q.where(s.score >= min_score)
    with Session(engine) as session:
        for r in session.execute(q.execution_options(yield_per=1000)):
            text1, text2 = clean_text(r.text1 or ""), clean_text(r.text2 or "")
            if not text1 or not text2 or same_text(text1, text2):
                continue  # an empty side, or the same text twice: no translation (Bicleaner's hard rules)
            if r.lang1 <= r.lang2:
                yield _Row(r.lang1, r.lang2, text1, text2, r.score, r.page1_id, r.page2_id, r.url1, r.url2)
            else:
                yield _Row(r.lang2, r.lang1, text2, text1, r.score, r.page2_id, r.page1_id, r.url2, r.url1)


def read_sentence_pairs(engine: Engine, min_score: float | None = None) -> Iterator[SentencePair]:
    """Deduplicated sentence pairs of final pairs (module docstring); only ``score >= min_score`` if given."""
    # digest -> [best score, [(lang1 page id, lang2 page id), ...], [score on that page pair, ...]]
    seen: dict[bytes, list[Any]] = {}
    urls: dict[int, str] = {}
    for row in _sentence_rows(engine, min_score):
        urls.setdefault(row.page1, row.url1)
        urls.setdefault(row.page2, row.url2)
        source, digest = (row.page1, row.page2), row.digest
        entry = seen.get(digest)
        if entry is None:
            seen[digest] = [row.score, [source], [row.score]]
            continue
        entry[0] = max(entry[0], row.score)
        # A page pair's rows are consecutive, so a repeated source can only be the last one.
        if entry[1][-1] != source:
            entry[1].append(source)
            entry[2].append(row.score)
        else:
            entry[2][-1] = max(entry[2][-1], row.score)
    for row in _sentence_rows(engine, min_score):
        entry = seen.pop(row.digest, None)
        if entry is None or row.page1 not in urls or row.page2 not in urls:
            continue  # written already, or new since the first pass
        yield SentencePair(
            row.lang1, row.lang2, row.text1, row.text2, entry[0],
            [(urls[a], urls[b]) for a, b in entry[1]], entry[2],
        )


def _url_cell(url: str) -> str:
    """The URL with any whitespace percent-encoded, so it never holds the separator or a line break."""
    return re.sub(r"\s", lambda m: quote(m.group(0)), url)


def _score(value: float) -> str:
    return f"{value:.6g}"


def write_tsv(pairs: Iterable[SentencePair], out: IO[str]) -> int:
    """TSV with a header line; several sources go space-separated, url1[i] with url2[i]."""
    out.write("\t".join(TSV_COLUMNS) + "\n")
    n = 0
    for p in pairs:
        url1 = URL_SEPARATOR.join(_url_cell(u) for u, _ in p.sources)
        url2 = URL_SEPARATOR.join(_url_cell(u) for _, u in p.sources)
        out.write("\t".join((p.lang1, p.lang2, p.text1, p.text2, _score(p.score), url1, url2)) + "\n")
        n += 1
    return n


def write_jsonl(pairs: Iterable[SentencePair], out: IO[str]) -> int:
    """One JSON object a line; ``sources`` is a list of ``[url1, url2]``."""
    n = 0
    for p in pairs:
        row = dict(lang1=p.lang1, lang2=p.lang2, text1=p.text1, text2=p.text2, score=round(p.score, 6),
                   sources=[list(s) for s in p.sources])
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        n += 1
    return n


def select_langs(pairs: Iterable[SentencePair], lang1: str, lang2: str) -> Iterator[SentencePair]:
    """Only the pairs of languages ``lang1`` and ``lang2`` (by base language: ``pt-br`` is ``pt``),
    oriented with ``lang1`` first."""
    want1, want2 = primary_subtag(lang1), primary_subtag(lang2)
    for p in pairs:
        have1, have2 = primary_subtag(p.lang1), primary_subtag(p.lang2)
        if (have1, have2) == (want1, want2):
            yield p
        elif (have2, have1) == (want1, want2):
            yield SentencePair(p.lang2, p.lang1, p.text2, p.text1, p.score, [(b, a) for a, b in p.sources],
                               p.source_scores)


def write_bitextor(pairs: Iterable[SentencePair], out: IO[str]) -> int:
    """Bitextor's sentence columns, no header: url1, url2, source sentence, target sentence, score.

    One row per source page pair with the aligner's score on that page pair, as Bitextor's aligner
    writes a sentence pair found on several document pairs; deduplication is left to the tools
    that follow (bifixer hashes the two texts, so the rows of one pair share a hash).  bifixer and
    Bicleaner read the texts from columns 3 and 4.  Returns the number of rows.
    """
    n = 0
    for p in pairs:
        for (url1, url2), score in zip(p.sources, p.source_scores, strict=True):
            out.write("\t".join((_url_cell(url1), _url_cell(url2), p.text1, p.text2, _score(score))) + "\n")
            n += 1
    return n


def _tool_version() -> str:
    try:
        return importlib.metadata.version("bitext-spider")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def _tu(p: SentencePair, tuid: int) -> etree._Element:
    tu = etree.Element("tu", tuid=str(tuid))
    etree.SubElement(tu, "prop", type=TMX_SCORE_PROP).text = _score(p.score)
    for lang, text, side in ((p.lang1, p.text1, 0), (p.lang2, p.text2, 1)):
        tuv = etree.SubElement(tu, "tuv", {_XML_LANG: lang})
        # Each variant lists the pages it was found on; the i-th URLs of the two variants belong together.
        for source in p.sources:
            url = _XML_INVALID.sub("", _url_cell(source[side]))
            etree.SubElement(tuv, "prop", type=TMX_URL_PROP).text = url
        etree.SubElement(tuv, "seg").text = text
    return tu


def write_tmx(pairs: Iterable[SentencePair], out: IO[bytes]) -> int:
    """TMX 1.4b, one ``<tu>`` per sentence pair, written as it goes (nothing is held in memory)."""
    n = 0
    with etree.xmlfile(out, encoding="utf-8") as xf:
        xf.write_declaration()
        xf.write_doctype(TMX_DOCTYPE)
        with xf.element("tmx", version="1.4"):
            xf.write("\n")
            header = etree.Element(
                "header",
                {"creationtool": "bitext-spider", "creationtoolversion": _tool_version(),
                 "segtype": "sentence", "o-tmf": "bitext-spider", "adminlang": "en",
                 "srclang": "*all*", "datatype": "plaintext"},
            )
            xf.write(header, "\n")
            with xf.element("body"):
                xf.write("\n")
                for p in pairs:
                    n += 1
                    xf.write(_tu(p, n), pretty_print=True)
            xf.write("\n")
    return n


def validate_tmx(source: str | Path | bytes) -> list[str]:
    """Errors of a TMX document (a path or its bytes) against the bundled TMX 1.4b DTD; [] when valid."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    try:
        if isinstance(source, bytes):
            doc = etree.parse(io.BytesIO(source), parser)
        else:
            doc = etree.parse(str(source), parser)
    except etree.XMLSyntaxError as exc:
        return [f"not well-formed XML: {exc}"]
    except OSError as exc:
        return [f"cannot read {source}: {exc}"]
    dtd_file = importlib.resources.files("bitext_spider") / "data" / TMX_DTD_RESOURCE
    with dtd_file.open("rb") as fh:
        dtd = etree.DTD(fh)
    if dtd.validate(doc):
        return []
    return [f"line {e.line}: {e.message}" for e in dtd.error_log.filter_from_errors()]


def _file_lang(lang: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", lang) or "und"


def write_moses(pairs: Iterable[SentencePair], prefix: str | Path) -> list[tuple[Path, int]]:
    """Line-aligned ``PREFIX.l1-l2.l1`` / ``PREFIX.l1-l2.l2`` files per language pair.

    Returns the files written with their line counts.  Pairs arrive grouped by language pair, so
    only one pair of files is open at a time.
    """
    counts: dict[tuple[str, str], int] = {}

    # A prefix ending in .gz gzips every file: PREFIX.l1-l2.l1.gz (the suffix moves to the end, where
    # open_output sees it).  open_output also creates the prefix's directories.
    gz = is_gzip(prefix)
    stem = str(prefix)[:-3] if gz else str(prefix)

    def names(langs: tuple[str, str]) -> tuple[Path, Path]:
        l1, l2 = _file_lang(langs[0]), _file_lang(langs[1])
        end = ".gz" if gz else ""
        return Path(f"{stem}.{l1}-{l2}.{l1}{end}"), Path(f"{stem}.{l1}-{l2}.{l2}{end}")

    for langs, group in itertools.groupby(pairs, key=lambda p: (p.lang1, p.lang2)):
        if langs[0] == langs[1]:
            continue  # both sides would go to one file; final pairs never have one language
        # Append if a group comes back (a database collation may order codes unlike Python).
        append = langs in counts
        path1, path2 = names(langs)
        n = counts.get(langs, 0)
        with open_output(path1, append=append) as f1, open_output(path2, append=append) as f2:
            for p in group:
                # clean_text already turned newlines and tabs into spaces, so one pair is one line.
                f1.write(p.text1 + "\n")
                f2.write(p.text2 + "\n")
                n += 1
        counts[langs] = n
    return [(path, n) for langs, n in counts.items() for path in names(langs)]
