"""The benchmark pair store and its committed seed: a fresh store reads the seed of its model's
digest instead of scoring again, and reads back exactly what was scored."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from benchmarks._pair_store import PersistentNLI, open_pair_table
from benchmarks.pair_seed import PairSeed, export, key_prefixes


class CountingNLI:
    """Deterministic float32 scores from the texts' lengths; counts the pairs it scores."""

    def __init__(self) -> None:
        self.scored = 0

    def predict(self, premises, hypotheses):
        self.scored += len(premises)
        raw = np.array(
            [
                [len(p) + 1.0, len(h) + 2.0, len(p) * len(h) % 7 + 1.0]
                for p, h in zip(premises, hypotheses)
            ],
            dtype=np.float32,
        )
        return raw / raw.sum(axis=1, keepdims=True)


PREMISES = ["The tower was completed in 1889.", "It is 330 metres tall.", "Paris is in France."]
HYPOTHESES = ["The tower opened in 1889.", "It is 410 metres tall.", "Lyon is in France."]


@pytest.fixture
def seed_dir(tmp_path):
    return tmp_path / "seed"


def test_a_fresh_store_reads_the_exported_seed_without_scoring(tmp_path, seed_dir):
    first = PersistentNLI(CountingNLI(), tmp_path / "a.sqlite", "abc", seed_dir=seed_dir)
    scored = first.predict(PREMISES, HYPOTHESES)
    assert first.inner.scored == 3

    before, after, path = export(tmp_path / "a.sqlite", "abc", folder=seed_dir)
    assert (before, after, path.name) == (0, 3, "abc.npz")

    fresh = PersistentNLI(CountingNLI(), tmp_path / "b.sqlite", "abc", seed_dir=seed_dir)
    again = fresh.predict(PREMISES[::-1], HYPOTHESES[::-1])
    assert fresh.inner.scored == 0 and fresh.seeded == 3
    np.testing.assert_array_equal(again, scored[::-1])  # float32 kept exactly

    # a pair the seed never held is scored, and the seeded ones are now in the store
    fresh.predict(["A new premise."], ["A new hypothesis."])
    assert fresh.inner.scored == 1
    rows = sqlite3.connect(tmp_path / "b.sqlite").execute("SELECT COUNT(*) FROM pairs").fetchone()
    assert rows[0] == 4


def test_another_digest_does_not_read_the_seed(tmp_path, seed_dir):
    PersistentNLI(CountingNLI(), tmp_path / "a.sqlite", "abc", seed_dir=seed_dir).predict(
        PREMISES, HYPOTHESES
    )
    export(tmp_path / "a.sqlite", "abc", folder=seed_dir)
    other = PersistentNLI(CountingNLI(), tmp_path / "b.sqlite", "xyz", seed_dir=seed_dir)
    assert other.seed is None
    other.predict(PREMISES, HYPOTHESES)
    assert other.inner.scored == 3
    # the store holds both digests; each export takes only its own rows
    shared = tmp_path / "a.sqlite"
    PersistentNLI(CountingNLI(), shared, "xyz", seed_dir=seed_dir).predict(
        PREMISES[:1], HYPOTHESES[:1]
    )
    assert export(shared, "xyz", folder=seed_dir)[1] == 1
    assert export(shared, "abc", folder=seed_dir)[1] == 3


def test_export_merges_into_the_committed_seed(tmp_path, seed_dir):
    store = PersistentNLI(CountingNLI(), tmp_path / "a.sqlite", "abc", seed_dir=seed_dir)
    store.predict(PREMISES[:2], HYPOTHESES[:2])
    assert export(tmp_path / "a.sqlite", "abc", folder=seed_dir)[:2] == (0, 2)
    other = PersistentNLI(CountingNLI(), tmp_path / "b.sqlite", "abc", seed_dir=seed_dir)
    other.predict(PREMISES, HYPOTHESES)
    assert other.inner.scored == 1
    assert export(tmp_path / "b.sqlite", "abc", folder=seed_dir)[:2] == (2, 3)


def test_a_store_from_before_digests_gets_the_column(tmp_path, seed_dir):
    old = sqlite3.connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE pairs (k TEXT PRIMARY KEY, e REAL, n REAL, c REAL)")
    old.execute("INSERT INTO pairs VALUES ('00ff' || printf('%036d', 0), 0.2, 0.3, 0.5)")
    old.commit()
    old.close()
    db = open_pair_table(tmp_path / "old.sqlite")
    assert "d" in {row[1] for row in db.execute("PRAGMA table_info(pairs)")}
    db.close()
    assert export(tmp_path / "old.sqlite", "abc", folder=seed_dir)[1] == 0
    assert export(tmp_path / "old.sqlite", "abc", folder=seed_dir, unlabelled=True)[1] == 1


def test_lookup_finds_only_the_keys_it_holds():
    keys = ["00000000000000a0" + "0" * 24, "00000000000000b0" + "1" * 24]
    seed = PairSeed(key_prefixes(keys), np.array([[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]))
    got = seed.lookup([keys[1], "00000000000000a1" + "0" * 24, "ff" * 20])
    assert list(got) == [keys[1]]
    assert got[keys[1]] == pytest.approx((0.6, 0.3, 0.1))
    with pytest.raises(ValueError, match="n × 3"):
        PairSeed(key_prefixes(keys), np.zeros((2, 2)))
