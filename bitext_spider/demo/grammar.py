"""Grammar of the demo languages added after the first six: Italian and Portuguese articles (the
indefinite form goes with the noun's own definite article), Dutch adjective inflection and de/het,
and Polish case forms (nouns carry theirs in the lexicon, adjectives are derived from their
nominatives), the case each Polish preposition governs and its vocalic forms ("we", "ze").

Italian and Portuguese contractions ("del", "nella", "do", "na") are in ``lexicon._CONTRACTIONS``
with those of fr/es/de."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

PL_CASES = ("nom", "gen", "acc", "instr", "loc")
_GENDERS = "mfn"
# The case each Polish preposition of the lexicon governs.
_PL_PREP_CASES: Mapping[str, str] = MappingProxyType(
    {
        "w": "loc",
        "przy": "loc",
        "w pobliżu": "gen",
        "obok": "gen",
        "przed": "instr",
        "za": "instr",
        "naprzeciwko": "gen",
        "wokół": "gen",
        "wzdłuż": "gen",
        "po drugiej stronie": "gen",
        "do": "gen",
        "z": "instr",
        "dla": "gen",
        "bez": "gen",
        "tuż za": "instr",
        "od": "gen",
    }
)
# Polish verbs of the lexicon whose object is in the genitive ("potrzebuje nowego biletu").
PL_GENITIVE_VERBS = frozenset({"potrzebuje"})
# Places one is "na" (on, at) rather than "w" (in): "na dworcu", "na plaży", "na poczcie".
_PL_NA_PLACES = frozenset(
    {
        "dworzec", "lotnisko", "plaża", "góra", "plac", "ulica", "aleja", "starówka", "stadion",
        "basen", "parking", "przystanek", "wieś", "wyspa", "wybrzeże", "kemping", "targ", "taras",
        "poczta", "uniwersytet", "policja", "ścieżka rowerowa", "chodnik", "plac budowy", "most",
        "rzeka", "jezioro", "wieża",
    }
)  # fmt: skip
_PL_VOWELS = frozenset("aąeęioóuy")


# --------------------------------------------------------------------------------------------------
# Italian and Portuguese


def article_alternatives(row: str) -> list[list[str]]:
    """An article row's forms per gender slot: ``"il|lo|l'/la|l'"`` -> ``[[il, lo, l'], [la, l']]``."""
    return [slot.split("|") for slot in row.split("/") if slot]


def indefinite_article(the_row: str, a_row: str, gender: str, article: str) -> str:
    """The indefinite article going with a noun whose definite article is ``article``: the form
    at the same place of the ``a`` row's slot for ``gender`` (it "lo" -> "uno", "l'"/f -> "un'")."""
    slot = _GENDERS.index(gender or "m")
    definite = article_alternatives(the_row)
    indefinite = article_alternatives(a_row)
    if not indefinite:
        return ""
    forms = indefinite[min(slot, len(indefinite) - 1)]
    alternatives = definite[min(slot, len(definite) - 1)] if definite else []
    k = alternatives.index(article) if article in alternatives else 0
    return forms[min(k, len(forms) - 1)]


def join_article(article: str, word: str) -> str:
    """``un' + isola`` -> ``un'isola``; other articles are separate words."""
    if not article:
        return word
    return article + word if article.endswith("'") else f"{article} {word}"


# --------------------------------------------------------------------------------------------------
# Dutch


def gendered_form(row: str, gender: str) -> str:
    """The form of a ``m/f[/n]`` row for ``gender`` (nl "de/de/het", "een")."""
    forms = row.split("/")
    return forms[min(_GENDERS.index(gender or "m"), len(forms) - 1)]


def nl_adjective(cell: str, gender: str, definite: bool, predicative: bool) -> str:
    """``groot/grote``: the -e form attributively, the base form predicatively and after "een"
    with a het-noun ("een groot huis", "het grote huis", "de grote brug")."""
    base, _, inflected = cell.partition("/")
    if predicative or not inflected or (not definite and gender == "n"):
        return base
    return inflected


# --------------------------------------------------------------------------------------------------
# Polish


def pl_noun_cases(cell: str) -> tuple[str, ...]:
    """A Polish noun cell's five case forms (see ``PL_CASES``)."""
    forms = tuple(cell.split("|"))
    if len(forms) != len(PL_CASES):
        raise ValueError(f"Polish noun needs {len(PL_CASES)} case forms separated by '|': {cell!r}")
    return forms


def pl_animate(cases: Sequence[str], gender: str) -> bool:
    """A masculine noun is animate when its accusative is not its nominative ("turystę", "kurczaka")."""
    return gender == "m" and cases[PL_CASES.index("acc")] != cases[0]


def pl_adjective(cell: str, gender: str, case: str, animate: bool = False) -> str:
    """A Polish adjective agreeing with a singular noun, from its ``m/f/n`` nominatives:
    ``nowy/nowa/nowe`` -> nowego, nowej, nową, nowym."""
    m, f, n = cell.split("/")
    if case == "nom":
        return {"m": m, "f": f, "n": n}[gender or "m"]
    if gender == "f":
        return {"gen": n + "j", "loc": n + "j", "acc": f[:-1] + "ą", "instr": f[:-1] + "ą"}[case]
    if case == "acc":
        return n + "go" if gender == "m" and animate else (m if gender == "m" else n)
    return {"gen": n + "go", "instr": m + "m", "loc": m + "m"}[case]


def pl_prep_case(prep: str) -> str:
    """The case a Polish preposition governs."""
    return _PL_PREP_CASES[prep]


def _starts_with_cluster(word: str, first: tuple[str, ...]) -> bool:
    """Whether ``word`` starts with one of the consonants ``first`` (a digraph such as "sz"
    counts as one) followed by another consonant: "szkołą" and "wsi" do, "szeroką" does not."""
    for consonant in sorted(first, key=len, reverse=True):
        if word.startswith(consonant):
            rest = word[len(consonant) :]
            return bool(rest) and rest[0] not in _PL_VOWELS
    return False


def pl_preposition(prep: str, noun: str, phrase: str) -> str:
    """``prep phrase`` with the preposition's vocalic form where the phrase needs it ("we wsi",
    "ze szkołą") and "na" for the places Polish is on rather than in; ``noun`` is the nominative
    of the phrase's head noun."""
    if prep == "w" and noun in _PL_NA_PLACES:
        prep = "na"
    word = phrase.split(" ", 1)[0].lower()
    if (prep == "w" and _starts_with_cluster(word, ("w", "f"))) or (
        prep == "z" and _starts_with_cluster(word, ("s", "z", "ś", "ź", "ż", "sz", "w"))
    ):
        prep += "e"
    return f"{prep} {phrase}"
