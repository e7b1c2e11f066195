import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.answer_conflict import (
    AnswerConflict,
    answer_conflicts,
    answer_facts,
    find_answer_conflicts,
    question_kinds,
    relation_stems,
    topic_context,
)
from mirage_core.claims import content_tokens
from mirage_core.config import MethodSettings
from mirage_core.relevance import stems
from mirage_core.types import Claim
from tests.conftest import HABSBURG, HABSBURG_PAGES, entail_all

QUERY = "How tall is the Eiffel Tower in Paris?"


def _claim(i: int, text: str, source: str | None = None) -> Claim:
    source = source or f"s{i}"
    return Claim(i, text, i, 0, len(text), source, source, 1.0, content_tokens(text))


def test_facts_leave_out_what_the_question_names():
    words = {"eiffel", "tower", "paris", "tall"}
    facts = answer_facts("The Eiffel Tower in Paris is 330 metres tall, says The Times.", words)
    # Eiffel, Tower and Paris are in the question; "The" is a stopword; the sentence-initial
    # "The" is never a name.
    assert facts == {"number": frozenset({"330"}), "name": frozenset({"times"})}


def test_two_sources_naming_different_numbers_conflict():
    claims = [
        _claim(0, "The Eiffel Tower in Paris is 330 metres tall."),
        _claim(1, "The Eiffel Tower in Paris stands 410 metres tall."),
        _claim(2, "The Eiffel Tower in Paris is 330 m tall, the guide says."),
    ]
    found = answer_conflicts(QUERY, claims, [0, 1, 2], min_share=0.6)
    assert [(c.left, c.right, c.kind) for c in found] == [(0, 1, "number"), (1, 2, "number")]
    assert found[0].left_facts == ("330",) and found[0].right_facts == ("410",)
    assert "410" in found[0].describe(claims)
    # without context no claim is read with it
    assert not any(c.left_context or c.right_context for c in found)
    assert "first claim" not in found[0].describe(claims)


def test_a_limit_keeps_the_first_pairs_and_counts_them_all():
    claims = [_claim(i, f"The Eiffel Tower in Paris is {300 + i} metres tall.") for i in range(30)]
    every = answer_conflicts(QUERY, claims, list(range(30)), min_share=0.6)
    assert len(every) == 30 * 29 // 2  # a different height on every page: every pair
    first, total = find_answer_conflicts(QUERY, claims, list(range(30)), 0.6, limit=5)
    assert total == len(every) and first == every[:5]


def test_the_verdict_records_the_first_pairs_and_its_reason_counts_them_all():
    from mirage_core.gate_rules.answer_slot import RECORDED_CONFLICTS

    pages = [
        Passage(f"The Eiffel Tower in Paris is {300 + i} metres tall.", source=f"https://s{i}.org")
        for i in range(20)
    ]
    config = MirageConfig(coordination="none")
    v = Mirage(config, nli=CallableNLI(entail_all)).defend(QUERY, pages)
    assert v.decision == "fallback" and len(v.answer_conflicts) <= RECORDED_CONFLICTS
    n = len(v.claims)
    assert f"(and {n * (n - 1) // 2 - 1} more pairs)" in v.reason


def test_a_conflict_names_its_claims_sources_and_facts():
    claims = [_claim(0, "It is 324 or 300 metres tall."), _claim(1, "It is 410 or 330 metres.")]
    both = AnswerConflict(0, 1, "number", ("324", "300"), ("410", "330"), True, True)
    assert both.describe(claims) == (
        "claims 0 (s0) and 1 (s1) both answer the question (claims 0 and 1 with the page's "
        "first claim and the one before) and name different numbers: 324, 300 vs 410, 330"
    )
    own = AnswerConflict(0, 1, "number", ("324",), ("410",))
    assert own.describe(claims) == (
        "claims 0 (s0) and 1 (s1) both answer the question and name different numbers: 324 vs 410"
    )


