"""One page, one URL: the form under which a URL's pairing keys are counted.

Kit & Ng's one-match-per-URL rule (section 3) assumes that every page has one URL.  Real sites
reach one page at several (``x.html`` and ``x.html?``, ``/dir/`` and ``/dir/index.html``, with
and without ``www.``, http and https, a session parameter, query parameters in another order);
counted apart, the copies look like a second partner of every translation and a true key is
dropped for its "conflicts".  The canonical form folds these into one.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

# Parameters that identify a visit or a campaign, not a page.
SESSION_PARAMS = frozenset({
    "jsessionid", "phpsessid", "aspsessionid", "sid", "sessionid", "session_id", "session", "cfid",
    "cftoken", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "fbclid",
    "gclid", "msclkid",
})
# The ones a crawler can drop before it fetches: never a page's own parameter ("sid" and
# "session" sometimes are, so they are only folded when URLs are compared).
TRACKING_PARAMS = SESSION_PARAMS - {"sid", "session"}
_INDEX_FILE = re.compile(r"/(?:index|default)\.(?:html?|shtml|php\d?|aspx?|jsp|cfm)$", re.IGNORECASE)


def canonical_url(url: str) -> str:
    """Scheme-less canonical form: host lower-case without ``www.`` and default port, query
    parameters sorted and session parameters removed (also ``;jsessionid=`` path parameters),
    fragment and empty query dropped, a directory's index file and trailing slash removed."""
    try:
        parts = urlsplit(canonicalize_url(url, keep_fragments=False))
    except ValueError:  # w3lib refuses some malformed URLs; they still get a stable form
        parts = urlsplit(url)
    host = parts.hostname or ""
    if host.startswith("www."):
        host = host[4:]
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    path = parts.path
    if ";" in path:
        head, *params = path.split(";")
        path = ";".join([head] + [p for p in params if p.split("=", 1)[0].lower() not in SESSION_PARAMS])
    path = _INDEX_FILE.sub("/", path)
    if len(path) > 1:
        path = path.rstrip("/")
    query = parts.query
    if query:
        kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k.lower() not in SESSION_PARAMS]
        query = urlencode(kept) if len(kept) != query.count("&") + 1 else query
    return urlunsplit(("", host, path or "/", query, ""))


def fetch_url(url: str) -> str:
    """The URL to fetch for ``url``: the same page without its session and tracking parameters
    (``?PHPSESSID=...``, ``;jsessionid=...``, ``utm_*``), its empty query (``x.html?``) and its
    fragment; everything else as it was, so the server sees the URL the site links."""
    if "?" not in url and ";" not in url and "#" not in url:
        return url  # most links: nothing to drop, and this runs for every link of every page
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    path = parts.path
    if ";" in path:
        head, *params = path.split(";")
        path = ";".join([head] + [p for p in params if p.split("=", 1)[0].lower() not in TRACKING_PARAMS])
    query = parts.query
    if query:
        pairs = query.split("&")
        kept = [p for p in pairs if p and p.split("=", 1)[0].lower() not in TRACKING_PARAMS]
        query = "&".join(kept) if len(kept) != len(pairs) else query
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))
