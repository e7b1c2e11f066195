"""Query kind: does the query ask a question, or request an account?

A question ("who wrote X?") has one answer, and the sentence that gives it is the one that
restates the query; delivery keeps that sentence (``corroborated_relevant``). A request for an
account ("Tell me a bio of X?", "Describe X.") has no one answer sentence: what answers it is
every claim the sources agree on, and its "most relevant" claim is merely the one that repeats
the subject's name. The two read alike to relevance, and both may end in "?", so the kind is
read from the request's form: an imperative verb of telling, after any courtesy ("please",
"can you", "could you please"), that does not embed a question ("tell me who won …").
"""

from __future__ import annotations

import re

__all__ = ["ACCOUNT_VERBS", "requests_account"]

#: Imperative verbs that ask for an account rather than an answer.
ACCOUNT_VERBS = frozenset(
    {
        "tell",
        "describe",
        "write",
        "give",
        "summarize",
        "summarise",
        "explain",
        "outline",
        "list",
        "provide",
        "present",
        "introduce",
        "profile",
        "share",
    }
)
#: Words of courtesy that may stand before the verb ("please tell me", "can you describe").
_COURTESY = frozenset({"please", "kindly", "can", "could", "would", "will", "you", "u"})
_WORD = re.compile(r"[^\W\d_]+")


#: Words after the verb (and its "me") that make the request an embedded question: "tell me
#: who won", "explain why it fell", "tell me whether it opened" have one answer.
_EMBEDDED_QUESTION = frozenset(
    {"who", "whom", "whose", "what", "when", "where", "which", "why", "how", "whether", "if"}
)
_RECIPIENTS = frozenset({"me", "us"})


def requests_account(query: str) -> bool:
    """Whether ``query`` requests an account: its first word after any courtesy is one of
    :data:`ACCOUNT_VERBS` ("Tell me a bio of X?", "Could you please describe X"), not a
    question word ("Who was X?") or a statement, and the request does not embed a question
    ("Tell me who won the 2018 World Cup" is a question with one answer)."""
    words = iter(_WORD.findall(query.casefold()))
    for word in words:
        if word in _COURTESY:
            continue
        if word not in ACCOUNT_VERBS:
            return False
        rest = next(words, "")
        if rest in _RECIPIENTS:
            rest = next(words, "")
        return rest not in _EMBEDDED_QUESTION
    return False
