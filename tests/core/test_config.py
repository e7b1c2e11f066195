import copy
import pickle

import pytest

from mirage_core import MirageConfig
from mirage_core.config import MethodSettings
from mirage_core.errors import DuplicateKeyError


def test_defaults_and_paper():
    cfg = MirageConfig()
    m = cfg.method
    assert (m.tau, m.kappa, m.alpha, m.beta, cfg.r_max, cfg.d_min, cfg.default_trust) == (
        0.3,
        0.8,
        0.5,
        0.5,
        0.3,
        2,
        0.5,
    )
    paper = MirageConfig.paper()
    assert paper.method.kappa == 0.5  # the published value, not the scoreboard's
    assert (
        paper.method.claim_filter is False
        and paper.method.instruction_pages == "keep"  # the published method reads every page
        and m.instruction_pages == "leave_out"
        and paper.min_support == 0
        and paper.partners_per_claim is None
        and paper.max_pairs is None
    )
    # the published gate: every source independent, one source blocks, no coordination or
    # answer-slot handling, a tie decided by the ratio alone
    assert (
        paper.independence,
        paper.single_domain,
        paper.coordination,
        paper.answer_conflict,
        paper.block_on_tie,
        paper.redundancy_filter,
    ) == ("none", "block", "none", None, False, "none")
    assert MirageConfig.paper(r_max=0.2).r_max == 0.2
    assert MirageConfig.paper(kappa=0.6).method == MethodSettings.paper(kappa=0.6)


def test_user_settings_stay_few_and_each_has_a_docstring():
    from dataclasses import fields

    from mirage_core.checks import field_docs

    top = [f.name for f in fields(MirageConfig)]
    assert len(top) <= 20
    for cls in (MirageConfig, MethodSettings):
        docs = field_docs(cls)
        missing = [f.name for f in fields(cls) if not docs.get(f.name)]
        assert not missing, f"{cls.__name__} fields without a docstring: {missing}"


def test_replace_routes_method_names_and_rejects_unknown_ones():
    cfg = MirageConfig().replace(kappa=0.5, r_max=0.2)
    assert cfg.method.kappa == 0.5 and cfg.r_max == 0.2
    assert MirageConfig().method.kappa == 0.8  # the original is unchanged
    with pytest.raises(ValueError, match="unknown"):
        MirageConfig().replace(kapa=0.5)
    with pytest.raises(ValueError, match="method must be a MethodSettings"):
        MirageConfig(method={"kappa": 0.5})  # type: ignore[arg-type]


def test_flat_and_nested_dicts_load_the_same_config():
    cfg = MirageConfig(d_min=3, method=MethodSettings(tau=0.4))
    assert MirageConfig.from_dict(cfg.to_dict()) == cfg
    assert MirageConfig.from_dict(cfg.flat()) == cfg
    assert cfg.to_dict()["method"]["tau"] == 0.4 and cfg.flat()["tau"] == 0.4


def test_docs_table_is_generated_from_the_dataclass():
    from pathlib import Path

    from mirage_core.config import configuration_markdown

    page = (Path(__file__).parents[2] / "docs" / "configuration.md").read_text()
    assert configuration_markdown() in page, (
        "docs/configuration.md is out of date: regenerate its tables with "
        "`python -m mirage_core.config`"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kappa": -0.1},
        {"r_max": "0.3"},
        {"beta": float("inf")},
        {"d_min": 1.5},
        {"min_support": -1},
        {"min_claim_tokens": 0},
        {"partners_per_claim": 0},
        {"max_pairs": True},
        {"batch_size": 0},
        {"nli_error_policy": "ignore"},
        {"independence": "url"},
        {"duplicate_linkage": "ward"},
        {"duplicate_threshold": 1.2},
        {"coordinated_min_support": -1},
        {"coordinated_d_min": 0},
        {"single_domain": "merge"},
        {"coordinated_d_min": 1.0},
        {"coordination_self_conflict": 1.5},
        {"coordination_self_conflict": "high"},
        {"coordination_isolated_threshold": "low"},
        {"coordination_threshold": True},
        {"coordination_isolated_signals": ("tightness",)},
        {"coordination_isolated_signals": ("cosine", "bogus")},
        {"coordination_isolated_signals": "cosine"},
        {"coordination_signals": ("bogus",)},
        {"coordination_signals": "tightness"},
        {"coordination_signals": ()},
        {"coordination_absorb_margin": 1.5},
        {"coordination_absorb_margin": "wide"},
        {"quarantined_conflicts": "drop"},
        {"trust": {"a.org": 2}},
        {"trust": [("a.org", 1)]},
        {"claim_filter": "yes"},
    ],
)
def test_invalid_values_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        MirageConfig().replace(**kwargs)


def test_trust_is_copied_lower_cased_and_defaulted():
    trust = {"Example.ORG": 0.9, "Zero.org": 0, "one.org": 1}  # the whole unit interval
    cfg = MirageConfig(trust=trust)
    trust["other.org"] = 0.1
    assert cfg.trust == {"example.org": 0.9, "zero.org": 0.0, "one.org": 1.0}
    assert cfg.trust_of("example.org") == 0.9 and cfg.trust_of("other.org") == 0.5


def test_trust_is_keyed_as_domains_are_read():
    cfg = MirageConfig(trust={"WWW.NYTimes.com.": 0.9, "b\u00fccher.de": 0.2})
    assert cfg.trust == {"nytimes.com": 0.9, "xn--bcher-kva.de": 0.2}
    assert cfg.trust_of("nytimes.com") == 0.9 and cfg.trust_of("www.nytimes.com") == 0.9
    assert cfg.trust_of("xn--bcher-kva.de") == 0.2
    with pytest.raises(ValueError, match="two values"):
        MirageConfig(trust={"A.org": 0.1, "a.org": 0.9})
    assert MirageConfig(trust={"A.org": 0.5, "a.org": 0.5}).trust == {"a.org": 0.5}