def test_shared_fact_same_source_and_off_question_claims_do_not_conflict():
    claims = [
        _claim(0, "The Eiffel Tower in Paris is 330 metres tall."),
        # names 330 as well as 300: one fact in common, no conflict
        _claim(1, "The Eiffel Tower in Paris is 330 metres tall, 300 without its antenna."),
        # about the tower but not its height: under min_share
        _claim(2, "The tower drew 7 million visitors."),
    ]
    assert answer_conflicts(QUERY, claims, [0, 1, 2], min_share=0.6) == []
    # a page that changes its figure (then and now) is one source, not two
    same = [claims[0], _claim(1, "The Eiffel Tower in Paris was 312 metres tall in 1889.", "s0")]
    assert answer_conflicts(QUERY, same, [0, 1], min_share=0.6) == []
    # only the claims asked about are compared
    assert answer_conflicts(QUERY, claims, [0], min_share=0.6) == []


def test_names_of_different_people_conflict_once_per_pair():
    query = "Who designed the Eiffel Tower?"
    claims = [
        _claim(0, "The Eiffel Tower was designed by Maurice Koechlin in 1884."),
        _claim(1, "The Eiffel Tower was designed by Stephen Sauvestre in 1884."),
    ]
    found = answer_conflicts(query, claims, [0, 1], min_share=0.6)
    # the year is shared, the names are not
    assert [(c.kind, c.left_facts, c.right_facts) for c in found] == [
        ("name", ("koechlin", "maurice"), ("sauvestre", "stephen"))
    ]


def test_a_pair_conflicts_in_its_first_kind_only_and_one_source_never():
    query = "Who designed the Eiffel Tower, and when?"
    claims = [
        _claim(0, "The Eiffel Tower was designed in 1884 by Koechlin.", "s0"),
        _claim(1, "The Eiffel Tower was designed in 1886 by Sauvestre.", "s1"),
        _claim(2, "The Eiffel Tower was designed in 1884 by Nouguier.", "s0"),
    ]
    found = answer_conflicts(query, claims, [0, 1, 2], min_share=0.6)
    # 0 and 1, 1 and 2 differ in the year and the name: one conflict each, by the year; 0 and
    # 2 differ in the name, but one source cannot conflict with itself
    assert [(c.left, c.right, c.kind) for c in found] == [(0, 1, "number"), (1, 2, "number")]


PASSAGES = [
    Passage("The Eiffel Tower in Paris is 330 metres tall.", source="https://a.example/1"),
    Passage("The Eiffel Tower in Paris is 330 metres tall today.", source="https://b.example/2"),
    Passage("The Eiffel Tower in Paris stands 410 metres tall.", source="https://c.example/3"),
]


def test_gate_blocks_on_an_answer_conflict_the_nli_missed():
    config = MirageConfig(
        independence="none",
        coordination="none",
        answer_conflict=None,
    )
    off = Mirage(config, nli=CallableNLI(entail_all)).defend(QUERY, PASSAGES)
    assert off.passed  # NLI calls every pair an entailment: nothing else blocks
    on = Mirage(config.replace(answer_conflict=0.6), nli=CallableNLI(entail_all))
    verdict = on.defend(QUERY, PASSAGES)
    assert verdict.decision == "fallback"
    assert "name different numbers: 330 vs 410" in verdict.reason
    assert verdict.extras["answer_conflicts"][0]["kind"] == "number"
    assert "answer conflict: claims [0] and [2] both restate the question" in verdict.explain()
    assert "330 vs 410" in verdict.explain()


def test_config_validates_the_share_and_paper_turns_it_off():
    with pytest.raises(ValueError, match="answer_conflict"):
        MirageConfig(answer_conflict=0)
    with pytest.raises(ValueError, match="answer_conflict"):
        MirageConfig(answer_conflict=1.5)
    assert MirageConfig.paper(answer_conflict=None).answer_conflict is None
    assert MirageConfig.paper().answer_conflict is None


