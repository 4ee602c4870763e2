import pytest

from matchers.page.decoding import decode_html, looks_binary

FR = "<html><head><title>Été</title></head><body><p>Déjà vu à l'hôtel, où la fenêtre s'ouvre sur la forêt.</p></body></html>"
KO = "<html><body><p>" + "한국어 문서입니다. 서울의 날씨는 오늘 맑고 따뜻합니다. " * 20 + "</p></body></html>"
JA = "<html><body><p>" + "これは日本語の文書です。東京の天気は今日晴れて暖かいです。" * 20 + "</p></body></html>"


@pytest.mark.parametrize(
    "text,codec",
    [(FR, "iso-8859-1"), (KO, "euc-kr"), (JA, "shift_jis"), (FR, "utf-8"), (JA, "utf-8")],
)
def test_undeclared_charsets_are_detected(text, codec):
    decoded = decode_html(text.encode(codec))
    assert decoded.text == text


@pytest.mark.parametrize("codec", ["iso-8859-1", "euc-kr", "shift_jis"])
def test_header_charset_is_used(codec):
    text = {"iso-8859-1": FR, "euc-kr": KO, "shift_jis": JA}[codec]
    decoded = decode_html(text.encode(codec), f"text/html; charset={codec}")
    assert decoded.text == text
    assert decoded.source == "header"


def test_meta_charset_is_used():
    html = FR.replace("<head>", '<head><meta charset="iso-8859-1">')
    decoded = decode_html(html.encode("iso-8859-1"), "text/html")
    assert decoded.text == html
    assert decoded.source == "meta"


def test_wrong_header_charset_falls_back():
    # Served as UTF-8 but written in EUC-KR: strict UTF-8 decoding fails, detection wins.
    decoded = decode_html(KO.encode("euc-kr"), "text/html; charset=utf-8")
    assert decoded.text == KO


def test_utf8_mislabelled_as_latin1():
    decoded = decode_html(FR.encode("utf-8"), "text/html; charset=iso-8859-1")
    assert decoded.text == FR


def test_bom_wins():
    decoded = decode_html(b"\xef\xbb\xbf" + FR.encode("utf-8"), "text/html; charset=iso-8859-1")
    assert decoded.text == FR and decoded.source == "bom"


def test_binary_detection():
    assert looks_binary(b"%PDF-1.4 \x00\x01\x02")
    assert looks_binary(bytes(range(256)) * 4)
    assert not looks_binary(FR.encode("utf-8"))
    assert not looks_binary(JA.encode("shift_jis"))
    assert not looks_binary(b"")
