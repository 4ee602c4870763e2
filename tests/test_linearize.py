import random

import numpy as np

from matchers.page.linearize import _WORD_RE, linearize, tag_code, word_count


def test_word_count_spaced_and_cjk():
    assert word_count("Hello, wide world!") == 3
    assert word_count("l'homme est là") == 3
    assert word_count("日本語のテキスト") == 4  # 8 characters, two per word
    assert word_count("   ") == 0
    assert word_count("안녕하세요 세계") == 2


def test_word_count_equals_the_regex_count_on_random_text():
    # word_count skips the regex for plain tokens; the count must stay that of the regex.
    rnd = random.Random(7)
    alphabet = "ab\u00e91_'\u2019-\u2013,. \u00a0\t(x)\u093e\u00b2\u216b\u00ab\u00bb\u0301"
    for _ in range(20000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        assert word_count(text) == len(_WORD_RE.findall(text)), repr(text)
    assert word_count("(one), two-three l'autre \u2013 \u00abquatre\u00bb 5\u00b2 foo_bar") == 7


def test_strand_sequence_attributes_erased_text_counted():
    html = '<html><body><p class="x">one two <b id="y">three</b> four</p><br><img src="a.png"></body></html>'
    lin = linearize(html)
    expected = [
        tag_code("html"), tag_code("body"), tag_code("p"), 2, tag_code("b"), 1, tag_code("b", True), 1,
        tag_code("p", True), tag_code("br"), tag_code("img"), tag_code("body", True), tag_code("html", True),
    ]
    assert lin.tokens.tolist() == expected
    assert lin.tokens.dtype == np.int32
    assert lin.n_tags == 6
    assert lin.images == ["a.png"]
    assert lin.blocks == ["one two three four"]


def test_script_and_style_content_is_not_text():
    html = "<html><head><title>T x</title><script>var a = 'many words here';</script>" \
           "<style>p {color: red}</style></head><body><p>hi</p></body></html>"
    lin = linearize(html)
    assert lin.title == "T x"
    assert "many" not in lin.text and "color" not in lin.text
    assert lin.blocks == ["T x", "hi"]
    assert tag_code("script") in lin.tokens.tolist()


def test_broken_and_empty_html_do_not_raise():
    assert len(linearize("").tokens) == 0
    lin = linearize("<p>unclosed <div>nested <b>bold</p> tail")
    assert lin.n_tags >= 3
    assert "tail" in lin.text
    assert linearize('<?xml version="1.0" encoding="utf-8"?><html><body>x y</body></html>').text == "x y"


def test_declared_lang_and_paragraphs():
    lin = linearize('<html lang="FR"><body><h1>Titre</h1><p>Un deux</p><ul><li>a</li><li>b</li></ul></body></html>')
    assert lin.declared_lang == "fr"
    assert lin.n_paragraphs == 4


def test_max_tokens_stops_early():
    html = "<html><body>" + "<p>x</p>" * 1000 + "</body></html>"
    assert len(linearize(html, max_tokens=100).tokens) <= 102