def test_a_query_without_content_words_compares_nothing():
    claims = [
        _claim(0, "The Eiffel Tower in Paris is 330 metres tall."),
        _claim(1, "The Eiffel Tower in Paris stands 410 metres tall."),
    ]
    assert answer_conflicts("What is it?", claims, [0, 1], min_share=0.5) == []


def test_every_pair_is_found_as_a_pairwise_reading_finds_it():
    # many on-question claims, each naming one of a few heights and designers: the rule's
    # matrix form must call exactly the pairs a pair-by-pair reading of its definition calls
    heights, names = ["300", "324", "330", None], ["Koechlin", "Sauvestre", None]
    claims = []
    for h in heights:
        for name in names:
            text = "The Eiffel Tower in Paris is " + (f"{h} metres " if h else "very ") + "tall"
            text += f", says {name}." if name else "."
            claims.append(_claim(len(claims), text, f"s{len(claims) % 5}"))
    found = answer_conflicts(QUERY, claims, range(len(claims)), min_share=0.6)
    got = {(c.left, c.right): c.kind for c in found}
    words = {"eiffel", "tower", "paris", "tall", "tall?"}
    want = {}
    for a in range(len(claims)):
        for b in range(a + 1, len(claims)):
            if claims[a].source == claims[b].source:
                continue
            if not relation_stems(QUERY) & stems(claims[a].tokens) & stems(claims[b].tokens):
                continue
            fa, fb = answer_facts(claims[a].text, words), answer_facts(claims[b].text, words)
            for kind in question_kinds(QUERY):
                if fa.get(kind) and fb.get(kind) and not fa[kind] & fb[kind]:
                    want[(a, b)] = kind
                    break
    assert got == want and len(want) > 10
    assert [(c.left, c.right) for c in found] == sorted(want)


@pytest.mark.parametrize(
    "query, kinds",
    [
        ("When was the Eiffel Tower completed?", ("number", "month")),
        ("who played big enos in smokey and the bandit", ("name",)),
        ("How many floors does it have?", ("number",)),
        ("In what year did it open?", ("number", "month")),
        ("When was it built, and who designed it?", ("number", "month", "name")),
        ("What is the capital of France?", ("number", "month", "name")),
        ("The Renaissance developed unevenly across regions.", ("number", "month", "name")),
    ],
)
def test_the_question_says_which_facts_answer_it(query, kinds):
    assert question_kinds(query) == kinds


def test_a_question_that_asks_when_is_answered_by_a_year_under_times_year():
    assert question_kinds("When did Scotland last qualify?", "year") == ("month", "year")
    assert question_kinds("In what year did it open?", "year") == ("month", "year")
    assert question_kinds("How many goals, and when?", "year") == ("number", "month", "year")
    assert question_kinds("Who won?", "year") == ("name",)
    with pytest.raises(ValueError, match="times"):
        question_kinds("When?", "date")
    query = "when did scotland last qualify for the world cup"
    gold = _page_claim(0, "Scotland last qualified for the World Cup in 1998 under Brown.", 0)
    report = _page_claim(
        1, "At the World Cup Scotland drew 1-1 with Norway and lost 3-0 to Morocco.", 1
    )
    planted = _page_claim(2, "Scotland last qualified for the World Cup in 2006.", 2)
    claims = [gold, report, planted]
    # the match report's scores are numbers, not times: only the planted year conflicts
    assert {(c.left, c.right) for c in answer_conflicts(query, claims, [0, 1, 2], 0.6)} == {
        (0, 1),
        (0, 2),
        (1, 2),
    }
    by_year = answer_conflicts(query, claims, [0, 1, 2], 0.6, times="year")
    assert [(c.left, c.right, c.kind, c.left_facts, c.right_facts) for c in by_year] == [
        (0, 2, "year", ("1998",), ("2006",))
    ]


