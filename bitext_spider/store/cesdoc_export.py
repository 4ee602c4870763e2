"""``bitext export documents --format cesdoc``: one XCES ``cesDoc`` per stored document and one
``cesAlign`` per final pair, as ILSP-FC's Exporter writes them.

Papavassiliou et al., *ILSP-FC* (section 3.7): "an XML file for each stored web document.  Each
file contains metadata (e.g. language, domain, URL, etc.) about the corresponding document inside
a header element.  Moreover, a ``<body>`` element contains the content of the document segmented
in paragraphs", each ``<p>`` with the attributes ``crawlinfo`` (``boilerplate``, or ``ooi-lang``:
not in the document's language), ``type`` (``title``, ``heading``, ``listitem``) and ``topic``
(the domain terms found in the paragraph).

What is exported:

* documents: the stored pages that have main content; on a focused crawl (``-a domain=FILE``)
  only the pages relevant to its domain, as ILSP-FC stores only those.
* the header: title, URL, fetch date, language, and on a focused crawl the domain, its
  subdomains found on the page, the domain terms found (``keyTerm``) and the page's p and m.
* the body: the main-content paragraphs as stored (``pages.paragraphs``: kind, language, text),
  with ``type``, ``crawlinfo="ooi-lang"`` and ``topic``.  Boilerplate is not stored as
  paragraphs (it would double every page row for text that no pairing reads); it is recovered
  from the page's stored text blocks (``pages.text``, every block-level element's text in document
  order): a block that is not one of the main-content paragraphs is written, in its place, as a
  ``<p crawlinfo="boilerplate">``.
* pairs: each final pair as a ``cesAlign`` naming the two documents' files.

Output: ``-o DIR`` writes ``DIR/<page id>.xml`` per document and ``DIR/<l1>-<l2>_<id1>_<id2>.xml``
per pair; ``-o FILE.xml`` (or standard output) writes one ``cesCorpus`` holding every ``cesDoc``
and then every ``cesAlign``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from lxml import etree
from sqlalchemy import select
from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.models import PageRow, PairRow
from bitext_spider.store.output import open_output

XCES = "http://www.xces.org/schema/2003"
XLINK = "http://www.w3.org/1999/xlink"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_NSMAP = {None: XCES, "xlink": XLINK}
# Characters XML 1.0 forbids (C0 controls but tab, newline, carriage return; surrogates; FFFE/FFFF).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TYPES = {"title": "title", "heading": "heading", "listitem": "listitem"}
_SPACES = re.compile(r"\s+")


def _text(value: Any) -> str:
    return _XML_INVALID.sub("", str(value or ""))


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


@dataclass
class Document:
    """A stored page as exported: its row's fields."""

    id: int
    url: str
    lang: str
    title: str
    fetched_at: float
    content_type: str
    paragraphs: list[Any]
    blocks: list[str]
    topic: dict[str, Any] | None

    @property
    def file_name(self) -> str:
        return f"{self.id}.xml"


def body_paragraphs(doc: Document, boilerplate: bool = True) -> list[dict[str, str]]:
    """The ``<p>`` elements of a document as attribute dicts with a ``text`` key, in document order
    (module docstring: main-content paragraphs, and the other text blocks as boilerplate)."""
    topics = (doc.topic or {}).get("paragraphs") or []
    main = []
    for i, p in enumerate(doc.paragraphs):
        kind, lang, text = (list(p) + ["", "", ""])[:3]
        attrs: dict[str, str] = {}
        if kind in _TYPES:
            attrs["type"] = _TYPES[kind]
        if lang and lang != "und" and doc.lang and lang.split("-")[0] != doc.lang.split("-")[0]:
            attrs["crawlinfo"] = "ooi-lang"
        terms = topics[i] if i < len(topics) else []
        if terms:
            attrs["topic"] = ";".join(terms)
        attrs["text"] = text
        main.append(attrs)
    if not boilerplate or not doc.blocks:
        return main
    keys = [_norm(p["text"]) for p in main]
    key_set = set(keys)
    out: list[dict[str, str]] = []
    i = 0
    for block in doc.blocks:
        norm = _norm(block)
        if not norm:
            continue
        if i < len(keys) and keys[i] and keys[i] in norm:
            # The block holds the next main-content paragraph(s): jusText splits at <br> too.
            while i < len(keys) and keys[i] in norm:
                out.append(main[i])
                i += 1
        elif norm in key_set or any(norm in k for k in keys[i:i + 3]):
            continue  # a main-content paragraph placed elsewhere, or a part of the next one
        else:
            out.append({"crawlinfo": "boilerplate", "text": block})
    out.extend(main[i:])
    return out


