"""The books of the candidates a young model let through (matchers.content.young_judgments)."""

from matchers.content.young_judgments import Verdict, YoungJudgments


def test_young_candidates_wait_for_their_language_pair_and_are_taken_in_batches():
    books = YoungJudgments()
    books.add(1, ("en", 0), ("fr", 0))
    books.add(1, ("fr", 1), ("en", 0))
    books.add(1, ("de", 0), ("en", 0))
    books.add(2, ("en", 0), ("fr", 0))
    assert sorted(books.waiting(1)) == [("de", "en"), ("en", "fr")]
    assert books.take_due(1, 10) == [] and books.due == 0
    books.matured(1, "fr", "en")  # either order names the pair
    assert books.waiting(1) == [("de", "en")] and books.due == 2
    books.add(1, ("en", 2), ("fr", 2))  # judged young before it matured, noted after: due at once
    assert books.take_due(1, 2) == [(("en", 0), ("fr", 0)), (("fr", 1), ("en", 0))]
    assert books.take_due(2, 5) == []  # another site's pair has not matured
    assert books.take_due(1, 5) == [(("en", 2), ("fr", 2))]
    assert books.due == 0


def test_a_verdict_is_given_once_per_site_and_forgotten_with_the_site():
    books = YoungJudgments()
    books.judged(1, 10, 20, Verdict(0.5, 0.4))
    books.judged(2, 10, 20, Verdict(0.1, 0.1))
    books.judged(1, 11, 21, Verdict(None, None))
    assert books.verdict(1, 20, 10) == Verdict(0.5, 0.4)
    assert books.verdict(1, 20, 10) is None
    books.add(1, ("en", 0), ("fr", 0))
    books.matured(1, "en", "fr")
    books.add(1, ("de", 0), ("fr", 0))
    books.forget_site(1)
    assert books.verdict(1, 11, 21) is None and books.due == 0 and books.waiting(1) == []
    assert books.verdict(2, 10, 20) == Verdict(0.1, 0.1)