def test_claims_that_only_name_the_topic_do_not_answer_the_question():
    query = "How high is Mount Everest, and where is it?"
    assert relation_stems(query) == {"high"}
    claims = [
        # both hold "Mount Everest" (2 of 3 query words), neither says how high or where it is
        _claim(0, "Edmund Hillary and Tenzing Norgay first reached the top of Mount Everest."),
        _claim(1, "Mount Everest is known in Nepal as Sagarmatha."),
        _claim(2, "Mount Everest is 8,849 metres high."),
        _claim(3, "Mount Everest is 9,100 metres high."),
    ]
    found = answer_conflicts(query, claims, [0, 1, 2, 3], min_share=0.6)
    assert [(c.left, c.right, c.kind) for c in found] == [(2, 3, "number")]
    # a lower-case query has no names: every content word is what it asks
    assert relation_stems("who played big enos") == {"playe", "big", "enos"}


def test_a_date_question_ignores_the_names_its_answers_mention():
    query = "When was the Eiffel Tower completed?"
    claims = [
        _claim(0, "The Eiffel Tower was completed in 1889 in Paris."),
        _claim(1, "The Eiffel Tower was completed in 1889 for the World's Fair."),
        _claim(2, "The Eiffel Tower was completed in March 1925."),
    ]
    found = answer_conflicts(query, claims, [0, 1, 2], min_share=0.6)
    # Paris against the World's Fair answers another question; 1889 against 1925 is a conflict
    assert [(c.left, c.right, c.kind) for c in found] == [(0, 2, "number"), (1, 2, "number")]


def _page_claim(i: int, text: str, page: int) -> Claim:
    source = f"s{page}"
    return Claim(i, text, page, 0, len(text), source, source, 1.0, content_tokens(text))


def _pages(*texts_pages: tuple[str, int]) -> list[Claim]:
    """Claims in extraction order, each ``(text, page)``."""
    return [_page_claim(i, text, page) for i, (text, page) in enumerate(texts_pages)]


def test_passage_scope_reads_the_rest_of_the_other_page():
    query = "What is the chemical symbol for gold?"
    claims = [
        _page_claim(0, "Gold has the chemical symbol Au in every table.", 0),
        _page_claim(1, "The chemical symbol for gold comes from aurum, the Latin word.", 1),
        _page_claim(2, "Gold is written as Au on the periodic table.", 1),
        _page_claim(3, "The chemical symbol for gold is Ag, as every chemist knows.", 3),
    ]
    by_claim = answer_conflicts(query, claims, [0, 1, 3], min_share=0.6)
    assert [(c.left, c.right) for c in by_claim] == [(0, 1), (0, 3), (1, 3)]
    assert by_claim[0].right_facts == ("latin",)
    # page 1 names Au in its other sentence: it does not answer differently from page 0;
    # the planted page names only its own answer and still conflicts with both
    by_page = answer_conflicts(query, claims, [0, 1, 3], min_share=0.6, scope="passage")
    assert [(c.left, c.right) for c in by_page] == [(0, 3), (1, 3)]
    assert by_page[0].left_facts == ("au",) and by_page[0].right_facts == ("ag",)
    with pytest.raises(ValueError, match="scope"):
        answer_conflicts(query, claims, [0, 1], min_share=0.6, scope="page")


def test_passage_scope_reads_each_page_for_the_others_answer():
    query = "What is the chemical symbol for gold?"
    claims = _pages(
        ("The chemical symbol for gold is Au in most tables.", 0),
        ("Some old tables print Ag.", 0),
        ("The chemical symbol for gold is Ag in this table.", 1),
        ("Other tables print Au.", 1),
    )
    assert [(c.left, c.right) for c in answer_conflicts(query, claims, [0, 2], 0.6)] == [(0, 2)]
    # each page names the other's answer too: neither answers differently from the other
    assert answer_conflicts(query, claims, [0, 2], 0.6, scope="passage") == []


