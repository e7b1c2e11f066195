"""Loaders for the NLI sets in ``../shared/data/nli`` and the train / held-out split.

Every file there has its own field layout; the loaders below read each one into
:class:`NLIExample` records with a label normalized to ``entailment`` / ``neutral`` /
``contradiction`` (index 0 / 1 / 2, the order of :data:`mirage_core.nli.base.LABELS`).

Split policy (see :func:`build_splits`):

* **MNLI dev-matched** (anthonywchen generative-nli ``data/mnli/dev.jsonl``) is split half/half
  *by premise* (a salted hash of the normalized premise): the ``heldout`` half is never trained
  on and is the "held-out MNLI-style" evaluation set; the other half is training data.
* **SICK** (CC BY-NC-SA) and **ANLI** (CC BY-NC) are evaluation only, never trained on.
* **SNLI dev** (anthonywchen ``snli/dev.jsonl`` = e-SNLI ``*.dev``) is evaluation only;
  SNLI *test* (e-SNLI ``*.test``) is training data.
* **TaxiNLI** is drawn from MNLI dev, so it is not used for training at all.
* **Breaking NLI** is split 70/30 by premise; the 30% is held out for evaluation.
* **ConjNLI** dev is evaluation; its adversarial train file is training data.
* **VitaminC** (real and synthetic *test* splits, the only ones available) is split by a
  salted hash of the Wikipedia page, which keeps every ``case_id`` (a claim and its evidence
  revisions) on one side: 25% of pages are held out (``vitaminc-heldout``,
  ``vitaminc-syn-heldout``), 75% are training data.
* Topic groups for generated pairs (:attr:`Splits.train_groups`): VitaminC training pages and
  Climate-FEVER evidence sets; held-out groups (:attr:`Splits.eval_groups`): VitaminC held-out
  pages and ANLI dev premise paragraphs.
* Any training pair whose premise or hypothesis (normalized) also occurs as a sentence of an
  evaluation set is dropped, so held-out sentences are never seen in training.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "LABEL2ID",
    "LABELS",
    "GroupedExample",
    "NLIExample",
    "Splits",
    "build_splits",
    "climate_fever_groups",
    "content_words",
    "default_data_dir",
    "iter_label_counts",
    "load_climate_fever",
    "load_jsonl",
    "load_line_aligned",
    "load_tsv",
    "load_vitaminc",
    "normalize_label",
    "normalize_text",
    "overlap",
    "related_neutral_pairs",
    "reverse_entailment_pairs",
    "sample",
    "split_grouped",
    "split_sentences",
    "topic_groups",
]

LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")
LABEL2ID = {name: i for i, name in enumerate(LABELS)}

_LABEL_MAP = {
    "entailment": 0,
    "entails": 0,
    "entailed": 0,
    "e": 0,
    "supports": 0,
    "support": 0,
    "supported": 0,
    "0": 0,
    "neutral": 1,
    "n": 1,
    "not_enough_info": 1,
    "not enough info": 1,
    "nei": 1,
    "unknown": 1,
    "1": 1,
    "contradiction": 2,
    "contradicts": 2,
    "contradict": 2,
    "c": 2,
    "refutes": 2,
    "refute": 2,
    "refuted": 2,
    "2": 2,
}


def normalize_label(raw: object) -> int | None:
    """Map a dataset's label spelling to 0/1/2, or ``None`` when it has no 3-way meaning.

    ``not_entailment`` (2-way RTE/SciTail), ``-`` (no gold label in SNLI), ``DISPUTED`` and
    empty labels return ``None`` and are skipped by the loaders.
    """
    if raw is None:
        return None
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw in (0, 1, 2) else None
    key = str(raw).strip().lower().replace(" ", "_")
    return (
        _LABEL_MAP.get(key.replace("_", " ")) if key == "not_enough_info" else _LABEL_MAP.get(key)
    )


_WS = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Whitespace-normalized text; tokenized corpora (`` .`` endings, -LRB-) are detokenized."""
    t = str(text).replace("-LRB-", "(").replace("-RRB-", ")")
    t = t.replace("-LSB-", "[").replace("-RSB-", "]").replace("``", '"').replace("''", '"')
    t = re.sub(r"\s+([.,;:!?%)\]])", r"\1", t)
    t = re.sub(r"([(\[])\s+", r"\1", t)
    t = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", t)
    return _WS.sub(" ", t).strip()


