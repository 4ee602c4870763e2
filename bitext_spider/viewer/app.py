"""The viewer's web application: routes, templates, the read-only guard and the same-origin check.

``create_app(engine, annotate=False)`` builds it on an open engine; ``bitext view`` serves it with
uvicorn on loopback.  Every page is rendered on the server from database queries; the package's
own CSS and a few lines of JavaScript are the only assets, so it works offline.
"""

from __future__ import annotations

import io
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

from bitext_spider.viewer import corrections as corr
from bitext_spider.viewer.overview import overview, sites
from bitext_spider.viewer.pair_list import (
    PAGE_SIZES,
    SORTS,
    STATUSES,
    BadFilter,
    PairFilter,
    deciding_values,
    language_pairs,
    list_pairs,
)
from bitext_spider.viewer.pair_view import page_side, pair_view
from bitext_spider.viewer.timeline_chart import timeline_svg
from matchers.site.decision import ACCEPT

# How long the filter choices (language pairs, deciding evidence, sites) are reused: they change
# only while a crawl writes, and reading them costs a scan of the candidates.
CHOICES_TTL = 30.0


class SameOrigin:
    """Refuse a state-changing request whose Origin (or, without one, Referer) is not this server:
    a page elsewhere cannot post corrections through the user's browser."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            source = headers.get("origin") or headers.get("referer") or ""
            if not source or source == "null" or urlsplit(source).netloc != headers.get("host", ""):
                await PlainTextResponse("cross-origin request refused", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _fmt_time(t: float | None) -> str:
    return "" if not t else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))


def _fmt_score(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return "" if v is None else str(v)
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("bitext_spider.viewer", "templates"),
                      autoescape=select_autoescape(["html"]))
    env.filters["time"] = _fmt_time
    env.filters["score"] = _fmt_score
    env.filters["intcomma"] = lambda n: f"{n:,}"
    return env


class Viewer:
    """The routes, over one engine."""

    def __init__(self, engine: Engine, annotate: bool = False) -> None:
        self.engine = engine
        self.annotate = annotate
        self.sessions = sessionmaker(engine)
        self.templates = Jinja2Templates(env=_environment())
        self._choices: tuple[float, dict[str, Any]] | None = None

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.setdefault("annotate", self.annotate)
        context.setdefault("nav", name.removesuffix(".html"))
        return self.templates.TemplateResponse(request, name, context, status_code=status)

    def choices(self, s: Session) -> dict[str, Any]:
        now = time.monotonic()
        if self._choices is None or now - self._choices[0] > CHOICES_TTL:
            self._choices = (now, {"langs": language_pairs(s), "deciding": deciding_values(s),
                                   "sites": [(x.id, x.key) for x in sites(s)]})
        return self._choices[1]

    def forbid(self, request: Request) -> Response | None:
        if self.annotate:
            return None
        return PlainTextResponse("read-only viewer: start it with --annotate to record corrections",
                                 status_code=403)

    # -- pages ---------------------------------------------------------------------------
    def home(self, request: Request) -> Response:
        with self.sessions() as s:
            data = overview(s)
        return self.render(request, "overview.html", o=data, chart=timeline_svg(data.timeline))

    def pairs(self, request: Request) -> Response:
        try:
            f = PairFilter.from_query(request.query_params)
        except BadFilter as exc:
            return PlainTextResponse(str(exc), status_code=400)
        with self.sessions() as s:
            page = list_pairs(s, f)
            choices = self.choices(s)

        def link(**changes: Any) -> str:
            return "/pairs?" + urlencode(f.query(**changes))

        nav = {
            "first": link(after=None, before=None, last=False) if page.has_prev else None,
            "prev": link(after=None, before=page.rows[0].key, last=False) if page.has_prev and page.rows else None,
            "next": link(after=page.rows[-1].key, before=None, last=False) if page.has_next and page.rows else None,
            "last": link(after=None, before=None, last=True) if page.has_next else None,
        }
        return self.render(request, "pairs.html", f=f, page=page, pager=nav, choices=choices,
                           statuses=STATUSES, sorts=SORTS, page_sizes=PAGE_SIZES)

    def pair(self, request: Request) -> Response:
        a, b = request.path_params["a"], request.path_params["b"]
        with self.sessions() as s:
            view = pair_view(s, a, b)
        if view is None:
            return self.render(request, "missing.html", status=404, what=f"pages {a} and {b}")
        return self.render(request, "pair.html", v=view, accept=ACCEPT, ex=view.explanation)

    def page(self, request: Request) -> Response:
        with self.sessions() as s:
            side = page_side(s, request.path_params["id"])
        if side is None:
            return self.render(request, "missing.html", status=404, what=f"page {request.path_params['id']}")
        return self.render(request, "page.html", p=side, error=request.query_params.get("error", ""))

    def plots(self, request: Request) -> Response:
        site = request.query_params.get("site") or ""
        try:
            site_id = int(site) if site else None
        except ValueError:
            return PlainTextResponse("site must be a number", status_code=400)
        try:
            # Imported here: the plots module and its plotting library load only for this page.
            from bitext_spider.viewer.plots import build_plots
        except ImportError as exc:
            with self.sessions() as s:
                return self.render(request, "plots.html", plots=[], error=f"plots are not available: {exc}",
                                   site=site_id, choices=self.choices(s))
        with self.sessions() as s:
            plots = build_plots(s, site_id=site_id)
            choices = self.choices(s)
        return self.render(request, "plots.html", plots=plots, error="",
                           site=site_id, choices=choices)

    def corrections(self, request: Request) -> Response:
        with self.sessions() as s:
            rows = corr.corrections(s)
        return self.render(request, "corrections.html", rows=rows, error=request.query_params.get("error", ""),
                           url1=request.query_params.get("url1", ""))

    def gold(self, request: Request) -> Response:
        buf = io.StringIO()
        with self.sessions() as s:
            corr.write_gold(s, buf)
        return PlainTextResponse(buf.getvalue(), media_type="text/tab-separated-values",
                                 headers={"Content-Disposition": 'attachment; filename="gold.tsv"'})

    # -- corrections ---------------------------------------------------------------------
    async def verdict(self, request: Request) -> Response:
        refused = self.forbid(request)
        if refused is not None:
            return refused
        form = await request.form()
        a, b = request.path_params["a"], request.path_params["b"]
        with self.sessions() as s:
            view = pair_view(s, a, b)
            if view is None:
                return PlainTextResponse("no such pages", status_code=404)
            one, two = view.sides
            try:
                corr.add_correction(s, one.url, two.url, str(form.get("verdict", "")))
            except corr.CorrectionError as exc:
                return PlainTextResponse(str(exc), status_code=400)
        return RedirectResponse(f"/pair/{one.id}/{two.id}", status_code=303)

    async def missed(self, request: Request) -> Response:
        refused = self.forbid(request)
        if refused is not None:
            return refused
        form = await request.form()
        back = str(form.get("back") or "/corrections")
        if not back.startswith("/") or back.startswith("//"):
            back = "/corrections"
        with self.sessions() as s:
            try:
                corr.add_correction(s, str(form.get("url1", "")), str(form.get("url2", "")), "missed",
                                    str(form.get("lang1", "")), str(form.get("lang2", "")))
            except corr.CorrectionError as exc:
                sep = "&" if "?" in back else "?"
                return RedirectResponse(f"{back}{sep}{urlencode({'error': str(exc)})}", status_code=303)
        return RedirectResponse("/corrections", status_code=303)


def create_app(engine: Engine, annotate: bool = False) -> Starlette:
    v = Viewer(engine, annotate)
    routes: list[Any] = [
        Route("/", v.home),
        Route("/pairs", v.pairs),
        Route("/pair/{a:int}/{b:int}", v.pair),
        Route("/pair/{a:int}/{b:int}/verdict", v.verdict, methods=["POST"]),
        Route("/page/{id:int}", v.page),
        Route("/plots", v.plots),
        Route("/corrections", v.corrections),
        Route("/corrections", v.missed, methods=["POST"]),
        Route("/corrections/gold.tsv", v.gold),
        Mount("/static", StaticFiles(packages=[("bitext_spider.viewer", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(SameOrigin)])
    app.state.viewer = v
    return app