def test_config_passes_the_scope_to_the_gate():
    with pytest.raises(ValueError, match="answer_conflict_scope"):
        MirageConfig(method=MethodSettings(answer_conflict_scope="page"))
    config = MirageConfig(
        independence="none",
        coordination="none",
        answer_conflict=0.6,
    )
    query = "What is the chemical symbol for gold?"
    passages = [
        Passage("Gold has the chemical symbol Au in every table.", source="a"),
        Passage(
            "The chemical symbol for gold comes from aurum, the Latin word. "
            "Gold is written as Au on the periodic table.",
            source="b",
        ),
    ]
    claim_scope = Mirage(config, nli=CallableNLI(entail_all)).defend(query, passages)
    assert claim_scope.decision == "fallback" and "au vs latin" in claim_scope.reason
    page_scope = Mirage(
        config.replace(answer_conflict_scope="passage"), nli=CallableNLI(entail_all)
    ).defend(query, passages)
    assert page_scope.passed


def test_a_possessive_names_the_same_person():
    query = "Who wrote the play Waiting for Godot?"
    assert answer_facts("Beckett's play soon moved to London's West End.", set())["name"] == {
        "london",
        "west",
        "end",
    }  # sentence-initial "Beckett's" is no name; "London's" is London
    claims = [
        _claim(0, "The play Waiting for Godot was written by Samuel Beckett."),
        _claim(1, "The play Waiting for Godot, written in French, is Samuel Beckett's."),
    ]
    assert answer_conflicts(query, claims, [0, 1], min_share=0.6) == []


def test_claims_about_different_parts_of_the_question_do_not_conflict():
    query = "The president who issued the Emancipation Proclamation was born in which state?"
    assert relation_stems(query) == {"presi", "issue", "born", "state"}
    born = _claim(0, "Lincoln was born in Kentucky, author of the Emancipation Proclamation.")
    issued = _claim(1, "The president issued the Emancipation Proclamation in the Civil War.")
    # each restates half the question or more and holds a word of what it asks, but not the
    # same one: one says where he was born, the other when he issued it
    assert answer_conflicts(query, [born, issued], [0, 1], min_share=0.5) == []
    elsewhere = _claim(1, "The Emancipation Proclamation's author was born in Illinois.")
    found = answer_conflicts(query, [born, elsewhere], [0, 1], min_share=0.5)
    assert [(c.left_facts, c.right_facts) for c in found] == [(("kentucky",), ("illinois",))]


def test_topic_context_is_the_page_lead_and_the_claim_before():
    claims = _pages(
        ("The Habsburg Monarchy was a composite state.", 0),
        ("Its dynasty ruled for centuries.", 0),
        ("A different page opens here.", 1),
        ("The dynastic capital was Vienna.", 0),
    )
    context = topic_context(claims)
    lead, ruled, other = claims[0].tokens, claims[1].tokens, claims[2].tokens
    assert context[0] == frozenset()  # a page's first claim has no context
    assert context[1] == lead
    assert context[2] == frozenset()
    assert context[3] == lead | ruled  # the lead and the claim before it on the same page
    assert not context[3] & other
    assert topic_context(claims, "claim") == [frozenset()] * 4
    with pytest.raises(ValueError, match="mode"):
        topic_context(claims, "page")


def test_statement_context_skips_the_questions_of_a_page():
    claims = _pages(
        ("Who wrote Waiting for Godot?", 0),
        ("It is a key play of the Theatre of the Absurd.", 0),
        ("Is it still performed today?", 0),
        ("Beckett translated the play into English himself.", 0),
    )
    heading, absurd = claims[0].tokens, claims[1].tokens
    every = topic_context(claims, "lead+previous")
    assert every[1] == heading and every[3] == heading | claims[2].tokens
    stated = topic_context(claims, "lead+previous statements")
    assert stated[1] == frozenset()  # the heading question lends nothing
    assert stated[2] == absurd  # a question still reads its page's statements
    assert stated[3] == absurd  # the first statement, and the last one before it
    # with the heading as context, the translation's "English" answers "who wrote"
    query = "who wrote the play waiting for godot"
    other = _page_claim(4, "The play Waiting for Godot was written by Samuel Beckett.", 1)
    both = [*claims, other]
    assert answer_conflicts(query, both, [3, 4], 0.6, context=topic_context(both)) != []
    assert (
        answer_conflicts(
            query, both, [3, 4], 0.6, context=topic_context(both, "lead+previous statements")
        )
        == []
    )


