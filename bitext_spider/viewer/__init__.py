"""``bitext view``: a local web viewer of a crawl database (Starlette, Jinja2 templates, uvicorn).

Pages: the overview (sites, languages, pairs, the crawl's timeline and settings), the pair list
(filters, sorts, keyset pagination), one pair (both pages side by side, the aligned sentences,
the evidence and decision), one page (its candidates), the plots, and the corrections a person
makes with ``--annotate`` (exported by ``bitext export gold``).  docs/viewer.md has the details.
"""