def ces_doc(doc: Document, boilerplate: bool = True) -> etree._Element:
    """The ``cesDoc`` element of one document."""
    root = etree.Element(f"{{{XCES}}}cesDoc", nsmap=_NSMAP, version="0.4")
    header = etree.SubElement(root, "cesHeader", version="0.4")
    file_desc = etree.SubElement(header, "fileDesc")
    title_stmt = etree.SubElement(file_desc, "titleStmt")
    etree.SubElement(title_stmt, "title").text = _text(doc.title)
    resp = etree.SubElement(etree.SubElement(title_stmt, "respStmt"), "resp")
    etree.SubElement(resp, "type").text = "Crawling, normalization and pairing"
    etree.SubElement(resp, "name").text = "bitext-spider"
    pub = etree.SubElement(file_desc, "publicationStmt")
    etree.SubElement(pub, "distributor").text = "bitext-spider"
    etree.SubElement(pub, "eAddress", type="web").text = _text(doc.url)
    fetched = dt.datetime.fromtimestamp(doc.fetched_at or 0, dt.timezone.utc)
    etree.SubElement(pub, "pubDate").text = fetched.strftime("%Y-%m-%dT%H:%M:%SZ")
    imprint = etree.SubElement(etree.SubElement(etree.SubElement(etree.SubElement(
        file_desc, "sourceDesc"), "biblStruct"), "monogr"), "imprint")
    etree.SubElement(imprint, "format").text = _text(doc.content_type.split(";")[0].strip() or "text/html")
    etree.SubElement(imprint, "eAddress").text = _text(doc.url)
    profile = etree.SubElement(header, "profileDesc")
    etree.SubElement(etree.SubElement(profile, "langUsage"), "language", iso639=doc.lang)
    topic = doc.topic
    if topic:
        text_class = etree.SubElement(profile, "textClass")
        keywords = etree.SubElement(text_class, "keywords")
        for term in topic.get("terms") or {}:
            etree.SubElement(keywords, "keyTerm").text = _text(term)
        etree.SubElement(text_class, "domain").text = _text(topic.get("domain"))
        for name in topic.get("subdomains") or []:
            etree.SubElement(text_class, "subdomain").text = _text(name)
        etree.SubElement(text_class, "relevance", p=f"{float(topic.get('p', 0)):g}", m=str(topic.get("m", 0)),
                         relevant="yes" if topic.get("relevant") else "no")
    body = etree.SubElement(etree.SubElement(root, "text"), "body")
    for n, attrs in enumerate(body_paragraphs(doc, boilerplate), start=1):
        p = etree.SubElement(body, "p", id=f"p{n}")
        for key in ("crawlinfo", "type", "topic"):
            if key in attrs:
                p.set(key, _text(attrs[key]))
        p.text = _text(attrs["text"])
    return root


def ces_align(doc1: tuple[str, str], doc2: tuple[str, str], score: float) -> etree._Element:
    """The ``cesAlign`` of a pair of documents, each ``(file name, language)``."""
    root = etree.Element(f"{{{XCES}}}cesAlign", nsmap=_NSMAP, version="1.0")
    translations = etree.SubElement(etree.SubElement(etree.SubElement(root, "cesHeader", version="1.0"),
                                                     "profileDesc"), "translations")
    for n, (name, lang) in enumerate((doc1, doc2), start=1):
        etree.SubElement(translations, "translation", {"trans.loc": name, _XML_LANG: lang, "wsd": "UTF-8",
                                                       "n": str(n)})
    link_list = etree.SubElement(root, "linkList")
    etree.SubElement(link_list, "linkGrp", targType="text", fromDoc=doc1[0], toDoc=doc2[0], score=f"{score:.6g}")
    return root