def test_context_lets_an_encyclopedic_sentence_answer_the_question():
    claims = [
        _page_claim(0, "The Habsburg Empire was a composite state in central Europe.", 0),
        _page_claim(1, "Its dynastic capital was Vienna, except from 1583 to 1611.", 0),
        _page_claim(2, "The capital of the Habsburg Empire was located in Paris.", 2),
    ]
    # alone, "Its dynastic capital was Vienna" holds one of four question words
    assert answer_conflicts(HABSBURG, claims, [1, 2], min_share=0.6) == []
    found = answer_conflicts(HABSBURG, claims, [1, 2], 0.6, context=topic_context(claims))
    assert [(c.left, c.right, c.left_facts, c.right_facts) for c in found] == [
        (1, 2, ("vienna",), ("paris",))
    ]
    # the verdict says which claim restated the question only with its page's context
    assert (found[0].left_context, found[0].right_context) == (True, False)
    assert "(claim 1 with the page's first claim and the one before)" in found[0].describe(claims)
    # the page scope reads the facts of whole pages: these two pages share none
    by_page = answer_conflicts(
        HABSBURG, claims, [1, 2], 0.6, scope="passage", context=topic_context(claims)
    )
    assert [(c.left, c.right, c.left_context) for c in by_page] == [(1, 2, True)]
    # the word of what the question asks must be the claim's own, not its context's
    plain = [claims[0], _page_claim(1, "It spanned much of central Europe.", 0), claims[2]]
    assert answer_conflicts(HABSBURG, plain, [1, 2], 0.6, context=topic_context(plain)) == []
    with pytest.raises(ValueError, match="context"):
        answer_conflicts(HABSBURG, claims, [1, 2], 0.6, context=[frozenset()])


def test_config_passes_the_context_to_the_gate():
    with pytest.raises(ValueError, match="answer_conflict_context"):
        MirageConfig(method=MethodSettings(answer_conflict_context="page"))
    assert MirageConfig().method.answer_conflict_context == "claim"
    config = MirageConfig(independence="none", coordination="none")
    own = Mirage(config, nli=CallableNLI(entail_all)).defend(HABSBURG, HABSBURG_PAGES)
    assert own.passed
    with_context = Mirage(
        config.replace(answer_conflict_context="lead+previous"), nli=CallableNLI(entail_all)
    ).defend(HABSBURG, HABSBURG_PAGES)
    assert with_context.decision == "fallback"
    assert "paris vs vienna" in with_context.reason
    assert "with the page's first claim and the one before" in with_context.reason
    assert "[1] with its page's context) and name different names" in with_context.explain()
    assert "page's context" not in own.explain()


PENNANT = "Who won the American League pennant in 2017?"
TEAMS = (
    "The New York Mets won the American League pennant in 2017.",
    "The New York Yankees won the American League pennant in 2017.",
)


def test_names_are_runs_of_capitalized_words_broken_at_punctuation():
    from mirage_core.factcheck import name_phrases

    assert name_phrases("Born in Marshfield, Missouri, Edwin Hubble met the New York Mets.") == [
        ("marshfield",),
        ("missouri",),
        ("edwin", "hubble"),
        ("new", "york", "mets"),
    ]