_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"])")


def split_sentences(text: str) -> list[str]:
    """A light sentence splitter (period/!/? followed by a capital); good enough for
    Wikipedia-style paragraphs, keeps short abbreviations like "U.S." mostly intact."""
    parts = [p.strip() for p in _SENT_END.split(text) if p.strip()]
    out: list[str] = []
    for p in parts:
        if out and (
            len(out[-1]) < 4 or re.search(r"\b(?:[A-Z]|Mr|Mrs|Dr|St|Jr|No|vs)\.$", out[-1])
        ):
            out[-1] = out[-1] + " " + p
        else:
            out.append(p)
    return out


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@dataclass(frozen=True)
class NLIExample:
    premise: str
    hypothesis: str
    label: int
    source: str = ""

    @property
    def label_name(self) -> str:
        return LABELS[self.label]


def _make(premise: object, hypothesis: object, label: object, source: str) -> NLIExample | None:
    lab = normalize_label(label)
    if lab is None or premise is None or hypothesis is None:
        return None
    p, h = normalize_text(str(premise)), normalize_text(str(hypothesis))
    if not p or not h:
        return None
    return NLIExample(p, h, lab, source)


# ----------------------------------------------------------------------------- jsonl
# (premise field, hypothesis field, label field) candidates, in order of preference.
_JSONL_LAYOUTS: tuple[tuple[str, str, str], ...] = (
    ("premise", "hypothesis", "label"),  # generative-nli, LingNLI, ANLI
    ("sentence1", "sentence2", "gold_label"),  # SNLI-style, Breaking NLI, FEVER-symmetric v0.2
    ("evidence_sentence", "claim", "label"),  # FEVER-symmetric v0.1
    ("evidence", "claim", "gold_label"),
    ("evidence", "claim", "label"),
)


def load_jsonl(path: str | Path, source: str | None = None) -> list[NLIExample]:
    """Read a jsonl NLI file; the field layout is detected per record (see ``_JSONL_LAYOUTS``)."""
    path = Path(path)
    src = source or path.stem
    out: list[NLIExample] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            for pk, hk, lk in _JSONL_LAYOUTS:
                if pk in rec and hk in rec and lk in rec:
                    ex = _make(rec[pk], rec[hk], rec[lk], src)
                    if ex is not None:
                        out.append(ex)
                    break
    return out