def test_a_number_setting_is_one_setting_however_written():
    a, b = MirageConfig(r_max=1), MirageConfig(r_max=1.0)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert type(a.r_max) is float and a.to_dict() == b.to_dict()


def test_overrides_of_a_request_are_stored_as_the_fields_store_them():
    a = MirageConfig().replace(request_overrides={"r_max": 1, "trust": {"WWW.A.com.": 1}})
    b = MirageConfig().replace(request_overrides={"r_max": 1.0, "trust": {"a.com": 1.0}})
    assert a == b and hash(a) == hash(b)
    assert a.method.request_overrides == {"r_max": 1.0, "trust": {"a.com": 1.0}}
    with pytest.raises(ValueError, match="cannot set request_overrides"):
        MirageConfig().replace(request_overrides={"request_overrides": {"kappa": 0.3}})


def test_round_trips_through_file_pickle_and_copy(tmp_path):
    cfg = MirageConfig(
        r_max=0.25,
        trust={"a.org": 1.0},
        method=MethodSettings(
            contradiction_scope="selected",
            coordination_isolated_signals=["answer_focus", "cosine"],
            coordination_signals=["restatement", "tightness"],
        ),
    )
    assert cfg.method.coordination_isolated_signals == ("answer_focus", "cosine")
    assert cfg.method.coordination_signals == ("restatement", "tightness")
    # empty isolated signals: no isolated scoring (what a request's overrides set)
    assert cfg.replace(coordination_isolated_signals=[]).method.coordination_isolated_signals == ()
    path = tmp_path / "cfg.json"
    cfg.to_file(path)
    assert MirageConfig.from_file(path) == cfg
    assert pickle.loads(pickle.dumps(cfg)) == cfg == copy.deepcopy(cfg)
    assert hash(cfg) == hash(MirageConfig.from_file(path))
    (tmp_path / "wrapped.json").write_text('{"config": {"r_max": 0.1}, "score": 1}')
    assert MirageConfig.from_file(tmp_path / "wrapped.json").r_max == 0.1
    with pytest.raises(ValueError, match="unknown"):
        MirageConfig.from_dict({"rmax": 0.1})


@pytest.mark.parametrize("data", [{"bogus": 1}, {"method": {"bogus": 1}}])
def test_an_unknown_field_at_either_level_is_refused(data):
    with pytest.raises(ValueError, match="bogus"):
        MirageConfig.from_dict(data)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"d_min": 1, "r_max": 0.2, "d_min": 3}', "d_min"),
        ('{"config": {"d_min": 3}, "config": {"d_min": 1}}', "config"),
        ('{"method": {"kappa": 0.5, "kappa": 0.9}}', "kappa"),
        ('{"trust": {"a.org": 1.0, "a.org": 0.0}}', "a.org"),
    ],
)
def test_a_config_file_that_repeats_a_key_is_refused_naming_file_and_key(tmp_path, text, key):
    path = tmp_path / "cfg.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DuplicateKeyError, match=rf"cfg\.json: duplicate key '{key}'"):
        MirageConfig.from_file(path)


def test_a_setting_given_at_both_levels_is_refused():
    with pytest.raises(ValueError, match=r"both at top level and under 'method': \['kappa'\]"):
        MirageConfig.from_dict({"kappa": 0.5, "method": {"kappa": 0.6}})


@pytest.mark.parametrize("method", [[], 0, ""])
def test_method_settings_that_are_no_mapping_are_refused_even_empty(method):
    with pytest.raises(ValueError, match="'method' must be a mapping"):
        MirageConfig.from_dict({"method": method})


def test_method_settings_must_be_a_mapping():
    with pytest.raises(ValueError, match="'method' must be a mapping of MethodSettings fields"):
        MirageConfig.from_dict({"method": ["kappa", 0.5]})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"partners_per_claim": -1}, "partners_per_claim must be an int >= 1 or None, got -1"),
        ({"d_min": 0}, "d_min must be an int >= 1, got 0"),
        ({"answer_conflict": 2.0}, r"answer_conflict must be a number in \(0, 1\] or None"),
        ({"tau": 1.5}, r"tau must be a number in \[0, 1\], got 1.5"),
        ({"relevance_saturation": 0.0}, r"relevance_saturation must be a number in \(0, 1\]"),
        ({"alpha": -1}, "alpha must be a finite number >= 0, got -1"),
        ({"block_on_tie": 1}, "block_on_tie must be a bool, got 1"),
        ({"trust": ["a.example"]}, "trust must be a mapping domain -> \\[0, 1\\], got list"),
        ({"trust": {3: 0.5}}, "trust keys must be domain strings, got 3"),
        ({"trust": {"a.example": 1.5}}, r"trust\['a.example'\] must be in \[0, 1\], got 1.5"),
        ({"request_overrides": ["kappa"]}, "request_overrides must be a mapping of field names"),
        ({"request_overrides": {1: 0.5}}, "request_overrides must be a mapping of field names"),
        ({"contradiction_scope": "all"}, "contradiction_scope must be one of 'graph', "),
        ({"coordination_signals": []}, r"coordination_signals must be a non-empty sequence of \["),
        ({"coordination_threshold": float("nan")}, "coordination_threshold must be a finite "),
    ],
)
def test_the_error_says_what_the_field_must_be_and_whether_none_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        MirageConfig().replace(**kwargs)
