"""The query's words matched in a claim by their lemma (``word_forms="lemma"``).

Relevance and the answer-slot rule find the query's words in a claim by a 5-character prefix,
which does not reach irregular forms or a short root's inflections: "Samuel Beckett wrote
Waiting for Godot" and "Waiting for Godot was written by Oscar Wilde" do not both restate
"Who wrote Waiting for Godot?" ("wrote" / "writt"), so the rule never compares the names they
give, and the NLI model scores the pair 0.71 contradiction, under κ. Reading each word as its
dictionary lemma first (``mirage_core/word_forms.py`` in commit 635591f, LemmInflect's tables)
lets a restated question be recognized in another inflection, which is what the answer-slot
rule is asked to read.

No round qualified and the settings were taken out (``docs/decisions.md``, 2026-12-07); the
candidates' configs name a setting the package no longer has.

Rule (declared with the candidate, before it ran), against the committed scoreboard on the fit
split: :data:`research.equivalent_forms.NO_LOSS_ASKED`: adopted when nothing of any kind is
lost (:func:`research.relevant_pairs.every_loss`); no gain is asked. The pick of
:data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` is printed beside it and not chosen on.

    python -m research.word_forms write
    bash research/run_full_round.sh research/results/word-forms \\
        research/candidates/words-lemma.json
    python -m research.word_forms report research/results/word-forms/*.json

Second round, ``words-lemma-answer-slot`` (declared after the first round's result, before it
ran): the lemma reading in the answer-slot rule only (``answer_word_forms="lemma"``);
relevance keeps the prefix, so the pairs NLI reads and the weights the gate gives them do not
move. Same rule, against the committed scoreboard.

    bash research/run_full_round.sh research/results/word-forms-2 \\
        research/candidates/words-lemma-answer-slot.json
    python -m research.word_forms report research/results/word-forms-2/*.json

Third round, ``words-lemma-which-noun`` (declared after the second round's result and its
one loss read set by set, before it ran): the second round's reading together with
``answer_which="noun"``: "what" / "which" followed by a noun phrase asks for what the noun
names ("Which English musician …" → a name, "what percentage …" → a number), where today
every kind of fact answers it. Same rule, against the committed scoreboard.

    bash research/run_full_round.sh research/results/word-forms-3 \\
        research/candidates/words-lemma-which-noun.json
    python -m research.word_forms report research/results/word-forms-3/*.json
"""

from __future__ import annotations

from typing import Any

from research.equivalent_forms import asked_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "words-lemma": {"method": {"word_forms": "lemma"}},
    "words-lemma-answer-slot": {"method": {"answer_word_forms": "lemma"}},
    "words-lemma-which-noun": {"method": {"answer_word_forms": "lemma", "answer_which": "noun"}},
}


def main(argv: list[str] | None = None) -> int:
    return asked_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
