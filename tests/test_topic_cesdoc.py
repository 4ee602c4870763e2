"""``bitext export documents --format cesdoc``: ILSP-FC's per-document XML (section 3.7), read back."""

from __future__ import annotations

from lxml import etree
from sqlalchemy import insert

from bitext_spider.commands.cli import main as bitext
from bitext_spider.store.cesdoc_export import XCES, Document, body_paragraphs
from bitext_spider.store.models import PageRow, PairRow, SiteRow, make_engine

NS = {"x": XCES}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

EN_PARAGRAPHS = [["title", "en", "Character encodings"], ["heading", "en", "What is Unicode?"],
                 ["text", "en", "Unicode gives every character a code point."],
                 ["listitem", "en", "UTF-8 is a character encoding."],
                 ["text", "fr", "Une phrase en français au milieu de la page anglaise."]]
EN_BLOCKS = ["Character encodings", "Home | Articles | Contact", "What is Unicode?",
             "Unicode gives every character a code point.", "UTF-8 is a character encoding.",
             "Une phrase en français au milieu de la page anglaise.", "Copyright W3C"]
EN_TOPIC = {"domain": "i18n", "p": 1450.0, "m": 3, "relevant": True,
            "terms": {"Unicode": 2, "code point": 1, "character encoding": 2}, "subdomains": ["characters"],
            "paragraphs": [["character encoding"], ["Unicode"], ["Unicode", "code point"], ["character encoding"], []]}


def _db(path) -> str:
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    page = dict(site_id=1, content_type="text/html; charset=utf-8", fetched_at=1.7e9)
    with engine.begin() as conn:
        conn.execute(insert(SiteRow.__table__), [dict(id=1, key="s", start_urls=[])])
        conn.execute(insert(PageRow.__table__), [
            dict(page, id=1, url="http://s/a.en.html", lang="en", title="Character encodings",
                 paragraphs=EN_PARAGRAPHS, text="\n".join(EN_BLOCKS), topic=EN_TOPIC, eligible=True),
            dict(page, id=2, url="http://s/a.de.html", lang="de", title="Zeichenkodierungen",
                 paragraphs=[["title", "de", "Zeichenkodierungen"], ["text", "de", "Unicode für alle."]],
                 text="Zeichenkodierungen\nUnicode für alle.",
                 topic=dict(EN_TOPIC, terms={"Unicode": 1}, paragraphs=[[], ["Unicode"]]), eligible=True),
            dict(page, id=3, url="http://s/cooking.html", lang="en", title="Cooking",
                 paragraphs=[["text", "en", "Boil the pasta."]], text="Boil the pasta.",
                 topic=dict(EN_TOPIC, relevant=False, p=0, m=0, terms={}, paragraphs=[[]]), eligible=False),
            dict(page, id=4, url="http://s/empty.html", lang="en", title="", paragraphs=[], text="", topic=None,
                 eligible=False),
        ])
        conn.execute(insert(PairRow.__table__), [dict(site_id=1, page1_id=1, page2_id=2, lang1="en", lang2="de",
                                                      score=0.875)])
    engine.dispose()
    return url


def test_directory_export_writes_a_cesdoc_per_relevant_document_and_a_cesalign_per_pair(tmp_path, capsys):
    db = _db(tmp_path / "c.db")
    out = tmp_path / "xml"
    assert bitext(["export", "documents", "--db", db, "--format", "cesdoc", "-o", str(out)]) == 0
    assert "2 documents and 1 pairs exported" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["1.xml", "2.xml", "en-de_1_2.xml"]
    doc = etree.parse(str(out / "1.xml")).getroot()
    assert doc.tag == f"{{{XCES}}}cesDoc"
    assert doc.findtext("x:cesHeader/x:fileDesc/x:titleStmt/x:title", namespaces=NS) == "Character encodings"
    assert doc.findtext("x:cesHeader/x:fileDesc/x:publicationStmt/x:eAddress", namespaces=NS) == "http://s/a.en.html"
    assert doc.find("x:cesHeader/x:profileDesc/x:langUsage/x:language", NS).get("iso639") == "en"
    text_class = doc.find("x:cesHeader/x:profileDesc/x:textClass", NS)
    assert text_class.findtext("x:domain", namespaces=NS) == "i18n"
    assert [k.text for k in text_class.iterfind("x:keywords/x:keyTerm", NS)] == ["Unicode", "code point",
                                                                               "character encoding"]
    assert text_class.find("x:relevance", NS).attrib == {"p": "1450", "m": "3", "relevant": "yes"}
    paragraphs = [(dict(p.attrib), p.text) for p in doc.iterfind("x:text/x:body/x:p", NS)]
    assert paragraphs == [
        ({"id": "p1", "type": "title", "topic": "character encoding"}, "Character encodings"),
        ({"id": "p2", "crawlinfo": "boilerplate"}, "Home | Articles | Contact"),
        ({"id": "p3", "type": "heading", "topic": "Unicode"}, "What is Unicode?"),
        ({"id": "p4", "topic": "Unicode;code point"}, "Unicode gives every character a code point."),
        ({"id": "p5", "type": "listitem", "topic": "character encoding"}, "UTF-8 is a character encoding."),
        ({"id": "p6", "crawlinfo": "ooi-lang"}, "Une phrase en français au milieu de la page anglaise."),
        ({"id": "p7", "crawlinfo": "boilerplate"}, "Copyright W3C"),
    ]
    align = etree.parse(str(out / "en-de_1_2.xml")).getroot()
    assert align.tag == f"{{{XCES}}}cesAlign"
    translations = align.findall("x:cesHeader/x:profileDesc/x:translations/x:translation", NS)
    assert [(t.get("trans.loc"), t.get(XML_LANG)) for t in translations] == [("1.xml", "en"), ("2.xml", "de")]
    group = align.find("x:linkList/x:linkGrp", NS)
    assert (group.get("fromDoc"), group.get("toDoc"), group.get("score")) == ("1.xml", "2.xml", "0.875")


def test_one_file_export_is_a_cescorpus_of_every_document_then_every_pair(tmp_path):
    db = _db(tmp_path / "c.db")
    out = tmp_path / "corpus.xml"
    assert bitext(["export", "documents", "--db", db, "--format", "cesdoc", "-o", str(out)]) == 0
    root = etree.parse(str(out)).getroot()
    assert [etree.QName(e).localname for e in root] == ["cesDoc", "cesDoc", "cesAlign"]
    urls = [e.findtext("x:cesHeader/x:fileDesc/x:publicationStmt/x:eAddress", namespaces=NS) for e in root[:2]]
    assert urls == ["http://s/a.en.html", "http://s/a.de.html"]


def test_other_formats_are_refused_for_documents(tmp_path, capsys):
    db = _db(tmp_path / "c.db")
    assert bitext(["export", "documents", "--db", db, "--format", "tmx"]) == 2
    assert "documents are exported as --format cesdoc" in capsys.readouterr().err


def test_main_content_that_is_not_a_block_of_its_own_keeps_its_place():
    doc = Document(1, "u", "en", "t", 0.0, "", [["text", "en", "first line"], ["text", "en", "second line"]],
                   ["menu", "first line second line", "footer"], None)
    assert [(p.get("crawlinfo"), p["text"]) for p in body_paragraphs(doc)] == [
        ("boilerplate", "menu"), (None, "first line"), (None, "second line"), ("boilerplate", "footer")]
    assert [p["text"] for p in body_paragraphs(doc, boilerplate=False)] == ["first line", "second line"]

