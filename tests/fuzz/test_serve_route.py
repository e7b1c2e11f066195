"""Property-based fuzzing of the NLI HTTP route (``NLIService`` in ``build_api``'s FastAPI app).

Bodies are well-formed requests of hostile text, other JSON values, near-misses of the request
shape and raw bytes; the ``Authorization`` header is fuzzed against a token. A malformed request
answers 4xx, never 500 (the test client re-raises a server error); a well-formed one answers
200 with one finite probability row per pair.
"""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("fastapi")
from hypothesis import event, given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from mirage_core.nli.base import CallableNLI
from mirage_core.serve import ServeConfig
from mirage_core.serve.routes import NLIService, build_api
from tests.conftest import lexical_nli
from tests.fuzz.conftest import FUZZ, any_char, hostile_text

MAX_PAIRS, MAX_CHARS, MAX_BODY = 8, 300, 20_000
TOKEN = "s3cret-token"
CONFIG = dict(max_batch_pairs=MAX_PAIRS, max_text_chars=MAX_CHARS, max_body_bytes=MAX_BODY)


def client(config: ServeConfig) -> TestClient:
    service = NLIService(config, CallableNLI(lexical_nli))
    return TestClient(build_api(service), base_url="http://nli.test")


@pytest.fixture(scope="module")
def open_client():
    with client(ServeConfig(**CONFIG)) as c:
        yield c


@pytest.fixture(scope="module")
def token_client():
    with client(ServeConfig(token=TOKEN, **CONFIG)) as c:
        yield c


def _valid(text: object) -> bool:
    """A string the route must accept: at most MAX_CHARS characters, no surrogate (JSON's
    escapes of a lone one are invalid; a pair of them would be joined into one character)."""
    return (
        isinstance(text, str)
        and len(text) <= MAX_CHARS
        and not any("\ud800" <= ch <= "\udfff" for ch in text)
    )


pair_text = st.one_of(hostile_text(max_fragments=3), st.text(any_char, max_size=40))
pairs = st.lists(st.tuples(pair_text, pair_text).map(list), max_size=MAX_PAIRS + 2)
json_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(any_char, max_size=10),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
near_miss = st.one_of(
    st.fixed_dictionaries({"pairs": st.lists(st.lists(json_value, max_size=4), max_size=4)}),
    st.fixed_dictionaries({"pairs": json_value}),
    st.fixed_dictionaries({"pairs": pairs, "extra": json_value}),
    st.fixed_dictionaries({"Pairs": pairs}),
    json_value,
)


def _encode(value: object, how: str) -> bytes:
    if how == "ascii":
        return json.dumps(value).encode()
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(("valid",) * 3 + ("near", "near", "bytes", "cut", "padded")))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    value = {"pairs": draw(pairs)} if kind != "near" else draw(near_miss)
    body = _encode(value, draw(st.sampled_from(("ascii", "utf-8"))))
    if kind == "cut":  # truncated, or with junk before it
        junk = draw(st.sampled_from((b"", b"\xef\xbb\xbf", b" ", b"[")))
        body = junk + body[: draw(st.integers(0, len(body)))]
    if kind == "padded":  # JSON's whitespace around a request, maybe past the body limit
        space = draw(st.sampled_from((b" ", b"\n", b"\t")))
        body += space * draw(st.one_of(st.integers(0, 99), st.integers(MAX_BODY - 99, MAX_BODY)))
    return body


def _refuse(name: str) -> object:
    raise ValueError(name)


def parsed_request(body: bytes) -> object:
    """The request ``body`` holds, read by the standard library, or None when it holds none:
    not UTF-8 (a byte order mark included), not JSON, or not ``{"pairs": [[str, str], ...]}``
    within the limits."""
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_refuse)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    well_formed = (
        isinstance(value, dict)
        and set(value) == {"pairs"}
        and isinstance(value["pairs"], list)
        and len(value["pairs"]) <= MAX_PAIRS
        and all(
            isinstance(p, list) and len(p) == 2 and all(_valid(t) for t in p)
            for p in value["pairs"]
        )
    )
    return value if well_formed else None


def check_answer(response, body: bytes) -> None:
    """200 with a finite row a pair for a well-formed request, else 413 or 400; never 5xx."""
    event(f"status: {response.status_code}")
    assert response.status_code < 500, response.text
    value = parsed_request(body)
    if len(body) > MAX_BODY:
        assert response.status_code == 413, response.text
    elif value is None:
        assert response.status_code == 400, response.text
        assert "pair of strings" in response.json()["error"]
    else:
        assert response.status_code == 200, response.text
        probs = response.json()["probs"]
        assert len(probs) == len(value["pairs"])
        assert all(len(row) == 3 and all(math.isfinite(x) for x in row) for row in probs)


@FUZZ
@given(request=bodies())
def test_predict(open_client, request) -> None:
    response = open_client.post("/predict", content=request)
    check_answer(response, request)


header_value = st.one_of(
    st.just(f"Bearer {TOKEN}"),
    st.just(f"Bearer {TOKEN}"),
    st.just(f"Bearer {TOKEN}"),
    st.sampled_from(
        (
            f"bearer {TOKEN}",
            f"Bearer  {TOKEN} ",
            f"Bearer {TOKEN}x",
            f"Basic {TOKEN}",
            "Bearer",
            "Bearer ",
            "",
            TOKEN,
            f"Bearer {TOKEN[:-1]}",
        )
    ),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30),
    st.builds(
        lambda t: f"Bearer {t}",
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20),
    ),
)


@FUZZ
@given(authorization=st.one_of(st.none(), header_value), request=bodies())
def test_predict_with_a_token(token_client, authorization, request) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    response = token_client.post("/predict", content=request, headers=headers)
    scheme, _, given_token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or given_token.strip() != TOKEN:
        event("status: 401")
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"] == "Bearer"
        return
    check_answer(response, request)
