"""Every ``bitext/...`` stat a crawl may set, declared once with its meaning.

A key may hold placeholders (``bitext/pages/lang/<lang>``), each standing for the values
:data:`PLACEHOLDERS` describes.  ``docs/stats.md`` is generated from :data:`STATS`
(``python -m bitext_spider.reference``), and the tests check that every stat the code sets, and
every stat of a real crawl, matches a declared key (:func:`declared`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Placeholder:
    name: str
    pattern: str  # the values it stands for, as a regular expression
    meaning: str


@dataclass(frozen=True)
class Stat:
    key: str
    meaning: str
    group: str


PLACEHOLDERS: tuple[Placeholder, ...] = (
    Placeholder("lang", r"[a-z]{2,3}", "a page's language code (`und`: not identified)"),
    Placeholder("langs", r"[a-z]{2,3}-[a-z]{2,3}", "two language codes in sorted order joined by `-` (`en-fr`)"),
    Placeholder("source", r"(?:bom|header|meta)(?:\+utf8)?|detected|fallback",
                "where the charset came from: `bom`, `header` (HTTP), `meta` (`<meta charset>`), "
                "`header+utf8`/`meta+utf8` (declared, but the bytes were UTF-8), `detected`, `fallback`"),
    Placeholder("exception", r"[A-Za-z_][A-Za-z0-9_]*", "the class name of a download error (`DNSLookupError`)"),
    Placeholder("step", r"content|dictionary|decision|one-to-one|sentences|models",
                "a close-time step (`models`: saving and folding the translation models)"),
)

_PAGES = "Pages"
_CANDIDATES = "Candidates after each filter"
_PAIRS = "Pairs and sentences"
_CONTENT = "Content filter and main content"
_EVIDENCE = "Dictionary, decision and site evidence"
_FOCUS = "Focused crawl"
_WARC = "WARC archives"
_CRAWL = "Crawl, time and errors"

GROUPS = (_PAGES, _CANDIDATES, _PAIRS, _CONTENT, _EVIDENCE, _FOCUS, _WARC, _CRAWL)

STATS: tuple[Stat, ...] = (
    # Pages
    Stat("bitext/pages", "HTML pages that went through every stage to the database in this run.", _PAGES),
    Stat("bitext/pages/lang/<lang>", "Pages identified as language `<lang>`.", _PAGES),
    Stat("bitext/pages/stored", "Pages committed to the database.", _PAGES),
    Stat("bitext/pages/resumed", "Pages already in the database when the crawl of their site was resumed "
         "(not fetched again).", _PAGES),
    Stat("bitext/pages/not_paired", "Pages stored but never paired: outside `BITEXT_LANGS`, language `und`, "
         "or too large.", _PAGES),
    Stat("bitext/pages/duplicates", "Exact copies of a page already seen on the site (not paired).", _PAGES),
    Stat("bitext/pages/too_large", "Pages with more than `BITEXT_MAX_TAG_TOKENS` tags (stored, not compared).",
         _PAGES),
    Stat("bitext/pages/canonical_elsewhere", "Pages whose rel=canonical names another URL (print versions, "
         "copies): never paired in the place of the page they name.", _PAGES),
    Stat("bitext/pages/empty", "Pages whose tag sequence is empty.", _PAGES),
    Stat("bitext/pages/dropped/binary", "Responses dropped because their content is binary whatever their "
         "Content-Type says.", _PAGES),
    Stat("bitext/pages/dropped/parse_timeout", "Pages dropped because parsing took longer than "
         "`BITEXT_PARSE_TIMEOUT`.", _PAGES),
    Stat("bitext/pages/charset/<source>", "Pages decoded with a charset found by `<source>`.", _PAGES),
    Stat("bitext/skipped/page_cap", "Links or responses not taken because the site reached "
         "`BITEXT_MAX_PAGES_PER_SITE`.", _PAGES),
    Stat("bitext/skipped/site_time_limit", "Links not requested, or queued requests dropped, because the site "
         "used up `BITEXT_SITE_TIME_LIMIT`.", _PAGES),
    Stat("bitext/traps/detected", "URL patterns found to be link traps (each logged with its site and "
         "pattern).", _PAGES),
    Stat("bitext/traps/trap_urls", "Links not requested because their URL pattern is a link trap.", _PAGES),
    Stat("bitext/traps/pathological_urls", "Links not requested because their path repeats a segment more "
         "than `BITEXT_TRAP_MAX_REPEATS` times in a row.", _PAGES),
    Stat("bitext/traps/dropped", "Queued requests dropped at download because their pattern became a link "
         "trap meanwhile.", _PAGES),
    Stat("bitext/skipped/offsite_redirect", "Responses redirected off the site's hosts.", _PAGES),
    Stat("bitext/skipped/non_html", "Responses that are not HTML, nor a sitemap or feed.", _PAGES),
    Stat("bitext/skipped/error_status", "Responses outside 200-299 that a spider received (the page "
         "middleware makes no page of them).", _PAGES),
    Stat("bitext/skipped/stored", "Responses whose URL is already stored or taken in this crawl (the "
         "page middleware makes no second page of them).", _PAGES),
    # Candidates
    Stat("bitext/candidates/compared", "Page pairs of languages to be paired that the size filter compared.",
         _CANDIDATES),
    Stat("bitext/candidates/size", "Candidates that passed the size filter.", _CANDIDATES),
    Stat("bitext/candidates/structure", "Candidates that passed the structure filter.", _CANDIDATES),
    Stat("bitext/candidates/content", "Candidates that passed the content filter.", _CANDIDATES),
    Stat("bitext/candidates/dictionary", "Candidates that passed the dictionary filter.", _CANDIDATES),
    Stat("bitext/candidates/stored", "Candidates stored with their page.", _CANDIDATES),
    # Pairs
    Stat("bitext/pairs", "Final one-to-one pairs, set when the spider closes.", _PAIRS),
    Stat("bitext/pairs/<langs>", "Final pairs of the language pair `<langs>`, set when the spider closes.",
         _PAIRS),
    Stat("bitext/pairs/final_items", "Final pairs sent through the item flow when the spider went idle.", _PAIRS),
    Stat("bitext/pairs/provisional", "Pairs accepted during the crawl (provisional until the one-to-one "
         "resolution at close).", _PAIRS),
    Stat("bitext/sentences", "Aligned sentence pairs stored for the final pairs.", _PAIRS),
    # Content
    Stat("bitext/content/paragraphs", "Main-content paragraphs kept.", _CONTENT),
    Stat("bitext/content/boilerplate", "Paragraphs left out as boilerplate.", _CONTENT),
    Stat("bitext/content/paragraphs_other_lang", "Kept paragraphs in another language than their page.",
         _CONTENT),
    Stat("bitext/content/sentences", "Main-content sentences of the pages.", _CONTENT),
    Stat("bitext/content/spilled", "Pages whose main content was moved from memory to a temporary file "
         "(BITEXT_CONTENT_IN_MEMORY, BITEXT_SPILL_DIR).", _CONTENT),
    Stat("bitext/content/checked", "Candidates whose sentences were aligned as they arrived.", _CONTENT),
    Stat("bitext/content/rejected", "Candidates the content filter turned down as they arrived.", _CONTENT),
    Stat("bitext/content/same_text", "Candidates turned down because both pages have the same main text but "
         "for case, digits, URLs and punctuation (not a translation).", _CONTENT),
    Stat("bitext/content/rescue_checked", "Page pairs aligned on content alone, by the content-only search "
         "(pages with no candidate at arrival, every page with `BITEXT_CONTENT_RESCUE_AT_ARRIVAL`, "
         "and the close sweep).", _CONTENT),
    Stat("bitext/content/rescue_screened", "Content-only candidates that are not mutual bests, settled by "
         "their openings' alignment without a full one.", _CONTENT),
    Stat("bitext/content/rescued", "Candidates found on content alone as pages arrived.", _CONTENT),
    Stat("bitext/content/rescued_at_close", "Candidates found on content alone at close.", _CONTENT),
    Stat("bitext/content/mutual_changed_at_close", "Candidates found on content alone whose mutual-best "
         "flag changed once every page was in.", _CONTENT),
    Stat("bitext/content/mutual_dropped_at_close", "Of those, candidates taken as mutual bests that no longer "
         "were and whose share was too low for a content-only candidate.", _CONTENT),
    Stat("bitext/content/rejudged_at_maturity", "Candidates a young model let through, judged again "
         "during the crawl once their language pair's model matured.", _CONTENT),
    Stat("bitext/content/dropped_at_maturity", "Of those, candidates under the share (dropped at close).",
         _CONTENT),
    Stat("bitext/content/rejudged_at_close", "Candidates a young model let through and not judged again as "
         "it matured, judged at close with the final models.", _CONTENT),
    Stat("bitext/content/dropped_at_close", "Candidates dropped at close by either second judgment.", _CONTENT),
    Stat("bitext/content/model_updates", "Accepted pairs that trained a translation model.", _CONTENT),
    Stat("bitext/content/model_sentences", "Sentence pairs the translation models were trained on.", _CONTENT),
    Stat("bitext/content/sentences_stored", "Aligned sentence pairs stored for final pairs.", _CONTENT),
    Stat("bitext/content/sentences_aligned_at_close", "Final pairs aligned at close (the others keep the "
         "alignment a trained model made as their pages arrived).", _CONTENT),
    Stat("bitext/content/sentences_reused_at_close", "Final pairs whose sentences came from their alignment "
         "when re-judged or found at close, with the same final model.", _CONTENT),
    Stat("bitext/models/saved", "Saves of sites' translation-model training.", _CONTENT),
    Stat("bitext/models/folded_sites", "Sites whose training was folded into the stored models at close.",
         _CONTENT),
    Stat("bitext/models/folded_sentences", "Sentence pairs of training folded into the stored models.",
         _CONTENT),
    # Dictionary, decision, site evidence
    Stat("bitext/dictionary/checked", "Candidates scored by the dictionary filter.", _EVIDENCE),
    Stat("bitext/dictionary/rejected", "Candidates the dictionary filter turned down.", _EVIDENCE),
    Stat("bitext/dictionary/dropped_ambiguous", "Candidates dropped at close with a page that had more than "
         "one accepted counterpart.", _EVIDENCE),
    Stat("bitext/decision/accepted", "Candidates the combined decision accepted at close.", _EVIDENCE),
    Stat("bitext/decision/rejected", "Candidates the combined decision turned down at close.", _EVIDENCE),
    Stat("bitext/decision/proposed", "Candidates proposed at close by URL pairing keys or links.", _EVIDENCE),
    Stat("bitext/decision/proposed_accepted", "Proposed candidates that were accepted.", _EVIDENCE),
    Stat("bitext/decision/pivot_proposed", "Candidates proposed at close through a third language (a page "
         "that pairs with both).", _EVIDENCE),
    Stat("bitext/decision/pivot_accepted", "Candidates proposed through a third language that were accepted.",
         _EVIDENCE),
    Stat("bitext/url_keys/keys", "URL pairing keys of the site last recomputed.", _EVIDENCE),
    Stat("bitext/url_keys/recomputed", "Times a site's URL pairing keys were recomputed (each time its "
         "URLs double).", _EVIDENCE),
    # Focused crawl
    Stat("bitext/domain/relevant", "Pages relevant to the domain of a focused crawl (p and m reach "
         "`BITEXT_TOPIC_MIN_SCORE` and `BITEXT_TOPIC_MIN_TERMS`).", _FOCUS),
    Stat("bitext/domain/irrelevant", "Pages not relevant to the domain: stored, their links followed, never "
         "paired.", _FOCUS),
    Stat("bitext/domain/links_ranked", "Links of fetched pages given a priority from their score s_l.", _FOCUS),
    Stat("bitext/domain/translation_links", "Of those, links of relevant pages that looked like a link to a "
         "translation (given `BITEXT_TOPIC_TRANSLATION_BONUS`).", _FOCUS),
    Stat("bitext/domain/frontier_left", "Links still waiting in the sites' best-first frontiers when the "
         "spider closed (the page budget was spent on better ones).", _FOCUS),
    # WARC archives (docs/warc.md)
    Stat("bitext/warc/written/responses", "Responses archived by `BITEXT_WARC_OUTPUT` (each with its request "
         "record).", _WARC),
    Stat("bitext/warc/written/bytes", "Bytes of WARC records written (compressed).", _WARC),
    Stat("bitext/warc/written/files", "WARC files the crawl wrote.", _WARC),
    Stat("bitext/warc/written/lost", "Responses not archived because writing the WARC output failed (logged "
         "as an error).", _WARC),
    Stat("bitext/warc/read/records", "WARC records read by `bitext mine-warc` (every type).", _WARC),
    Stat("bitext/warc/read/responses", "Response records handed to the spider's callbacks, as a crawl's "
         "downloads are.", _WARC),
    Stat("bitext/warc/sites", "Sites the WARC records were grouped into (by host, or by seeds line).", _WARC),
    Stat("bitext/warc/skipped/revisit", "Revisit records (no payload; an earlier capture's copy).", _WARC),
    Stat("bitext/warc/skipped/truncated", "Truncated records (`WARC-Truncated`), unless "
         "`BITEXT_WARC_KEEP_TRUNCATED`.", _WARC),
    Stat("bitext/warc/skipped/status", "Response records whose status is not 2xx (nor a redirect).", _WARC),
    Stat("bitext/warc/skipped/redirect", "Redirects: 3xx records and pages a meta refresh sends elsewhere.",
         _WARC),
    Stat("bitext/warc/skipped/undecodable", "Records whose content encoding cannot be decoded.", _WARC),
    Stat("bitext/warc/skipped/not_http", "Response records of a scheme other than http(s) (`dns:`).", _WARC),
    Stat("bitext/warc/skipped/duplicate", "Records of a URL already read (its first record is its page).",
         _WARC),
    Stat("bitext/warc/skipped/too_large", "Responses over `DOWNLOAD_MAXSIZE`.", _WARC),
    Stat("bitext/warc/errors/input", "WARC files that could not be read to their end (the records before the "
         "fault were mined).", _WARC),
    # Crawl
    Stat("bitext/seeds/sites", "Sites in the seeds.", _CRAWL),
    Stat("bitext/recrawl/requested", "Stored listing pages asked for again, conditionally, by a repeated "
         "crawl (and stored pages `-a refresh` names).", _CRAWL),
    Stat("bitext/recrawl/not_modified", "Of those, answered 304 Not Modified.", _CRAWL),
    Stat("bitext/recrawl/changed", "Of those, answered with a page (its links followed).", _CRAWL),
    Stat("bitext/skipped/before_since", "Links and pages left out as published before `-a since`.", _CRAWL),
    Stat("bitext/seeds/malformed_lines", "Seeds lines skipped as malformed.", _CRAWL),
    Stat("bitext/sites/derived", "Sites opened from page URLs for spiders other than `site` (one per "
         "host, or per `allowed_domains` entry).", _CRAWL),
    Stat("bitext/failed", "1 when the job could not start (no seeds, database unavailable); the finish "
         "reason says why.", _CRAWL),
    Stat("bitext/time/parse_cpu_ms", "CPU time of page parsing in the parse workers, in milliseconds.", _CRAWL),
    Stat("bitext/time/structure_cpu_ms", "CPU time of the structure filter, in milliseconds.", _CRAWL),
    Stat("bitext/time/structure_thread_wall_ms", "Wall time of the structure filter's thread on pages, "
         "in milliseconds (with the filter in a thread; beyond its CPU time, mostly waiting for the GIL).", _CRAWL),
    Stat("bitext/time/content_cpu_ms", "CPU time of the content filter, in milliseconds.", _CRAWL),
    Stat("bitext/time/content_thread_wall_ms", "Wall time of the content filter's thread on pages, in "
         "milliseconds (beyond its CPU time, mostly waiting for the GIL).", _CRAWL),
    Stat("bitext/time/after_last_response_s", "Seconds from the last response's arrival to the spider's close "
         "(the close-time work the crawl waits for).", _CRAWL),
    Stat("bitext/time/close/<step>_s", "Seconds of each close-time step, summed over the sites and over "
         "the resolutions of the crawl. `models` (saving and folding the translation models' training) runs "
         "on a thread of its own beside the other steps, so its seconds overlap theirs.", _CRAWL),
    Stat("bitext/time/gc_s", "Seconds the crawl process spent in Python's garbage collector while matching "
         "(`BITEXT_GC_THRESHOLD`).", _CRAWL),
    Stat("bitext/gc/collections", "Garbage collections in the crawl process while matching.", _CRAWL),
    Stat("bitext/time/resolve_s", "Seconds the resolution at idle took (every site's close-time steps; the "
         "models' save may end later, while the final pairs are sent).", _CRAWL),
    Stat("bitext/time/final_items_s", "Seconds of sending the final pairs as items through the item pipelines "
         "and `item_scraped` (feeds).", _CRAWL),
    Stat("bitext/store/waits", "Times the crawl waited for the database (`BITEXT_WRITER_BACKLOG`).", _CRAWL),
    Stat("bitext/errors/<exception>", "Requests that failed with the download error `<exception>`.", _CRAWL),
    Stat("bitext/errors/parse_worker", "Parse workers replaced (died or timed out).", _CRAWL),
    Stat("bitext/errors/structure_worker", "Times the structure worker died (the stage goes on in a thread).",
         _CRAWL),
    Stat("bitext/errors/young_judgments", "Pages after which judging young candidates again failed (the "
         "close judges them).", _CRAWL),
    Stat("bitext/errors/close_step", "Site steps at close that failed (the pairs are still resolved).", _CRAWL),
    Stat("bitext/errors/models", "Failures to save or fold the translation models.", _CRAWL),
    Stat("bitext/errors/store", "Database writes that failed.", _CRAWL),
)

_PLACEHOLDER = re.compile(r"<([a-z_]+)>")


def key_pattern(key: str) -> re.Pattern[str]:
    """The regular expression of the stat keys a declared ``key`` stands for."""
    patterns = {p.name: p.pattern for p in PLACEHOLDERS}
    parts, pos = [], 0
    for m in _PLACEHOLDER.finditer(key):
        parts.append(re.escape(key[pos:m.start()]))
        parts.append(f"(?:{patterns[m.group(1)]})")
        pos = m.end()
    parts.append(re.escape(key[pos:]))
    return re.compile("".join(parts))


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], Stat], ...]:
    return tuple((key_pattern(s.key), s) for s in STATS)


def declared(key: str) -> Stat | None:
    """The declaration ``key`` matches (a literal one before a pattern), or None."""
    best = None
    for pattern, stat in _patterns():
        if pattern.fullmatch(key):
            if "<" not in stat.key:
                return stat
            best = best or stat
    return best
