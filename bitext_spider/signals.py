"""Signals of the bitext extension, sent through the crawler's ``SignalManager`` like Scrapy's own.

    crawler.signals.connect(handler, signal=bitext_spider.signals.pair_found)

``pair_found(item, spider)``: a :class:`bitext_spider.items.PairItem` was found, provisional as
its second page arrives or final when the spider goes idle and the pairs are resolved; sent just
before the item enters the item pipelines.  Handlers may be ``async``.
"""

pair_found = object()