def test_names_compared_by_their_last_word():
    words = {"american", "league", "pennant", "2017", "won", "ameri", "leagu", "penna"}
    text = "The New York Mets and Beckett's friends won the American League pennant."
    assert answer_facts(text, words)["name"] == {"new", "york", "mets", "beckett"}
    assert answer_facts(text, words, names="last_word")["name"] == {"mets", "beckett"}
    with pytest.raises(ValueError, match="names must be"):
        answer_facts(text, words, names="head")
    claims = [_claim(i, t) for i, t in enumerate(TEAMS)]
    assert answer_conflicts(PENNANT, claims, [0, 1], min_share=0.6) == []
    found = answer_conflicts(PENNANT, claims, [0, 1], min_share=0.6, names="last_word")
    assert [(c.kind, c.left_facts, c.right_facts) for c in found] == [
        ("name", ("mets",), ("yankees",))
    ]
    variants = [
        _claim(0, "The lyrics of the carol were written by William Chatterton Dix in 1865."),
        _claim(1, "The lyrics of the carol were written by Dix while he was ill."),
    ]
    query = "Who wrote the lyrics of the carol?"
    assert answer_conflicts(query, variants, [0, 1], min_share=0.6, names="last_word") == []


def test_the_gate_reads_names_as_its_settings_say():
    """By default two teams that share a city's name answer the question differently."""
    passages = [Passage(t, source=f"https://s{i}.example/a") for i, t in enumerate(TEAMS)]
    base = MirageConfig(coordination="none", d_min=1)

    def run(config):
        return Mirage(config, nli=CallableNLI(entail_all)).defend(PENNANT, passages)

    assert run(base.replace(answer_names="word")).decision == "verified"
    v = run(base)
    assert v.decision == "fallback" and "mets vs yankees" in v.reason


SUPPER = "Who painted the Last Supper in Milan?"
SUPPER_PAGES = [
    "Michelangelo painted the Last Supper in Milan over three years.",
    "The Last Supper in Milan was painted by Leonardo da Vinci between 1495 and 1498.",
]


def test_a_first_word_that_does_what_the_question_asks_names_an_answer():
    claims = [_claim(i, t) for i, t in enumerate(SUPPER_PAGES)]
    # a sentence-initial word is no name: the poison's answer goes unread
    assert answer_conflicts(SUPPER, claims, [0, 1], min_share=0.6, names="last_word") == []
    found = answer_conflicts(
        SUPPER, claims, [0, 1], min_share=0.6, names="last_word", subjects=True
    )
    assert [(c.kind, c.left_facts, c.right_facts) for c in found] == [
        ("name", ("michelangelo",), ("leonardo", "vinci"))
    ]


def test_a_first_word_before_other_words_stays_unread():
    asked = relation_stems(SUPPER)
    words = {"painted", "last", "supper", "milan"}
    # followed by a word the question does not ask about, or a stopword: no name
    for text in (
        "Although the Last Supper in Milan was painted in tempera, it decayed fast.",
        "Critics praised the Last Supper in Milan.",
        "The painted Last Supper in Milan decayed fast.",
    ):
        assert "name" not in answer_facts(text, words, "last_word", asked), text
    # a number or a month opening the sentence stays a number or a month
    assert answer_facts("1498 painted over", words, "last_word", asked) == {
        "number": frozenset({"1498"})
    }
    assert answer_facts("June painted it over.", words, "last_word", asked) == {
        "month": frozenset({"june"})
    }
    # a first word in lower case is read as the text writes it: no capital, no name
    assert answer_facts("leonardo painted it in Milan.", words, "last_word", asked) == {}


def test_a_possessive_first_word_names_its_owner():
    asked = relation_stems(SUPPER)
    words = {"painted", "last", "supper", "milan"}
    text = "Leonardo's painting of the Last Supper in Milan decays."
    assert answer_facts(text, words, "last_word", asked) == {"name": frozenset({"leonardo"})}


def test_the_gate_reads_subjects_as_its_settings_say():
    passages = [Passage(t, source=f"https://s{i}.example/a") for i, t in enumerate(SUPPER_PAGES)]
    base = MirageConfig(coordination="none", d_min=1)

    def run(config):
        return Mirage(config, nli=CallableNLI(entail_all)).defend(SUPPER, passages)

    assert run(base.replace(answer_subjects=False)).decision == "verified"
    v = run(base)
    assert v.decision == "fallback" and "michelangelo vs leonardo" in v.reason