def documents(store: Store) -> Iterator[Document]:
    """The exported documents (module docstring), by page id."""
    with Session(store.engine) as s:
        rows = s.execute(
            select(PageRow.id, PageRow.url, PageRow.lang, PageRow.title, PageRow.fetched_at, PageRow.content_type,
                   PageRow.paragraphs, PageRow.text, PageRow.topic).order_by(PageRow.id)
            .execution_options(yield_per=200)
        )
        for row in rows:
            if not row.paragraphs or not row.lang or (row.topic and not row.topic.get("relevant")):
                continue
            yield Document(row.id, row.url, row.lang, row.title or "", row.fetched_at or 0.0,
                           row.content_type or "", list(row.paragraphs), (row.text or "").split("\n"), row.topic)


def pairs(store: Store, exported: set[int]) -> Iterator[tuple[int, str, int, str, float]]:
    """Final pairs whose two documents were exported: (id1, lang1, id2, lang2, score)."""
    with Session(store.engine) as s:
        for r in s.execute(select(PairRow.page1_id, PairRow.lang1, PairRow.page2_id, PairRow.lang2, PairRow.score)
                           .order_by(PairRow.id)):
            if r.page1_id in exported and r.page2_id in exported:
                yield r.page1_id, r.lang1, r.page2_id, r.lang2, r.score


def _write(element: etree._Element, path: Path) -> None:
    etree.ElementTree(element).write(str(path), xml_declaration=True, encoding="UTF-8", pretty_print=True)


def write_directory(store: Store, directory: Path, boilerplate: bool = True) -> tuple[int, int]:
    """One file per document and per pair in ``directory``; (documents, pairs) written."""
    directory.mkdir(parents=True, exist_ok=True)
    exported: set[int] = set()
    for doc in documents(store):
        _write(ces_doc(doc, boilerplate), directory / doc.file_name)
        exported.add(doc.id)
    n_pairs = 0
    for id1, lang1, id2, lang2, score in pairs(store, exported):
        _write(ces_align((f"{id1}.xml", lang1), (f"{id2}.xml", lang2), score),
               directory / f"{lang1}-{lang2}_{id1}_{id2}.xml")
        n_pairs += 1
    return len(exported), n_pairs


def write_corpus(store: Store, out: IO[bytes], boilerplate: bool = True) -> tuple[int, int]:
    """Every document, then every pair, in one ``cesCorpus`` written as it goes."""
    exported: set[int] = set()
    n_pairs = 0
    with etree.xmlfile(out, encoding="utf-8") as xf:
        xf.write_declaration()
        with xf.element(f"{{{XCES}}}cesCorpus", nsmap=_NSMAP, version="0.4"):
            xf.write("\n")
            for doc in documents(store):
                xf.write(ces_doc(doc, boilerplate), pretty_print=True)
                exported.add(doc.id)
            for id1, lang1, id2, lang2, score in pairs(store, exported):
                xf.write(ces_align((f"{id1}.xml", lang1), (f"{id2}.xml", lang2), score), pretty_print=True)
                n_pairs += 1
    return len(exported), n_pairs


def write_documents(store: Store, output: str | None, boilerplate: bool = True) -> tuple[int, int]:
    """``-o DIR`` (no ``.xml``/``.xml.gz`` name), ``-o FILE.xml[.gz]`` or standard output (None)."""
    if output and output != "-" and not output.endswith((".xml", ".xml.gz")):
        return write_directory(store, Path(output), boilerplate)
    with open_output(output, binary=True) as fh:
        return write_corpus(store, fh, boilerplate)