# ----------------------------------------------------------------------------- tsv
def _decode(raw: bytes) -> str:
    """UTF-8 (BOM stripped), falling back to cp1252 per line (some files mix encodings)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    return text.lstrip("\ufeff")


_TSV_LAYOUTS: tuple[tuple[str, str, str], ...] = (
    ("sentence1", "sentence2", "gold_label"),  # counterfactually-augmented SNLI
    ("premise", "hypothesis", "label"),  # ConjNLI (capitalized, BOM)
    ("prem", "hyp", "label"),  # TaxiNLI
    ("text", "hypothesis", "gold_label"),  # negation-and-nli
    ("sentence_a", "sentence_b", "entailment_judgment"),  # SICK
)


def load_tsv(path: str | Path, source: str | None = None) -> list[NLIExample]:
    """Read a tab-separated NLI file with a header row; columns are matched by name."""
    path = Path(path)
    src = source or path.stem
    out: list[NLIExample] = []
    with path.open("rb") as fh:
        lines = [_decode(b) for b in fh.read().splitlines()]
    if True:
        reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None:
            return out
        cols = [c.strip().lstrip("\ufeff").lower() for c in header]
        for pk, hk, lk in _TSV_LAYOUTS:
            if pk in cols and hk in cols and lk in cols:
                ip, ih, il = cols.index(pk), cols.index(hk), cols.index(lk)
                break
        else:
            raise ValueError(f"{path}: unknown TSV layout {header[:6]}")
        need = max(ip, ih, il)
        for row in reader:
            if len(row) <= need:
                continue
            ex = _make(row[ip], row[ih], row[il], src)
            if ex is not None:
                out.append(ex)
    return out


# ----------------------------------------------------------------------------- others
def load_line_aligned(
    s1: str | Path, s2: str | Path, labels: str | Path, source: str | None = None
) -> list[NLIExample]:
    """Read line-aligned premise / hypothesis / label files (e-SNLI ``s1.x``, ``s2.x``, ``labels.x``)."""
    src = source or Path(s1).suffix.lstrip(".")
    with (
        open(s1, encoding="utf-8") as a,
        open(s2, encoding="utf-8") as b,
        open(labels, encoding="utf-8") as c,
    ):
        la, lb, lc = a.read().splitlines(), b.read().splitlines(), c.read().splitlines()
    if not (len(la) == len(lb) == len(lc)):
        raise ValueError(f"line-aligned files differ in length: {len(la)}, {len(lb)}, {len(lc)}")
    out = []
    for p, h, y in zip(la, lb, lc, strict=True):
        ex = _make(p, h, y, src)
        if ex is not None:
            out.append(ex)
    return out


def load_climate_fever(path: str | Path, source: str = "climate-fever") -> list[NLIExample]:
    """Climate-FEVER: one pair per (evidence sentence -> claim), labelled by the evidence label."""
    out: list[NLIExample] = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            rec = json.loads(line)
            for ev in rec.get("evidences", []):
                ex = _make(ev.get("evidence"), rec.get("claim"), ev.get("evidence_label"), source)
                if ex is not None:
                    out.append(ex)
    return out


# ----------------------------------------------------------------------------- registry
def default_data_dir() -> Path:
    """``../shared/data/nli`` relative to the repository root (the checkout holding mirage_core)."""
    repo = Path(__file__).resolve().parents[1]
    return (repo / ".." / "shared" / "data" / "nli").resolve()


GNLI = "anthonywchen+generative-nli/data"
LING = "Alicia-Parrish+ling_in_loop"
CAD = "acmi-lab+counterfactually-augmented-data/NLI/all_combined"
ESNLI = "OanaMariaCamburu+e-SNLI/dataset/eSNLI"

#: Training sources: name -> (loader, relative paths, license note).
TRAIN_SOURCES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "lingnli": (
        "jsonl",
        (
            *tuple(
                f"{LING}/NLI_data/{proto}/train_round{r}_{tag}.jsonl"
                for proto, tag in (
                    ("1_Baseline_protocol", "baseline"),
                    ("2_Ling_on_side_protocol", "LotS"),
                    ("3_Ling_in_loop_protocol", "LitL"),
                )
                for r in range(1, 6)
            ),
            f"{LING}/NLI_data/1_Baseline_protocol/val_round5_base_combined.jsonl",
            f"{LING}/NLI_data/2_Ling_on_side_protocol/val_round5_LotS_combined.jsonl",
        ),
        "LingNLI (Parrish et al. 2021): license not stated in the repository",
    ),
    "snli-test": (
        "esnli",
        (f"{ESNLI}/s1.test", f"{ESNLI}/s2.test", f"{ESNLI}/labels.test"),
        "SNLI test: CC BY-SA 4.0",
    ),
    "cad": (
        "tsv",
        (f"{CAD}/train.tsv", f"{CAD}/dev.tsv"),
        "Counterfactually-augmented SNLI: Apache-2.0 repo, SNLI-derived (CC BY-SA 4.0)",
    ),
    "conjnli-adv": (
        "tsv",
        ("swarnaHub+ConjNLI/data/NLI/adversarial_train_15k.tsv",),
        "ConjNLI adversarial train: MIT repo",
    ),
    "negation": (
        "tsv",
        tuple(
            f"mosharafhossain+negation-and-nli/data/new_benchmarks/clean_data/{n}.txt"
            for n in ("MNLI", "SNLI", "RTE")
        ),
        "negation-and-nli: MIT repo",
    ),
    "climate-fever": (
        "climate",
        ("tdiggelm+climate-fever-dataset/dataset/climate-fever.jsonl",),
        "Climate-FEVER: Wikipedia evidence (CC BY-SA); no license file in repo",
    ),
    "fever-symmetric": (
        "jsonl",
        (
            "TalSchuster+FeverSymmetric/symmetric_v0.1/fever_symmetric_generated.jsonl",
            "TalSchuster+FeverSymmetric/symmetric_v0.2/fever_symmetric_dev.jsonl",
            "TalSchuster+FeverSymmetric/symmetric_v0.2/fever_symmetric_test.jsonl",
        ),
        "FEVER-symmetric: MIT repo; FEVER CC BY-SA 3.0",
    ),
    # split sources: only their training part is used for training
    "vitaminc-real": (
        "vitaminc",
        ("TalSchuster+talschuster.github.io/vitaminc_real",),
        "VitaminC real-revision test split, 75% of pages: CC BY-SA 3.0 (Wikipedia)",
    ),
    "vitaminc-synthetic": (
        "vitaminc",
        ("TalSchuster+talschuster.github.io/vitaminc_synthetic",),
        "VitaminC synthetic test split, 75% of pages: CC BY-SA 3.0 (Wikipedia / FEVER)",
    ),
    "mnli-dev-train-half": ("jsonl", (f"{GNLI}/mnli/dev.jsonl",), "MultiNLI dev-matched: OANC"),
    "breaking-nli-train": (
        "jsonl",
        ("BIU-NLP+Breaking_NLI/extracted/data/dataset.jsonl",),
        "Breaking NLI: SNLI premises (CC BY-SA 4.0), see its README",
    ),
}

#: Evaluation-only files (relative paths).
EVAL_FILES: dict[str, tuple[str, str]] = {
    "snli-dev": ("jsonl", f"{GNLI}/snli/dev.jsonl"),
    "sick": ("tsv", "praguna+sick_dataset/SICK.txt"),
    "conjnli-dev": ("tsv", "swarnaHub+ConjNLI/data/NLI/conj_dev.tsv"),
    "anli-dev": ("jsonl", f"{LING}/tasks/data/anli_combined/val_anli.jsonl"),
}


def _in_half(text: str, salt: str, frac: float) -> bool:
    """Deterministic group assignment by a salted hash of the normalized text."""
    h = hashlib.sha1((salt + "|" + _key(text)).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2**64 < frac


def _load(kind: str, root: Path, paths: Iterable[str], source: str) -> list[NLIExample]:
    paths = list(paths)
    if kind == "esnli":
        return load_line_aligned(*(root / p for p in paths), source=source)
    loader: Callable[..., list[NLIExample]] = {
        "jsonl": load_jsonl,
        "tsv": load_tsv,
        "climate": load_climate_fever,
    }[kind]
    out: list[NLIExample] = []
    for p in paths:
        out.extend(loader(root / p, source=source))
    return out


@dataclass
class Splits:
    train: dict[str, list[NLIExample]]
    eval: dict[str, list[NLIExample]]
    dropped_overlap: int = 0
    #: topic groups (sentences on one subject: a VitaminC page, a Climate-FEVER evidence set)
    #: from training sources only, for the generated "related but different" / question pairs
    train_groups: dict[str, list[str]] = field(default_factory=dict)
    #: the same from held-out sources only (VitaminC held-out pages, ANLI dev paragraphs)
    eval_groups: dict[str, list[str]] = field(default_factory=dict)

    def train_examples(self) -> list[NLIExample]:
        return [ex for exs in self.train.values() for ex in exs]

    def train_sentences(self) -> list[str]:
        """Distinct sentences (premises and hypotheses) of the training sources."""
        seen: dict[str, None] = {}
        for ex in self.train_examples():
            seen.setdefault(ex.premise)
            seen.setdefault(ex.hypothesis)
        return list(seen)

    def heldout_sentences(self) -> list[str]:
        """Distinct sentences of evaluation sets that are never trained on: premises and
        hypotheses of the held-out MNLI half, premises of SNLI dev and ConjNLI dev, and the
        premise paragraphs of ANLI dev split into sentences (fact-rich Wikipedia text)."""
        seen: dict[str, None] = {}
        for name in ("mnli-heldout", "snli-dev", "conjnli-dev", "anli-dev"):
            for ex in self.eval.get(name, []):
                for sent in split_sentences(ex.premise):
                    seen.setdefault(sent)
                if name == "mnli-heldout":
                    seen.setdefault(ex.hypothesis)
        return list(seen)


def build_splits(
    data_dir: str | Path | None = None,
    *,
    mnli_heldout_frac: float = 0.5,
    breaking_heldout_frac: float = 0.3,
    vitaminc_heldout_frac: float = 0.25,
    include: Iterable[str] | None = None,
) -> Splits:
    """Load every source and return the training sources and the evaluation sets.

    The split is a pure function of the data (salted hashes, no RNG), so it is identical on
    every run and every machine.
    """
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    if not root.is_dir():
        raise FileNotFoundError(f"NLI data directory not found: {root}")
    wanted = set(include) if include is not None else set(TRAIN_SOURCES)

    evals: dict[str, list[NLIExample]] = {}
    mnli = load_jsonl(root / f"{GNLI}/mnli/dev.jsonl", source="mnli-dev-m")
    evals["mnli-heldout"] = [e for e in mnli if _in_half(e.premise, "mnli", mnli_heldout_frac)]
    mnli_train = [e for e in mnli if not _in_half(e.premise, "mnli", mnli_heldout_frac)]
    brk = load_jsonl(root / "BIU-NLP+Breaking_NLI/extracted/data/dataset.jsonl", source="breaking")
    evals["breaking-heldout"] = [
        e for e in brk if _in_half(e.premise, "brk", breaking_heldout_frac)
    ]
    brk_train = [e for e in brk if not _in_half(e.premise, "brk", breaking_heldout_frac)]
    for name, (kind, rel) in EVAL_FILES.items():
        if (root / rel).exists():
            evals[name] = _load(kind, root, [rel], name)
    vitc_train: dict[str, list[GroupedExample]] = {}
    vitc_held: dict[str, list[GroupedExample]] = {}
    for name, rel in VITAMINC_FILES.items():
        if (root / rel).is_dir():
            vitc_train[name], vitc_held[name] = split_grouped(
                load_vitaminc(root / rel, source=name), "vitc", vitaminc_heldout_frac
            )
    if "vitaminc-real" in vitc_held:
        evals["vitaminc-heldout"] = [r.example for r in vitc_held["vitaminc-real"]]
    if "vitaminc-synthetic" in vitc_held:
        evals["vitaminc-syn-heldout"] = [r.example for r in vitc_held["vitaminc-synthetic"]]

    banned: set[str] = set()
    for exs in evals.values():
        for e in exs:
            banned.add(_key(e.premise))
            banned.add(_key(e.hypothesis))

    train: dict[str, list[NLIExample]] = {}
    dropped = 0
    for name, (kind, rels, _lic) in TRAIN_SOURCES.items():
        if name not in wanted:
            continue
        if name == "mnli-dev-train-half":
            exs = [NLIExample(e.premise, e.hypothesis, e.label, name) for e in mnli_train]
        elif name in VITAMINC_FILES:
            if name not in vitc_train:
                continue
            exs = [r.example for r in vitc_train[name]]
        elif name == "breaking-nli-train":
            exs = [NLIExample(e.premise, e.hypothesis, e.label, name) for e in brk_train]
        else:
            if not all((root / r).exists() for r in rels):
                continue
            exs = _load(kind, root, rels, name)
        kept = [
            e for e in exs if _key(e.premise) not in banned and _key(e.hypothesis) not in banned
        ]
        dropped += len(exs) - len(kept)
        # exact duplicates inside a source carry no information
        seen: set[tuple[str, str, int]] = set()
        uniq = []
        for e in kept:
            k = (e.premise, e.hypothesis, e.label)
            if k not in seen:
                seen.add(k)
                uniq.append(e)
        train[name] = uniq

    def clean(groups: dict[str, list[str]]) -> dict[str, list[str]]:
        kept = {k: [t for t in v if _key(t) not in banned] for k, v in groups.items()}
        return {k: v for k, v in kept.items() if len(v) >= 2}

    train_groups: dict[str, list[str]] = {}
    for name, recs in vitc_train.items():
        train_groups.update({f"{name}:{k}": v for k, v in topic_groups(recs).items()})
    cf = root / TRAIN_SOURCES["climate-fever"][1][0]
    if cf.exists():
        train_groups.update(climate_fever_groups(cf))
    eval_groups: dict[str, list[str]] = {}
    if "vitaminc-real" in vitc_held:
        held_groups = topic_groups(vitc_held["vitaminc-real"])
        eval_groups.update({f"vitaminc:{k}": v for k, v in held_groups.items()})
    for ex in evals.get("anli-dev", []):
        sents = split_sentences(ex.premise)
        if len(sents) >= 2:
            eval_groups.setdefault(f"anli:{_key(ex.premise)[:80]}", sents)
    return Splits(
        train=train,
        eval=evals,
        dropped_overlap=dropped,
        train_groups=clean(train_groups),
        eval_groups=eval_groups,
    )


def sample(exs: list[NLIExample], n: int, seed: int) -> list[NLIExample]:
    """A seeded subsample of at most ``n`` examples (order preserved)."""
    if n >= len(exs):
        return list(exs)
    idx = sorted(random.Random(seed).sample(range(len(exs)), n))
    return [exs[i] for i in idx]


def iter_label_counts(exs: Iterable[NLIExample]) -> Iterator[tuple[str, int]]:
    counts = [0, 0, 0]
    for e in exs:
        counts[e.label] += 1
    yield from zip(LABELS, counts, strict=True)


# ----------------------------------------------------------------------------- NLI v2 parts
# VitaminC (Schuster et al. 2021), the published *test* splits in
# ``TalSchuster+talschuster.github.io``: gzip jsonl ``{premise, hypothesis, label}`` plus a
# line-aligned ``test.ids.tsv.gz`` sidecar with ``case_id`` and ``page``. A case (one claim with
# its before/after evidence revisions) never spans two pages, so the split groups by *page*:
# every case, and every other sentence of the same article, falls on one side. The held-out
# pages are never trained on; the "related but different" and question pairs of the training
# mix are built from training pages only.
VITAMINC = "TalSchuster+talschuster.github.io"
VITAMINC_FILES: dict[str, str] = {
    "vitaminc-real": f"{VITAMINC}/vitaminc_real",
    "vitaminc-synthetic": f"{VITAMINC}/vitaminc_synthetic",
}


@dataclass(frozen=True)
class GroupedExample:
    """An :class:`NLIExample` with the case and topic (page) it belongs to."""

    example: NLIExample
    case_id: str
    page: str


def _open_text(path: Path) -> Iterator[str]:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        yield from fh


def load_vitaminc(folder: str | Path, source: str = "vitaminc") -> list[GroupedExample]:
    """Read a VitaminC folder (``test.jsonl[.gz]`` + ``test.ids.tsv[.gz]``) with case and page.

    Rows whose label has no 3-way meaning are skipped; U+FFFD (a lost non-breaking space in the
    source) becomes a space; FEVER tokenization is undone by :func:`normalize_text`.
    """
    folder = Path(folder)

    def pick(stem: str) -> Path:
        for name in (f"{stem}.gz", stem):
            if (folder / name).exists():
                return folder / name
        raise FileNotFoundError(folder / stem)

    rows = [json.loads(line) for line in _open_text(pick("test.jsonl")) if line.strip()]
    ids = [line.rstrip("\n").split("\t") for line in _open_text(pick("test.ids.tsv"))]
    header = [c.strip().lower() for c in ids[0]]
    ic, ip = header.index("case_id"), header.index("page")
    ids = [r for r in ids[1:] if len(r) > max(ic, ip)]
    if len(ids) != len(rows):
        raise ValueError(f"{folder}: {len(rows)} rows but {len(ids)} id lines")
    out: list[GroupedExample] = []
    for rec, meta in zip(rows, ids, strict=True):
        ex = _make(
            str(rec.get("premise", "")).replace("\ufffd", " "),
            str(rec.get("hypothesis", "")).replace("\ufffd", " "),
            rec.get("label"),
            source,
        )
        if ex is not None:
            out.append(GroupedExample(ex, meta[ic], normalize_text(meta[ip])))
    return out


def split_grouped(
    recs: Iterable[GroupedExample], salt: str, heldout_frac: float
) -> tuple[list[GroupedExample], list[GroupedExample]]:
    """(train, held-out) by a salted hash of the page: no page, hence no case, is on both sides."""
    train: list[GroupedExample] = []
    held: list[GroupedExample] = []
    for r in recs:
        (held if _in_half(r.page, salt, heldout_frac) else train).append(r)
    return train, held


def topic_groups(recs: Iterable[GroupedExample]) -> dict[str, list[str]]:
    """Distinct evidence sentences (premises) per page, in file order."""
    groups: dict[str, dict[str, None]] = {}
    for r in recs:
        groups.setdefault(r.page, {}).setdefault(r.example.premise)
    return {k: list(v) for k, v in groups.items()}


def climate_fever_groups(path: str | Path) -> dict[str, list[str]]:
    """Climate-FEVER: the distinct evidence sentences of each claim's evidence set."""
    out: dict[str, list[str]] = {}
    for line in _open_text(Path(path)):
        if not line.strip():
            continue
        rec = json.loads(line)
        sents: dict[str, None] = {}
        for ev in rec.get("evidences", []):
            t = normalize_text(str(ev.get("evidence") or ""))
            if t:
                sents.setdefault(t)
        if len(sents) >= 2:
            out[f"cf:{rec.get('claim_id', len(out))}"] = list(sents)
    return out


