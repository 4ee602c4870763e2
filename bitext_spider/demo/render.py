"""Rendering the demo's concepts in one language: articles, gender and case agreement,
contractions, SOV order with particles for ja/ko, and each language's small omissions and
additions, so translations share their block structure but differ in length."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bitext_spider.demo.composer import (
    _NP,
    _PP,
    _Block,
    _choice,
    _Clause,
    _Composer,
    _derive,
    _frequency_adverbs,
    _Heading,
    _Row,
    _Sentence,
)
from bitext_spider.demo.grammar import (
    PL_CASES,
    PL_GENITIVE_VERBS,
    article_alternatives,
    gendered_form,
    indefinite_article,
    join_article,
    nl_adjective,
    pl_adjective,
    pl_animate,
    pl_noun_cases,
    pl_prep_case,
    pl_preposition,
)
from bitext_spider.demo.lexicon import (
    _CONTRACTIONS,
    _DE_ACCUSATIVE_PREPS,
    _DE_DEFINITE,
    _DE_INDEFINITE,
    _DE_MIXED,
    _DE_WEAK,
    _NOUN_CATEGORIES,
    _PRE_VERB_ADVERBS,
    _PRICE_KEY,
    _SPACED_LANGS,
    Lexicon,
)

# --------------------------------------------------------------------------------------------------
# Rendering concepts in one language


def _has_final_consonant(text: str) -> bool:
    """Whether a Korean word ends in a consonant (batchim), which selects particle forms."""
    if not text:
        return False
    code = ord(text[-1]) - 0xAC00
    return 0 <= code < 11172 and code % 28 != 0


def _join_ko(tokens: Sequence[str]) -> str:
    out = ""
    for tok in tokens:
        if not tok:
            continue
        if tok.startswith("~"):
            head, _, rest = tok[1:].partition(" ")
            if "/" in head:
                after_consonant, after_vowel = head.split("/", 1)
                head = after_consonant if _has_final_consonant(out) else after_vowel
            out += head + (" " + rest if rest else "")
        else:
            out += (" " if out else "") + tok
    return out


@dataclass(frozen=True)
class _Noun:
    definite: str
    bare: str
    gender: str  # "m", "f", "n", or "" where the language has no gender
    article: str = ""  # the definite article the cell starts with
    cases: tuple[str, ...] = ()  # pl: the forms of PL_CASES
    animate: bool = False  # pl: masculine and animate (its accusative is not its nominative)


def _parse_nouns(lex: Lexicon, lang: str) -> dict[int, _Noun]:
    """Split noun cells into article, bare noun and gender using the lexicon's ``the`` row."""
    articles = article_alternatives(lex.word(lex.key("the"), lang))
    nouns = {}
    for cat in _NOUN_CATEGORIES:
        for cid in lex.ids(cat):
            cell = lex.word(cid, lang)
            gender = ""
            m = re.fullmatch(r"(.*)/([mfn])", cell)
            if m:
                cell, gender = m.group(1), m.group(2)
            if lang == "pl":
                cases = pl_noun_cases(cell)
                nouns[cid] = _Noun(cases[0], cases[0], gender, "", cases, pl_animate(cases, gender))
                continue
            bare, article = cell, ""
            if lang == "en":
                bare = cell.removeprefix("the ")
            else:
                for i, alternatives in enumerate(articles):
                    art = next(
                        (a for a in alternatives if cell.startswith(a if a.endswith("'") else a + " ")), ""
                    )
                    if art:
                        bare, article = cell[len(art) :].lstrip(), art
                        # An elided article hides the gender: the cell's /m /f marker gives it.
                        gender = gender or ("m" if art.endswith("'") else "mfn"[i])
                        break
            nouns[cid] = _Noun(cell, bare, gender, article)
    return nouns


