"""Leave-one-family-out: the declared choice rule on synthetic figures (no NLI)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.families import (
    RULE_2026_12_02,
    RULES,
    Candidate,
    Rule,
    choose,
    leave_one_family_out,
    report,
    summary,
)


def cand(name, figs, clean=None):
    """figs: family -> (blocked, wrong), the same on both splits unless a dict of splits."""
    fams = {}
    for f, v in figs.items():
        splits = v if isinstance(v, dict) else {"fit": v, "report": v}
        fams[f] = {
            sp: {"blocked": b, "wrong": w, "correct_only": None, "pass_correct": None}
            for sp, (b, w) in splits.items()
        }
    clean = clean or {}
    return Candidate(name, fams, {"fit": clean, "report": clean})


def test_the_rule_is_declared_once_and_dated():
    assert RULES[0] is RULE_2026_12_02 and RULE_2026_12_02.declared == "2026-12-02"
    assert dict(RULE_2026_12_02.floors)["shortqa CLEAN pass"] == 0.9
    assert RULE_2026_12_02.score({"blocked": 0.9, "wrong": 0.2}) == 0.9 - 0.2
    assert RULE_2026_12_02.score({"blocked": 0.8, "wrong": None}) == 0.8
    assert RULE_2026_12_02.score({"blocked": None, "wrong": None}) is None


def test_choice_uses_only_the_chosen_on_families():
    a = cand("a", {"x": (1.0, 0.0), "y": (0.0, 1.0)})
    b = cand("b", {"x": (0.5, 0.0), "y": (0.5, 0.0)})
    assert choose([a, b], ["x"], RULE_2026_12_02)[0] is a
    assert choose([a, b], ["y"], RULE_2026_12_02)[0] is b
    held = {h.family: h for h in leave_one_family_out([a, b], RULE_2026_12_02)}
    assert held["x"].pick == "b" and held["y"].pick == "a"  # chosen on the other family
    assert held["y"].figures["blocked"] == 0.0 and held["y"].figures["score"] == -1.0


def test_chosen_on_fit_reported_on_report():
    a = cand("a", {"x": {"fit": (1.0, 0.0), "report": (0.2, 0.5)}, "y": (0.9, 0.0)})
    b = cand("b", {"x": (0.1, 0.0), "y": (0.1, 0.0)})
    held = {h.family: h for h in leave_one_family_out([a, b], RULE_2026_12_02)}
    assert held["y"].pick == "a" and held["x"].pick == "a"
    assert held["x"].figures["blocked"] == 0.2 and held["x"].figures["wrong"] == 0.5


def test_floors_and_fallback():
    good = cand("good", {"x": (1.0, 0.0), "y": (1.0, 0.0)}, {"gpe-k5 CLEAN pass": 0.5})
    ok = cand("ok", {"x": (0.6, 0.1), "y": (0.6, 0.1)}, {"gpe-k5 CLEAN pass": 0.95})
    pick, _, missed = choose([good, ok], ["x", "y"], RULE_2026_12_02)
    assert pick is ok and missed == ()
    # no candidate meets the floors: the one that misses fewest, then the higher score
    worse = cand("worse", {"x": (0.9, 0.0)}, {"gpe-k5 CLEAN pass": 0.1, "shortqa CLEAN pass": 0.1})
    pick, _, missed = choose([worse, good], ["x"], RULE_2026_12_02)
    assert pick is good and missed == ("gpe-k5 CLEAN pass",)
    # a floor without a figure is unchecked, not missed; ties go to the earlier candidate
    a, b = cand("a", {"x": (0.5, 0.0)}), cand("b", {"x": (0.5, 0.0)})
    assert choose([a, b], ["x"], RULE_2026_12_02)[0] is a


def test_summary_mean_and_worst():
    a = cand("a", {"x": (0.9, 0.1), "y": (0.7, 0.3), "z": (0.8, None)})
    s = summary(leave_one_family_out([a], RULE_2026_12_02))
    assert abs(s["blocked"]["mean"][0] - 0.8) < 1e-9 and s["blocked"]["worst"] == (0.7, "y")
    assert s["wrong"]["worst"] == (0.3, "y")  # higher is worse
    assert abs(s["wrong"]["mean"][0] - 0.2) < 1e-9  # z has no wrong answer: left out


def test_old_rules_stay_printed_beside_new_ones():
    later = Rule(declared="2027-01-01", floors=())
    a = cand("a", {"x": (1.0, 0.0), "y": (1.0, 0.0)}, {"gpe-k5 CLEAN pass": 0.1})
    b = cand("b", {"x": (0.2, 0.0), "y": (0.2, 0.0)}, {"gpe-k5 CLEAN pass": 1.0})
    lines = report([a, b], (RULE_2026_12_02, later))
    assert "pick (rule 2026-12-02) | pick (rule 2027-01-01)" in lines[0]
    assert any(line.startswith("| x | b | a |") for line in lines)
    assert sum("**worst**" in line for line in lines) == 2


def test_longform_figures_on_protocol_pollution(fake_nli, clean_passages, capsys):
    import argparse

    from benchmarks import scoreboard
    from mirage_core.evaluation.datasets import load_rows
    from mirage_core.evaluation.harness import run_benchmark

    rows = [
        {
            "id": f"q{i}",
            "query": "When was the Eiffel Tower completed?",
            "passages": list(clean_passages),
        }
        for i in range(2)
    ]
    ds = load_rows(rows, name="tiny", seed=0)
    res = run_benchmark(ds, fake_nli, systems=["mirage", "mirage_paper"], cold_cache=False)
    figs = scoreboard.longform_figures(res.records, "mirage")
    fams = scoreboard.POLLUTION_FAMILIES
    assert set(figs) >= {
        "clean pass",
        "MIXED pass",
        "corroborated-claim retention",
        "latency p50 (s)",
        "claims delivered per passing clean query",
    }
    assert all(
        f"MIXED contamination {f}" in figs and f"FULL contamination {f}" in figs for f in fams
    )
    # a missing biogen file is skipped with a message; gpe's long form stays
    args = argparse.Namespace(
        no_longform=False,
        biogen="/nonexistent/biogen.jsonl",
        biogen_n=None,
        seed=0,
        longform_gpe_n=2,
        only=None,
    )
    assert list(scoreboard.longform_loaders(args)) == ["gpe-longform"]
    assert "not found" in capsys.readouterr().err


def test_baselines_are_never_candidates():
    """A baseline that never blocks meets every clean floor; it is measured, not chosen."""
    from benchmarks.families import candidates_from_scoreboard

    def fam_row(system, blocked):
        return {
            "set": "both",
            "system": system,
            "family": "gpt4",
            "split": "fit",
            "blocked": blocked,
            "wrong": 0.0,
        }

    data = {
        "families": [fam_row(s, b) for s, b in (("mirage", 0.9), ("ragdefender", 0.0))]
        + [fam_row("mirage_paper", 0.5), fam_row("vanilla_rag", 0.0)],
        "clean": [
            {"system": "ragdefender", "split": "fit", "measure": "gpe-k5 CLEAN pass", "value": 1.0}
        ],
    }
    names = [c.name for c in candidates_from_scoreboard(data)]
    assert names == ["default", "paper()"]


def test_the_2026_12_04_rule_asks_for_blocking_and_counts_missing_figures():
    from benchmarks.families import BLOCKED_FLOOR_NAME, RULE_2026_12_04, floors_missed

    clean = {
        "gpe-k5 CLEAN pass": 1.0,
        "shortqa CLEAN pass": 1.0,
        "biogen-k10 clean pass": 1.0,
        "biogen-k10 MIXED contamination, worst family": 0.005,
    }
    never_blocks = cand("never", {"x": (0.0, 0.2), "y": (0.0, 0.2)}, clean)
    blocks = cand("blocks", {"x": (0.7, 0.1), "y": (0.7, 0.1)}, clean | {"gpe-k5 CLEAN pass": 0.5})
    # the older rules count floors first: the configuration that never blocks wins
    assert choose([never_blocks, blocks], ["x"], RULE_2026_12_02)[0] is never_blocks
    pick, _, missed = choose([never_blocks, blocks], ["x"], RULE_2026_12_04)
    assert pick is blocks and missed == ("gpe-k5 CLEAN pass",)
    assert floors_missed(never_blocks, RULE_2026_12_04, ["x"]) == (BLOCKED_FLOOR_NAME,)
    # a configuration not run on a floor's data: unchecked before, missed now
    unmeasured = cand("unmeasured", {"x": (0.6, 0.1)})
    assert floors_missed(unmeasured, RULE_2026_12_02) == ()
    assert len(floors_missed(unmeasured, RULE_2026_12_04, ["x"])) == 4


def test_an_output_prefix_with_a_dot_names_its_own_files():
    from benchmarks.scoreboard import output_paths

    quarter, half = output_paths("runs/pairs-0.25"), output_paths("runs/pairs-0.5")
    assert quarter == (Path("runs/pairs-0.25.md"), Path("runs/pairs-0.25.json"))
    assert quarter[1] != half[1]
    assert output_paths("runs/board.json") == output_paths("runs/board")
