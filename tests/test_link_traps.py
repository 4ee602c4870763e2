"""Link traps: a URL pattern whose pages bring nothing new stops being fetched, pathological paths
are refused, and productive patterns (articles, listings leading to new pages) never are."""

from __future__ import annotations

import random

from bitext_spider.crawl.link_traps import LinkTraps, pathological, url_pattern


def test_patterns_generalize_numbers_and_drop_queries():
    assert url_pattern("http://h/calendar/2024-03-05?view=week") == "/calendar/0-0-0"
    assert url_pattern("http://h/calendar/1999-12-31") == "/calendar/0-0-0"
    assert url_pattern("http://h/search?color=red&size=m") == "/search"
    assert url_pattern("http://h/news/2024/05/a-title") == "/news/0/0/a-title"


def test_pathological_paths():
    assert not pathological("http://h/loop/a/a/", 2)
    assert pathological("http://h/loop/a/a/a/", 2)
    assert pathological("http://h/x/a/b/a/b/a/b/", 2)
    assert not pathological("http://h/2005/05/05/x", 2)
    assert not pathological("http://h/a/a/a/", 0)


def _calendar(day: int) -> tuple[str, list[str], list[str]]:
    url = f"http://h/calendar/2024-01-{day:02d}"
    blocks = ["Home About Contact and other places of the site", f"Events on 2024-01-{day:02d}", "No events."]
    links = [f"http://h/calendar/2024-01-{day + 1:02d}", f"http://h/calendar/2024-01-{day:02d}?view=week",
             f"http://h/calendar/2025-02-{day:02d}", "http://h/about"]
    return url, blocks, links


def test_a_calendar_is_a_trap_after_min_pages():
    traps = LinkTraps(min_pages=20, min_yield=0.1)
    found = [traps.observe(*_calendar(day)) for day in range(1, 29)]
    assert [t for t in found if t] and found.index(next(t for t in found if t)) == 19  # the 20th page
    trap = traps.traps["/calendar/0-0-0"]
    assert trap.pages == 20 and trap.productive == 1  # only the first page brought anything new
    assert traps.refused("http://h/calendar/2030-01-01?sid=abc") == "trap"
    assert traps.refused("http://h/about") is None


def test_articles_and_listings_are_not_traps():
    rng = random.Random(3)
    words = ["harbour", "council", "river", "market", "school", "bridge", "garden", "museum", "station", "library",
             "festival", "winter", "budget", "theatre", "forest", "island", "village", "railway", "concert"]
    traps = LinkTraps(min_pages=10, min_yield=0.1)
    for n in range(200):
        # Article pages share a pattern (numeric ids) but each has its own text: common words, and
        # a name or two the site has not printed before.
        name = "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3)).title()
        story = " ".join(rng.choice(words) for _ in range(12)) + f" with {name}"
        assert traps.observe(f"http://h/article/{n}", ["Home About Contact and other places of the site", story],
                             ["http://h/about"]) is None
    for n in range(200):
        # Listing pages repeat teasers seen before, but each leads to articles not seen yet.
        assert traps.observe(f"http://h/news?page={n}", ["Latest news of the whole site"],
                             [f"http://h/story/{n}-{k}" for k in range(5)]) is None
    assert traps.traps == {}