_STOPWORDS = frozenset(
    """a an the and or but of in on at to for from by with as is are was were be been being has
    have had do does did not no it its this that these those he she they we you i his her their
    our your which who whom what when where why how than then there here also into about over
    after before during between under more most such can could would should will may might must
    s one two three""".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased content words and numbers of a sentence (stopwords dropped)."""
    return {w for w in _key(text).split() if w not in _STOPWORDS and (len(w) > 2 or w.isdigit())}


def overlap(a: str, b: str) -> float:
    """Shared content words over the smaller sentence's content words (0 when one is empty)."""
    ca, cb = content_words(a), content_words(b)
    if not ca or not cb:
        return 0.0
    return len(ca & cb) / min(len(ca), len(cb))


def _same_frame(a: str, b: str) -> bool:
    """True when two sentences look like revisions of one statement (same words, other numbers):
    the VitaminC pages hold several revisions of one sentence, which may well contradict."""
    wa = [w for w in _key(a).split() if not w[0].isdigit()]
    wb = [w for w in _key(b).split() if not w[0].isdigit()]
    if not wa or not wb:
        return False
    sa, sb = set(wa), set(wb)
    return len(sa & sb) / len(sa | sb) >= 0.5


def related_neutral_pairs(
    groups: dict[str, list[str]],
    n: int,
    seed: int,
    *,
    max_overlap: float = 0.4,
    min_words: int = 5,
    max_words: int = 60,
    source: str = "related-neutral",
) -> list[NLIExample]:
    """``n`` neutral pairs of two *different* sentences on one topic (same evidence set, same
    page): they share the subject but state different facts, so neither entails or contradicts
    the other. Pairs that overlap too much (``overlap > max_overlap``) or look like two
    revisions of one sentence are skipped, since those may genuinely conflict.
    Groups are visited round-robin in a seeded order, so no single page dominates."""
    rng = random.Random(seed)
    keys = [k for k, v in groups.items() if len(v) >= 2]
    rng.shuffle(keys)
    pools = {k: [s for s in groups[k] if min_words <= len(s.split()) <= max_words] for k in keys}
    keys = [k for k in keys if len(pools[k]) >= 2]
    out: list[NLIExample] = []
    seen: set[tuple[str, str]] = set()
    rounds = 0
    while len(out) < n and keys and rounds < 50:
        rounds += 1
        added = 0
        for k in keys:
            if len(out) >= n:
                break
            pool = pools[k]
            for _ in range(3):
                a, b = rng.sample(pool, 2)
                if (a, b) in seen or (b, a) in seen:
                    continue
                if overlap(a, b) > max_overlap or _same_frame(a, b):
                    continue
                seen.add((a, b))
                out.append(NLIExample(a, b, 1, source))
                added += 1
                break
        if not added:
            break
    return out


def reverse_entailment_pairs(
    exs: Iterable[NLIExample],
    n: int,
    seed: int,
    *,
    paraphrase_overlap: float = 0.8,
    source: str = "reverse-entail",
) -> list[NLIExample]:
    """The reverse of entailment pairs (hypothesis as premise). Contradiction is symmetric, so
    the reverse of an entailment is never a contradiction: it is entailment when the two
    sentences are near paraphrases (each covers ``paraphrase_overlap`` of the other's content
    words, similar length) and neutral otherwise (the premise added detail)."""
    cands = [e for e in exs if e.label == 0 and e.premise != e.hypothesis]
    out: list[NLIExample] = []
    for e in sample(cands, min(n, len(cands)), seed):
        cp, ch = content_words(e.premise), content_words(e.hypothesis)
        if not cp or not ch:
            continue
        both = len(cp & ch)
        lp, lh = len(e.premise.split()), len(e.hypothesis.split())
        para = (
            min(len(cp), len(ch)) >= 3
            and both / len(cp) >= paraphrase_overlap
            and both / len(ch) >= paraphrase_overlap
            and min(lp, lh) / max(lp, lh) >= 0.75
        )
        out.append(
            NLIExample(
                e.hypothesis,
                e.premise,
                0 if para else 1,
                f"{source}:{'paraphrase' if para else 'added_detail'}",
            )
        )
    return out