class _Renderer:
    """Renders concepts in one language, with that language's small random deviations."""

    def __init__(self, lex: Lexicon, lang: str) -> None:
        if lang not in lex.langs:
            raise ValueError(f"language {lang!r} not in the lexicon ({', '.join(lex.langs)})")
        self.lex = lex
        self.lang = lang
        self.nouns = _parse_nouns(lex, lang)
        col = lex.langs.index(lang)
        self.words = tuple("" if row[col] == "-" else row[col] for row in lex.rows)
        table = _CONTRACTIONS.get(lang)
        self.contractions = re.compile(r"\b(?:" + "|".join(map(re.escape, table)) + ")") if table else None
        self.rng = random.Random(0)
        self.verbosity = 0.0
        self.adjectives = lex.ids("adjective")
        self.adverbs = lex.ids("adverb")
        self.frequency_adverbs = _frequency_adverbs(lex)
        self.phrases = lex.ids("phrase")
        self.k_very = lex.key("very")

    def start_page(self, seed: int) -> None:
        """Reset the random deviations for a new page."""
        self.rng = random.Random(seed)
        # Some translators expand and others condense: a per-page bias makes whole translations
        # longer or shorter, where independent per-sentence noise would average out.
        self.verbosity = self.rng.uniform(-1.0, 1.0)

    def chance_add(self, p: float) -> bool:
        return self.rng.random() < p * (1.0 + self.verbosity)

    def chance_drop(self, p: float) -> bool:
        return self.rng.random() < p * (1.0 - self.verbosity)

    def w(self, concept: int) -> str:
        return self.words[concept]

    def k(self, english: str) -> str:
        """The word of the concept whose English cell is ``english``."""
        return self.words[self.lex.key(english)]

    def ui(self, english: str) -> str:
        return self.k(english)

    # -- noun phrases ---------------------------------------------------------------------------

    def adjective(self, adj: int, gender: str, case: str, definite: bool, predicative: bool = False) -> str:
        cell = self.w(adj)
        lang = self.lang
        if lang in ("fr", "es", "it", "pt"):
            forms = cell.split("/")
            return forms[1] if gender == "f" and len(forms) > 1 else forms[0]
        if lang == "nl":
            return nl_adjective(cell, gender, definite, predicative)
        if lang == "pl":
            return pl_adjective(cell, gender, case)
        if lang == "de":
            if predicative:
                return cell
            endings = _DE_WEAK if definite else _DE_MIXED
            return cell + endings[case][gender or "n"]
        if lang == "ko":
            attr, _, pred = cell.partition("/")
            return pred if predicative else attr
        if lang == "ja" and predicative:
            if cell.endswith("いる"):
                return cell[:-2] + "います"
            return (cell[:-1] if cell[-1] in "なの" else cell) + "です"
        return cell

    def np(self, np: _NP, case: str = "nom") -> str:
        noun = self.nouns[np.noun]
        adj = np.adj
        if adj is not None and self.chance_drop(0.1):
            adj = None
        elif adj is None and self.chance_add(0.04):
            adj = _choice(self.rng, self.adjectives)
        adj_text = ""
        if adj is not None:
            # pl: a masculine animate noun's adjective takes the genitive form in the accusative
            adj_case = "gen" if case == "acc" and noun.animate else case
            adj_text = self.adjective(adj, noun.gender, adj_case, np.definite)
            if self.chance_add(0.06):
                adj_text = (
                    f"{self.w(self.k_very)} {adj_text}"
                    if self.lang != "ja"
                    else self.w(self.k_very) + adj_text
                )
        lang = self.lang
        of_text = self.np(np.of, "gen" if lang == "pl" else "dat") if np.of is not None else ""
        of_word = self.k("of")
        if lang == "ja":
            return (of_text + of_word if of_text else "") + adj_text + noun.bare
        if lang == "ko":
            return _join_ko([of_text, of_word if of_text else "", adj_text, noun.bare])
        words = [self.determiner(noun, case, np.definite, adj_text)]
        if lang in ("en", "de", "nl"):
            words += [adj_text, noun.bare]
        elif lang == "pl":  # no articles; the noun carries its case forms
            words = [adj_text, noun.cases[PL_CASES.index(case)]]
        elif lang == "it" and not np.definite:  # "un'isola"
            words = [join_article(words[0], noun.bare), adj_text]
        elif np.definite:
            words = [noun.definite, adj_text]  # fr/es/it/pt: the cell has the article; adjective follows
        else:
            words += [noun.bare, adj_text]
        if of_text:
            words += [of_word, of_text]
        return " ".join(w for w in words if w)

    def determiner(self, noun: _Noun, case: str, definite: bool, next_word: str) -> str:
        lang = self.lang
        if lang == "en":
            if definite:
                return "the"
            return _english_indefinite(next_word or noun.bare)
        if lang == "de":
            table = _DE_DEFINITE if definite else _DE_INDEFINITE
            return table[case][noun.gender or "n"]
        if lang == "nl":
            return gendered_form(self.k("the" if definite else "a"), noun.gender)
        if lang == "it":
            return indefinite_article(self.k("the"), self.k("a"), noun.gender, noun.article)
        forms = self.k("a").split("/")
        return forms[1] if noun.gender == "f" and len(forms) > 1 else forms[0]

    def pp(self, pp: _PP, locative: bool = False, adnominal: bool = False) -> str:
        prep = self.w(pp.prep)
        lang = self.lang
        if lang == "pl":
            return pl_preposition(prep, self.nouns[pp.np.noun].bare, self.np(pp.np, pl_prep_case(prep)))
        if lang in _SPACED_LANGS:
            case = "acc" if lang == "de" and prep in _DE_ACCUSATIVE_PREPS else "dat"
            return f"{prep} {self.np(pp.np, case)}"
        target = self.np(pp.np)
        if lang == "ja":
            if locative and prep.endswith("で"):
                prep = prep[:-1] + "に"
            if adnominal:
                prep = prep[:-1] + "の" if prep.endswith("に") else prep + "の"
            return target + prep
        if (locative or adnominal) and prep.endswith("에서"):
            prep = prep[:-2] + "에" + (" 있는" if adnominal else "")
        elif adnominal:
            return _join_ko([target, prep, "~의"])
        return _join_ko([target, prep])

    def heading(self, heading: _Heading) -> str:
        np = self.np(heading.np)
        if heading.pp is None:
            return _capitalize(self.finish(np, "")) if self.lang in _SPACED_LANGS else np
        if self.lang == "ja":
            return self.pp(heading.pp, adnominal=True) + np
        if self.lang == "ko":
            return self.pp(heading.pp, adnominal=True) + " " + np
        return _capitalize(self.finish(f"{np} {self.pp(heading.pp)}", ""))

    # -- clauses and sentences ------------------------------------------------------------------

    def varied_adverb(self, adverb: int | None, kind: str) -> int | None:
        """Translators drop an adverb now and then, and sometimes add one."""
        if adverb is not None:
            return None if self.chance_drop(0.2) else adverb
        if not self.chance_add(0.12):
            return None
        return _choice(self.rng, self.frequency_adverbs if kind == "cop" else self.adverbs)

    def subject(self, clause: _Clause) -> str:
        if clause.subj is None:
            return ""
        if clause.pronoun:
            forms = self.k("it").split("/")
            index = "mfn".index(self.nouns[clause.subj.noun].gender or "m")
            return forms[min(index, len(forms) - 1)] if forms[0] else ""
        return self.np(clause.subj)

    def clause(self, clause: _Clause, fronted: bool) -> str:
        if self.lang == "ja":
            return "".join(self.clause_ja(clause))
        if self.lang == "ko":
            return _join_ko(self.clause_ko(clause))
        return " ".join(t for t in self.clause_euro(clause, fronted) if t)

    def clause_euro(self, clause: _Clause, fronted: bool) -> list[str]:
        lang = self.lang
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        pre_verb = (
            adverb is not None
            and self.lex.rows[adverb][0] in _PRE_VERB_ADVERBS
            and lang in ("en", "es", "pl")
        )
        subj = self.subject(clause)
        pps = [self.pp(pp) for pp in clause.pps]
        if clause.kind == "cop":
            gender = self.nouns[clause.subj.noun].gender if clause.subj else ""
            verb = self.k("is")
            rest = [self.adjective(clause.adj, gender, "nom", True, predicative=True)]
            pre_verb = False  # "is often quiet": adverbs follow the copula
        elif clause.kind == "exist":
            first, _, verb = self.k("there is").rpartition(" ")
            subj, pre_verb = first, lang in ("es", "pl") and pre_verb
            rest = [self.np(clause.obj, "nom" if lang == "pl" else "acc")]
        else:
            verb = self.w(clause.verb) if clause.kind == "svo" else self.k("has")
            rest = [self.np(clause.obj, "gen" if lang == "pl" and verb in PL_GENITIVE_VERBS else "acc")]
        if lang in ("de", "nl") and fronted:
            tokens = [verb, subj, adv, *rest, *pps]  # verb-second: the fronted phrase takes the first slot
        elif lang == "pl" and clause.kind == "exist":  # "W parku często jest nowa fontanna."
            tokens = [*pps, adv, verb, *rest] if pre_verb else [*pps, verb, *rest, adv]
        elif pre_verb:
            tokens = [subj, adv, verb, *rest, *pps]
        elif lang in ("en", "es", "pl") and adv and clause.kind not in ("cop", "exist"):
            tokens = [subj, verb, *rest, *pps, adv]
        else:
            tokens = [subj, verb, adv, *rest, *pps]
        return tokens

    def clause_ja(self, clause: _Clause) -> list[str]:
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        subj = self.subject(clause)
        locative = clause.kind == "exist"
        pps = [self.pp(pp, locative=locative) for pp in clause.pps]
        if clause.kind == "cop":
            return [subj + "は" if subj else "", adv, self.adjective(clause.adj, "", "nom", True, True)]
        if clause.kind in ("exist", "has"):
            topic = subj + "には" if subj else ""
            return [topic, adv, *pps, self.np(clause.obj), self.k("there is")]
        return [subj + "は" if subj else "", adv, *pps, self.np(clause.obj) + "を", self.w(clause.verb)]

    def clause_ko(self, clause: _Clause) -> list[str]:
        adverb = self.varied_adverb(clause.adverb, clause.kind)
        adv = self.w(adverb) if adverb is not None else ""
        subj = self.subject(clause)
        pps = [self.pp(pp, locative=clause.kind == "exist") for pp in clause.pps]
        topic = [subj, "~은/는"] if subj else []
        if clause.kind == "cop":
            return [*topic, adv, self.adjective(clause.adj, "", "nom", True, True)]
        if clause.kind in ("exist", "has"):
            topic = [subj, "~에는"] if subj else []
            return [*topic, adv, *pps, self.np(clause.obj), self.k("there is")]
        return [*topic, adv, *pps, self.np(clause.obj), "~을/를", self.w(clause.verb)]

    def sentence(self, sentence: _Sentence) -> str:
        phrase = sentence.phrase
        if phrase is not None and self.chance_drop(0.15):
            phrase = None
        elif phrase is None and self.chance_add(0.08):
            phrase = _choice(self.rng, self.phrases)
        lead = self.w(phrase) if phrase is not None else ""
        parts = [self.clause(c, fronted=bool(lead) and i == 0) for i, c in enumerate(sentence.clauses)]
        if self.lang == "ja":
            text = lead + parts[0]
            if len(parts) > 1:
                text += "。" + self.w(sentence.conj) + "、" + parts[1]
            return text + "。"
        if self.lang == "ko":
            text = " ".join(t for t in (lead, parts[0]) if t)
            if len(parts) > 1:
                text += ". " + self.w(sentence.conj) + " " + parts[1]
            return text + "."
        text = parts[0]
        if len(parts) > 1:
            comma = "" if self.lex.rows[sentence.conj][0] in ("and", "or") else ","
            text += f"{comma} {self.w(sentence.conj)} {parts[1]}"
        return _capitalize(self.finish(text, lead)) + "."

    def finish(self, text: str, lead: str) -> str:
        """Prefix the sentence-initial phrase and apply the language's article contractions."""
        if lead:
            text = f"{lead} {text}"
        if self.contractions is not None:
            text = self.contractions.sub(self._contract, text)
        return text

    def _contract(self, m: re.Match[str]) -> str:
        return _CONTRACTIONS[self.lang][m.group(0)]

    def sentences(self, items: Sequence[_Sentence], markup_key: object = None) -> str:
        """A paragraph's HTML; translators sometimes leave out a sentence or add one of their own.

        Sentence ``i`` of the plan gets the inline markup chosen by ``(markup_key, i)``, so all
        translations (and a look-alike built from the same structure seed) carry the same tags;
        a sentence a translator adds gets none.
        """
        planned: list[tuple[int | None, _Sentence]] = list(enumerate(items))
        if len(planned) >= 2 and self.chance_drop(0.1):
            del planned[self.rng.randrange(len(planned))]
        if self.chance_add(0.12):
            extra = _Composer(self.lex, self.rng, self.rng).sentence()
            planned.insert(self.rng.randint(0, len(planned)), (None, extra))
        sep = "" if self.lang == "ja" else " "
        return sep.join(
            _esc(self.sentence(sent)) if i is None or markup_key is None
            else _inline_markup((markup_key, i), _esc(self.sentence(sent)), self.lang)
            for i, sent in planned
        )

    def price(self, price: tuple[int, int]) -> str:
        return self.k(_PRICE_KEY).format(price[0], f"{price[1]:02d}")


