"""A plain CrawlSpider: it follows the links of one site and yields an item of its own per page.

    scrapy crawl pages -a start=https://www.example.org/

It knows nothing of bitext: the add-on makes a page item of every HTML response it receives,
and the pages are matched and stored as they arrive.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


@dataclass
class PageTitle:
    url: str
    title: str


class PagesSpider(CrawlSpider):
    name = "pages"
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, start: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not start:
            raise ValueError("give the site to crawl: scrapy crawl pages -a start=URL[,URL...]")
        self.start_urls = start.split(",")
        # The start URLs' hosts: the crawl stays on them, and each is one site of the bitext
        # database (list a parent domain here to make its subdomains one site).
        self.allowed_domains = sorted({urlsplit(u).hostname or "" for u in self.start_urls})

    def parse_start_url(self, response: Response, **kwargs: Any) -> Iterator[PageTitle]:
        return self.parse_page(response)

    def parse_page(self, response: Response) -> Iterator[PageTitle]:
        yield PageTitle(url=response.url, title=response.css("title::text").get(default="").strip())
