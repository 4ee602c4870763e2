"""The tree walk of matchers.page.text_blocks cuts pages into the paragraphs jusText's SAX handler cuts."""

from __future__ import annotations

import random

import justext.core
import lxml.html
import pytest

from bitext_spider.demo.site import generate_site
from matchers.page.main_content import _prepare, extract_paragraphs
from matchers.page.text_blocks import make_paragraphs


class _SaxParagraphs(justext.core.ParagraphMaker):
    """jusText's own paragraph maker with the one change the walk makes on purpose: whitespace
    between inline elements is a space."""

    def characters(self, content: str) -> None:
        if content and content.isspace():
            if self.paragraph.text_nodes:
                self.paragraph.append_text(" ")
            return
        super().characters(content)


def _fields(paragraphs: list) -> list[tuple]:
    # jusText keeps a newline where a whitespace run had one; the walk's text is split and joined
    # as main_content reads it (the lengths jusText classifies by are the same either way).
    return [(" ".join(p.text.split()), len(p), p.dom_path, p.xpath, p.chars_count_in_links, p.tags_count, p.is_heading)
            for p in paragraphs]


def _both(html: str) -> tuple[list[tuple], list[tuple]]:
    dom, _ = _prepare(justext.core.html_to_dom(html))
    return _fields(_SaxParagraphs.make_paragraphs(dom)), _fields(make_paragraphs(dom))


TRICKY = [
    # <br><br> splits, a single <br> is a space, whitespace-only leftovers are no paragraph.
    "<html><body><ul>\n <li><a href='x'>Ruby</a></li>\n <br/>\n <hr/>\n </ul><p>hello there</p></body></html>",
    "<html><body><div>one<br>two<br><br>three <b>bold</b> <i>it</i><br/><br/></div></body></html>",
    # Link characters count whitespace runs as one character.
    "<html><body><p>see <a href='/a'>the   long\n\n link  text</a> and more words here</p></body></html>",
    # Repeated sibling tags number their paths; headings inside list items.
    "<html><body><div><p>a</p><p>b</p><span>c</span><p>d</p></div><ul><li><h3>Head</h3> body</li></ul></body></html>",
    # Comments, processing instructions, scripts and forms (removed or kept by jusText's cleaning).
    "<?xml-stylesheet href='a.css'?><html><body><!-- note --><p>x<!-- c -->y</p><script>var a;</script>"
    "<form><p>in form</p><input value='v'></form><?php echo 1; ?>tail text</body></html>",
    # Namespaced and unknown tags, inline SVG, tables.
    "<html><body><svg><title>icon</title><text>svg words</text></svg><my:tag>custom</my:tag>"
    "<table><tr><td>cell one</td><td>cell <a href='#'>two</a></td></tr></table></body></html>",
    # Text before and after the body, nested anchors.
    "lead text<html><body><a href='1'>out <a href='2'>in</a> after</a></body></html> trailing",
]


@pytest.mark.parametrize("html", TRICKY)
def test_tricky_pages_give_jusText_paragraphs(html: str) -> None:
    sax, walk = _both(html)
    assert walk == sax


_TAGS = ["div", "p", "span", "a", "b", "br", "br", "li", "ul", "h2", "td", "tr", "table", "em", "section", "pre"]
_WORDS = ["alpha", "beta", "gamma", "the", "and", "of", "\u00a0", " ", "\n", "\t", "©", "x y"]


def _random_html(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.45 and depth < 7:
            tag = rng.choice(_TAGS)
            inner = "" if tag == "br" else _random_html(rng, depth + 1)
            parts.append(f"<{tag}>" if tag == "br" else f"<{tag}>{inner}</{tag}>")
        elif r < 0.5:
            parts.append("<!-- c -->")
        else:
            parts.append(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6))))
    return "".join(parts)


def test_random_markup_gives_jusText_paragraphs() -> None:
    rng = random.Random(7)
    for _ in range(400):
        html = f"<html><body>{_random_html(rng)}</body></html>"
        sax, walk = _both(html)
        assert walk == sax, html


def test_generated_site_pages_give_jusText_paragraphs(tmp_path) -> None:
    info = generate_site(tmp_path / "site", base_url="http://127.0.0.1:1", n_docs=6, langs=("en", "de", "ja"), seed=3)
    pages = sorted((tmp_path / "site" / "www").rglob("*.html"))
    assert len(pages) >= 18 and info.page_count >= 18
    for page in pages:
        html = page.read_text("utf-8", errors="replace")
        sax, walk = _both(html)
        assert walk == sax, page
        assert extract_paragraphs(html, "en") is not None


def test_parse_tree_is_read_not_changed() -> None:
    dom = lxml.html.fromstring("<html><body><p>one <a href='x'>two</a></p><div>three</div></body></html>")
    before = lxml.html.tostring(dom)
    assert [p.text for p in make_paragraphs(dom)] == ["one two", "three"]
    assert lxml.html.tostring(dom) == before
