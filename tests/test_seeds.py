import logging

import pytest

from bitext_spider.crawl.seeds import SeedsError, load_seeds, parse_seeds_text


def test_parse_sites_comments_and_multi_host_lines():
    text = """# my sites
http://a.example/

  https://b.example/en/ http://b2.example:8080/fr/   # one site on two hosts
c.example  # bare host
http://a.example/other/
"""
    report = parse_seeds_text(text)
    assert report.problems == []
    keys = [s.key for s in report.sites]
    assert keys == ["a.example", "b.example b2.example:8080", "c.example"]
    a = report.sites[0]
    assert a.start_urls == ("http://a.example/", "http://a.example/other/")
    b = report.sites[1]
    assert b.hosts == frozenset({"b.example", "b2.example:8080"})
    assert report.sites[2].start_urls == ("http://c.example/",)


def test_fragment_is_not_a_comment():
    report = parse_seeds_text("http://a.example/page#top\n")
    assert report.sites[0].start_urls == ("http://a.example/page#top",)


def test_malformed_lines_reported_with_line_numbers_and_skipped():
    text = "http://ok.example/\nftp://bad.example/\nnot a url\nhttp://:99999/\nhttp://ok2.example/\n"
    report = parse_seeds_text(text, source="list.txt")
    assert [s.key for s in report.sites] == ["ok.example", "ok2.example"]
    assert len(report.problems) == 3
    assert report.problems[0].startswith("list.txt:2:")
    assert report.problems[1].startswith("list.txt:3:")
    assert report.problems[2].startswith("list.txt:4:")


def test_load_seeds_missing_file(tmp_path):
    with pytest.raises(SeedsError, match="seeds file not found"):
        load_seeds(tmp_path / "nope.txt")


def test_load_seeds_no_valid_line(tmp_path, caplog):
    p = tmp_path / "seeds.txt"
    p.write_text("# nothing\nbogus\n")
    with caplog.at_level(logging.ERROR), pytest.raises(SeedsError, match="no valid site line"):
        load_seeds(p)
    assert any(":2:" in r.getMessage() for r in caplog.records)


def test_load_seeds_binary_file(tmp_path):
    p = tmp_path / "seeds.txt"
    p.write_bytes(b"\xff\xfe\x00\x81binary")
    with pytest.raises(SeedsError):
        load_seeds(p)


def test_one_line_that_is_not_utf8_is_skipped_with_its_number(tmp_path, caplog):
    p = tmp_path / "seeds.txt"
    p.write_bytes(b"\xef\xbb\xbfhttp://a.example/\n# caf\xe9 sites\nhttp://b.example/caf\xe9/\nhttp://c.example/\n")
    with caplog.at_level(logging.ERROR):
        report = load_seeds(p)
    assert [s.key for s in report.sites] == ["a.example", "c.example"]
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith(f"{p}:2: not UTF-8 text (byte 0xe9") for m in messages)
    assert any(m.startswith(f"{p}:3: not UTF-8 text (byte 0xe9") for m in messages)