def _english_indefinite(next_word: str) -> str:
    first = next_word[:1].lower()
    if first in "aeio" or (first == "u" and not next_word.lower().startswith(("uni", "use", "usu"))):
        return "an"
    return "a"


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


_INLINE = ("em", "strong", "a", "br", "code")


def _inline_markup(key: object, html_text: str, lang: str) -> str:
    """Wrap a sentence in inline markup (emphasis, a link, code, a line break) chosen by ``key``.

    Real pages carry inline markup inside paragraphs and translators keep it, so the choice
    depends on the sentence's place in the language-independent plan only.
    """
    kind = _derive("markup", key) % 11
    if kind >= len(_INLINE):
        return html_text
    tag = _INLINE[kind]
    if tag == "a":
        return f'<a href="/{lang}/index.html">{html_text}</a>'
    if tag == "br":
        return html_text + "<br>"
    return f"<{tag}>{html_text}</{tag}>"


def _render_blocks(blocks: Sequence[_Block], r: _Renderer, markup_key: object = None) -> tuple[str, str]:
    """The title and the HTML of a document's blocks in the renderer's language."""
    title = ""
    out: list[str] = []
    for block in blocks:
        if block.kind in ("h1", "h2"):
            text = r.heading(block.items[0])
            title = title or text
            out.append(f"<{block.kind}>{_esc(text)}</{block.kind}>")
        elif block.kind == "p":
            key = None if markup_key is None else (markup_key, len(out))
            out.append(f"<p>{r.sentences(block.items, key)}</p>")
        elif block.kind == "ul":
            items = list(block.items)
            if len(items) > 3 and r.rng.random() < 0.04:
                del items[r.rng.randrange(len(items))]  # a translator skipped an item
            lis = "".join(f"<li>{_esc(_render_item(item, r))}</li>" for item in items)
            out.append(f"<ul>{lis}</ul>")
        else:
            out.append(_render_table(block.items, r))
    return title, "\n".join(out)


def _render_item(item: _Heading | _Sentence | _Row, r: _Renderer) -> str:
    if isinstance(item, _Heading):
        return r.heading(item)
    return r.sentence(item)


def _render_table(rows: Sequence[_Row], r: _Renderer) -> str:
    head = "".join(f"<th>{_esc(r.ui(k))}</th>" for k in ("Place", "Opening hours", "Price"))
    body = "".join(
        f"<tr><td>{_esc(r.heading(_Heading(row.np)))}</td><td>{row.hours}</td><td>{_esc(r.price(row.price))}</td></tr>"
        for row in rows
    )
    return f"<table>\n<tr>{head}</tr>\n{body}\n</table>"
