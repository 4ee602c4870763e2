"""A page's main content ready for the content filters: its sentences, their word tokens and
lengths, and its bag of words.

Papavassiliou et al., *ILSP-FC* (sections 3.3-3.4): boilerplate paragraphs and paragraphs "not in
the targeted language" are marked and left out of what is compared, so a page's navigation, its
footer or a quotation in another language does not enter the sentence alignment (Tomás et al.,
*WebMining*, section 2.3) nor the translation model trained from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from matchers.lang_codes import same_language
from matchers.sentence_split import split_sentences
from matchers.size_ratio import script_weighted_length
from matchers.word_tokens import word_tokens

# A stored paragraph: (kind, language, text); kinds as in matchers.main_content.
StoredParagraph = tuple[str, str, str]


@dataclass
class PageContent:
    """Main-content sentences of one page, in the page's language."""

    lang: str
    paragraphs: list[StoredParagraph]
    sentences: list[str] = field(default_factory=list)
    tokens: list[list[str]] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)

    @property
    def length(self) -> int:
        """Script-weighted characters of the sentences (CJK counts three, as in the size filter)."""
        return sum(self.chars)

    @cached_property
    def bag(self) -> frozenset[str]:
        """Distinct word tokens (the bag of words of the dictionary filter)."""
        return frozenset(t for sent in self.tokens for t in sent)

    def __len__(self) -> int:
        return len(self.sentences)


def page_content(paragraphs: Sequence[StoredParagraph], lang: str, max_sentences: int = 2000) -> PageContent:
    """Split the kept paragraphs into sentences and tokens.

    ``paragraphs`` are the page's non-boilerplate paragraphs with their identified language;
    those identified as another language are kept in the record but not split.  Titles and
    headings are sentences of their own: translators translate them one to one.
    """
    content = PageContent(lang=lang, paragraphs=list(paragraphs))
    for _kind, plang, text in paragraphs:
        if plang and plang != "und" and not same_language(plang, lang):
            continue
        for sentence in split_sentences(text, lang):
            tokens = word_tokens(sentence)
            if not tokens:
                continue
            content.sentences.append(sentence)
            content.tokens.append(tokens)
            content.chars.append(script_weighted_length(sentence))
            if len(content.sentences) >= max_sentences:
                return content
    return content
