"""The settings a user changes; the method's internals are one nested :class:`MethodSettings`.

Every field is validated once, at construction, from its metadata (:mod:`mirage_core.checks`).
``docs/configuration.md`` is generated from these docstrings (``python -m mirage_core.config``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from mirage_core.checks import markdown_table, rule, validate
from mirage_core.errors import DuplicateKeyError
from mirage_core.jsonl import json_loads
from mirage_core.method_settings import (
    AnswerConflictContext,
    AnswerConflictScope,
    AnswerNames,
    AnswerTimes,
    ConflictRule,
    ContradictionScope,
    ContradictionSymmetry,
    Linkage,
    MethodSettings,
    PartnerRanking,
    QuarantinedConflicts,
    Relevance,
    SourceCount,
)
from mirage_core.types import normalize_domain

__all__ = [
    "AnswerConflictContext",
    "AnswerConflictScope",
    "AnswerNames",
    "AnswerTimes",
    "ConflictRule",
    "ContradictionScope",
    "ContradictionSymmetry",
    "Coordination",
    "Independence",
    "Linkage",
    "MethodSettings",
    "MirageConfig",
    "NLIErrorPolicy",
    "PartnerRanking",
    "QuarantinedConflicts",
    "RedundancyFilter",
    "Relevance",
    "SingleDomain",
    "SourceCount",
]

NLIErrorPolicy = Literal["fallback", "raise", "pass_through"]
Independence = Literal["none", "domain", "embedding"]
Coordination = Literal["none", "text", "embedding"]
SingleDomain = Literal["documents", "block"]
RedundancyFilter = Literal["none", "single_hop", "multi_hop"]

_METHOD_FIELDS = frozenset(f.name for f in fields(MethodSettings))


@dataclass(frozen=True)
class MirageConfig:
    """Configuration of the MIRAGE defense (the method: ``docs/method.md``).

    ``MirageConfig()`` is the measured default; :meth:`paper` is the published method.
    """

    r_max: float = field(default=0.3, metadata=rule("unit"))
    """Highest contradiction ratio r_contr the gate lets through."""
    d_min: int = field(default=2, metadata=rule("int"))
    """Fewest independent sources S* must span to pass the gate."""
    min_support: int = field(default=0, metadata=rule("int", minimum=0))
    """Claims with fewer corroborating independent sources never enter S* (0: the published
    method)."""
    trust: Mapping[str, float] = field(default_factory=dict, metadata=rule("trust"))
    """Domain -> trust in [0, 1], an input of the claim score. Keys are read as passages'
    domains are (lower case, no ``www.``, no final dot, punycode)."""
    default_trust: float = field(default=0.5, metadata=rule("unit"))
    """Trust of a domain not in ``trust``."""
    independence: Independence = "domain"
    """What counts as one source: for n(c) each source and for d_src each domain, as the
    published method counts (``"none"``); one per publisher domain for both (``"domain"``); or
    domain and near-duplicate passages (``"embedding"``). Support inside one source is no
    corroboration."""
    single_domain: SingleDomain = "documents"
    """When every passage comes from one domain: each document is a source (``"documents"``,
    near-copies merged; the verdict warns), or the whole domain is one source and the gate
    blocks (``"block"``). Read with ``independence="domain"`` or ``"embedding"`` only."""
    coordination: Coordination = "embedding"
    """Coordination signals that flag planted passages, whose claims are quarantined: with the
    packaged sentence embedder (``"embedding"``), from text alone (``"text"``), or off."""
    answer_conflict: float | None = field(
        default=0.6, metadata=rule("positive_unit", optional=True)
    )
    """Block when two verified claims of different sources both restate this share of the
    query and name different answers of the kind it asks for (``None``: off;
    :mod:`mirage_core.answer_conflict`)."""
    block_on_tie: bool = field(default=True, metadata=rule("bool"))
    """Block when the claims rejected for contradicting S* have as many independent groups
    behind them as the S* claims they contradict."""
    redundancy_filter: RedundancyFilter = "none"
    """Hold back the passages RAGDefender's estimate marks as the adversarial majority once the
    gate has passed (:mod:`mirage_core.redundancy_filter`)."""
    max_passages: int = field(default=100, metadata=rule("int"))
    """Passages analyzed, in the caller's order; the rest are left out (never delivered) and the
    verdict warns."""
    max_total_chars: int = field(default=1_000_000, metadata=rule("int"))
    """Characters analyzed over all passages; passages past the budget are left out (never
    delivered) and the verdict warns."""
    max_passage_chars: int = field(default=20_000, metadata=rule("int"))
    """Characters of a passage analyzed; the rest is ignored and the verdict warns."""
    max_claims_per_passage: int = field(default=64, metadata=rule("int"))
    """Claims kept per passage, in reading order."""
    partners_per_claim: int | None = field(default=2, metadata=rule("int", optional=True))
    """The NLI pair budget: each claim keeps its best this many candidate partners, so NLI work
    grows linearly with the claims (``None``: every candidate pair)."""
    max_pairs: int | None = field(default=4096, metadata=rule("int", optional=True))
    """A hard cap on a query's NLI pairs; pairs of the most query-relevant claims are kept
    (``None``: no cap)."""
    batch_size: int = field(default=16, metadata=rule("int"))
    """NLI batch size for backends that batch. Pairs are sorted by length before batching, so a
    small batch pads little: on 2 CPU cores 16 runs a query's pairs in 0.77–0.93× (torch) and
    0.79–0.90× (ONNX) the time of 64 (``benchmarks/results/batch_size-nli.md``)."""
    nli_error_policy: NLIErrorPolicy = "fallback"
    """What an NLI or embedder failure does: fail closed (``"fallback"``: no retrieved text is
    used), raise :class:`~mirage_core.errors.NLIError` (:class:`~mirage_core.errors.EmbeddingError`),
    or fail open (``"pass_through"``: every claim delivered unverified, but for those of passages
    read as planted or garbled, which no NLI model is needed to find; without embeddings, the
    query goes on without them). The verdict names the failure (``nli_error``,
    ``embedding_error``)."""
    method: MethodSettings = field(default_factory=MethodSettings)
    """The method's internals (:class:`~mirage_core.method_settings.MethodSettings`)."""

    def __post_init__(self) -> None:
        if not isinstance(self.method, MethodSettings):
            raise ValueError(f"method must be a MethodSettings, got {type(self.method).__name__}")
        validate(self)
        self._check_request_overrides()

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def _check_request_overrides(self) -> None:
        """The names of ``method.request_overrides`` that are not ``MethodSettings`` fields
        must be fields of this class, with valid values."""
        top = {k: v for k, v in self.method.request_overrides.items() if k not in _METHOD_FIELDS}
        if not top:
            return
        unknown = set(top) - ({f.name for f in fields(self)} - {"method"})
        if unknown:
            raise ValueError(f"request_overrides: unknown settings {sorted(unknown)}")
        try:
            applied = replace(self, method=self.method.replace(request_overrides={}), **top)
        except ValueError as exc:
            raise ValueError(f"request_overrides: {exc}") from exc
        # stored as the fields store them (1 as 1.0, trust keys as domains): equal overrides
        # make equal configs of one hash
        normalized = dict(self.method.request_overrides) | {k: getattr(applied, k) for k in top}
        if normalized != self.method.request_overrides or any(
            type(normalized[k]) is not type(v) for k, v in self.method.request_overrides.items()
        ):
            method = replace(self.method, request_overrides=normalized)
            object.__setattr__(self, "method", method)

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def paper(cls, **overrides: Any) -> MirageConfig:
        """The published method exactly: no options beyond it, every source independent, no
        coordination handling, no pair budget. ``overrides`` take field names of either level."""
        base = cls(
            min_support=0,
            independence="none",
            single_domain="block",
            coordination="none",
            answer_conflict=None,
            block_on_tie=False,
            redundancy_filter="none",
            partners_per_claim=None,
            max_pairs=None,
            method=MethodSettings.paper(),
        )
        return base.replace(**overrides) if overrides else base

    def replace(self, **changes: Any) -> MirageConfig:
        """A copy with some settings changed (validated again). Names of
        :class:`MethodSettings` fields change ``method``: ``replace(kappa=0.5)``."""
        top = {k: v for k, v in changes.items() if k not in _METHOD_FIELDS}
        inner = {k: v for k, v in changes.items() if k in _METHOD_FIELDS}
        unknown = set(top) - {f.name for f in fields(self)}
        if unknown:
            raise ValueError(f"unknown MirageConfig fields: {sorted(unknown)}")
        method = top.pop("method", self.method)
        if inner:
            method = method.replace(**inner)
        return replace(self, method=method, **top)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings, the internals nested under ``"method"``."""
        data = {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name != "method"}
        data["method"] = {f.name: _plain(getattr(self.method, f.name)) for f in fields(self.method)}
        return data

    def flat(self) -> dict[str, Any]:
        """Every setting of both levels by name (what a verdict records as its thresholds)."""
        data = self.to_dict()
        return data | data.pop("method")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MirageConfig:
        """Settings from :meth:`to_dict` or :meth:`flat` (internals nested or by name)."""
        data = dict(data)
        method = data.pop("method", None)
        method = {} if method is None else method
        if not isinstance(method, Mapping):
            raise ValueError("'method' must be a mapping of MethodSettings fields")
        twice = set(data) & set(method)
        if twice:
            raise ValueError(
                f"settings given both at top level and under 'method': {sorted(twice)}"
            )
        return cls().replace(**data, **dict(method))  # replace refuses unknown names

    def to_file(self, path: str | Path) -> None:
        """Write the configuration as JSON (what ``mirage calibrate`` produces)."""
        Path(path).write_text(
            json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )

    @classmethod
    def from_file(cls, path: str | Path) -> MirageConfig:
        """Load a JSON file written by :meth:`to_file` or ``mirage calibrate`` (the settings at
        top level or under a ``"config"`` key). ``ValueError`` names the file when it is not
        UTF-8 JSON, and :class:`~mirage_core.errors.DuplicateKeyError` the file and the key when
        an object in it repeats a key."""
        try:
            data = json_loads(Path(path).read_text(encoding="utf-8-sig"))
        except DuplicateKeyError as exc:
            raise DuplicateKeyError(exc.key, str(path)) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a UTF-8 JSON file ({exc})") from None
        except RecursionError:
            raise ValueError(f"{path}: JSON nested too deeply") from None
        if isinstance(data, dict) and isinstance(data.get("config"), dict):
            data = data["config"]
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object of MirageConfig fields")
        return cls.from_dict(data)

    # -- derived ------------------------------------------------------------------------
    @property
    def needs_embeddings(self) -> bool:
        """Whether any step reads sentence embeddings (the embedder is loaded only then)."""
        m = self.method
        return (
            self.independence == "embedding"
            or m.paraphrase_pairs
            or m.paraphrase_support is not None
            or self.coordination == "embedding"
            or self.redundancy_filter != "none"
            or (m.partner_ranking == "embedding" and self.partners_per_claim is not None)
        )

    def trust_of(self, domain: str) -> float:
        return self.trust.get(normalize_domain(domain), self.default_trust)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def configuration_markdown() -> str:
    """The two settings tables of ``docs/configuration.md``."""
    return "\n\n".join(
        [
            "## MirageConfig\n\n" + markdown_table(MirageConfig()),
            "## MethodSettings (`MirageConfig.method`)\n\n" + markdown_table(MethodSettings()),
        ]
    )


if __name__ == "__main__":
    print(configuration_markdown())
