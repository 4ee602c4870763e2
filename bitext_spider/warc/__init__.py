"""WARC archives in and out (docs/warc.md).

Out: a crawl with ``BITEXT_WARC_OUTPUT`` writes every response it downloads, with its request, to
size-rotated WARC files (:mod:`bitext_spider.warc.archive_writer`, fed by the extension
:mod:`bitext_spider.crawl.warc_output`).  In: ``bitext mine-warc`` replays the response records of
WARC files through the ``site`` spider's page logic and the matching stages without any network
access (:mod:`bitext_spider.warc.archive_reader`, the ``warc`` spider).
"""
