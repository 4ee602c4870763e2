"""jusText's paragraphs of a cleaned DOM, made by walking the tree instead of through SAX.

Pomikálek's jusText (the boilerplate classifier behind ILSP-FC's main-content step, section 3.7)
cuts the page into paragraphs at block-level tags and at ``<br><br>``, and records for each its
text nodes, the characters inside links and its element path.  jusText does this with a SAX
handler fed by ``lxml.sax.saxify``: for every element saxify builds the namespace map, the
attribute dictionary and the qualified name, and every paragraph started (three quarters of them
at an empty block boundary) formats its path twice.  That was two thirds of the main-content
step's time in a page parse.

:func:`make_paragraphs` gives the same paragraphs (text, link characters, tag count, ``dom_path``
and ``xpath``) from a walk of the tree, keeping a paragraph's path as a tuple until it is asked
for.  jusText's classification (``classify_paragraphs``, ``revise_paragraph_classification``)
reads them unchanged.  One difference from jusText's own handler is kept on purpose:
whitespace-only text between inline elements becomes a space (jusText drops it, which glues
``<a>read</a> <b>more</b>`` into "readmore").
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from justext.core import PARAGRAPH_TAGS
from justext.paragraph import HEADINGS_PATTERN
from lxml.etree import ProcessingInstruction

_WHITESPACE = re.compile(r"\s+")


class Block:
    """One jusText paragraph: the attributes and methods jusText's classification reads."""

    __slots__ = ("_dom_path", "_path", "_text", "cf_class", "chars_count_in_links", "class_type", "heading",
                 "inside", "tags_count", "text_nodes")

    def __init__(self, path: tuple[tuple[str, int], ...], inside: bool = False) -> None:
        self._path = path
        self.inside = inside  # opened within one of the elements make_paragraphs was asked about
        self._dom_path: str | None = None
        self._text: str | None = None
        self.text_nodes: list[str] = []
        self.chars_count_in_links = 0
        self.tags_count = 0
        self.class_type = ""  # short | neargood | good | bad (set by jusText's classification)
        self.cf_class = ""
        self.heading = False

    @property
    def dom_path(self) -> str:
        """Dotted tag names from the root (``html.body.div.p``)."""
        if self._dom_path is None:  # read twice by jusText's classification, once by the caller
            self._dom_path = ".".join([tag for tag, _ in self._path])
        return self._dom_path

    @property
    def xpath(self) -> str:
        """The element's path with sibling positions (``/html[1]/body[1]/div[2]``)."""
        return "/" + "/".join(f"{tag}[{order}]" for tag, order in self._path)

    @property
    def text(self) -> str:
        # Joined and normalized once: jusText asks for it for the length, the word count, the
        # stopword count and the link density of every paragraph.
        if self._text is None:
            self._text = " ".join("".join(self.text_nodes).split())
        return self._text

    def __len__(self) -> int:
        return len(self.text)

    @property
    def is_heading(self) -> bool:
        return bool(HEADINGS_PATTERN.search(self.dom_path))

    @property
    def is_boilerplate(self) -> bool:
        return self.class_type != "good"

    @property
    def words_count(self) -> int:
        return len(self.text.split())

    def contains_text(self) -> bool:
        return bool(self.text_nodes)

    def stopwords_count(self, stopwords: frozenset[str]) -> int:
        # Lower-casing the text before splitting gives the words jusText lower-cases one by one.
        return sum(map(stopwords.__contains__, self.text.lower().split()))

    def stopwords_density(self, stopwords: frozenset[str]) -> float:
        words = self.text.lower().split()
        return 0 if not words else sum(map(stopwords.__contains__, words)) / len(words)

    def links_density(self) -> float:
        length = len(self.text)
        return 0 if length == 0 else self.chars_count_in_links / length


class _Walk:
    """The walk's state: the open elements, the current paragraph and the finished ones."""

    def __init__(self, inside: Collection[Any]) -> None:
        self.inside = inside
        self.open_inside = 0  # how many of the open elements are in ``inside``
        self.path: list[tuple[str, int]] = []
        # Per open element (and one for the document), how many children of each tag it has had.
        self.children: list[dict[str, int]] = [{}]
        self.paragraphs: list[Block] = []
        self.paragraph = Block(())
        self.link = False
        self.br = False

    def new_paragraph(self) -> None:
        # jusText tests the paragraph's truth, which is its length: whitespace alone is no paragraph.
        if self.paragraph.text_nodes and self.paragraph.text:
            self.paragraphs.append(self.paragraph)
        self.paragraph = Block(tuple(self.path), self.open_inside > 0)

    def text(self, content: str) -> None:
        if content.isspace():
            if self.paragraph.text_nodes:
                self.paragraph.text_nodes.append(" ")
            return
        self.paragraph.text_nodes.append(content)
        if self.link:
            # jusText counts the node's length with each whitespace run made one character.
            self.paragraph.chars_count_in_links += len(_WHITESPACE.sub(" ", content))
        self.br = False

    def element(self, el: Any) -> None:
        tag = el.tag
        if not isinstance(tag, str):  # a comment or processing instruction: only its tail is text
            if el.tail:
                self.text(el.tail)
            return
        name = tag.rpartition("}")[2]
        siblings = self.children[-1]
        order = siblings.get(name, 0) + 1
        siblings[name] = order
        self.path.append((name, order))
        self.children.append({})
        marked = bool(self.inside) and el in self.inside
        self.open_inside += marked
        if name in PARAGRAPH_TAGS or (name == "br" and self.br):
            if name == "br":
                # <br><br> separates paragraphs and is not one of the paragraph's tags.
                self.paragraph.tags_count -= 1
            self.new_paragraph()
        else:
            self.br = name == "br"
            if self.br:
                self.paragraph.text_nodes.append(" ")
            elif name == "a":
                self.link = True
            self.paragraph.tags_count += 1
        if el.text:
            self.text(el.text)
        for child in el:
            self.element(child)
        self.path.pop()
        self.children.pop()
        self.open_inside -= marked
        if name in PARAGRAPH_TAGS:
            self.new_paragraph()
        if name == "a":
            self.link = False
        if el.tail:
            self.text(el.tail)


def make_paragraphs(root: Any, inside: Collection[Any] = ()) -> list[Block]:
    """The paragraphs of ``root`` (an lxml element, after jusText's preprocessing) in document
    order, as ``justext.core.ParagraphMaker.make_paragraphs`` cuts them.  ``Block.inside`` tells
    whether a paragraph was opened within one of the elements of ``inside`` (a set of elements
    of ``root``'s tree), as a prefix test of the paragraph's xpath on theirs would."""
    walk = _Walk(inside)
    # As saxify: processing instructions beside the root element give their tails.
    before = []
    sibling = root.getprevious()
    while sibling is not None and sibling.tag is ProcessingInstruction:
        before.append(sibling)
        sibling = sibling.getprevious()
    for sibling in reversed(before):
        walk.element(sibling)
    walk.element(root)
    sibling = root.getnext()
    while sibling is not None and sibling.tag is ProcessingInstruction:
        walk.element(sibling)
        sibling = sibling.getnext()
    walk.new_paragraph()
    return walk.paragraphs
