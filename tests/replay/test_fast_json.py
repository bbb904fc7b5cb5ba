"""`replay.logtext.fast_json_line` (orjson, the `fast` extra) answers exactly what `loads_json` answers,
or leaves the line to it: the bounds on integers, nesting, NaN and surrogates stay `json`'s."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.errors import PrefixlintError
from prefixlint.limits import loads_json
from prefixlint.replay.logtext import fast_json_line

pytest.importorskip("orjson")

scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
           | st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)


def typed(value):
    """The value with every scalar's type beside it (1 and 1.0 and True are not the same answer)."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans())
def test_fast_path_answers_what_loads_json_answers(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    fast = fast_json_line(text.encode("utf-8"))
    if fast is not None:
        assert typed(fast) == typed(loads_json(text))


def test_token_id_line_takes_the_fast_path():
    line = json.dumps({"prompt": [0, 5, 199_999, 2**31 - 1], "model": "m"}).encode()
    assert fast_json_line(line) == {"prompt": [0, 5, 199_999, 2**31 - 1], "model": "m"}


@pytest.mark.parametrize("raw", [
    b'{"prompt": [1234567890123456789]}',          # 19 digits: orjson could read a float past 64 bits
    b'{"prompt": [' + b"1" * 101 + b"]}",           # past MAX_INT_DIGITS: loads_json's diagnostic
    b'{"prompt": [1e400]}',                          # orjson refuses; json reads inf
    b'{"prompt": [NaN]}',
    b'{"text": "\\ud800"}',                          # a lone surrogate
    b'\xef\xbb\xbf{"prompt": [1]}',                  # a BOM
    b'{"text": "caf\xe9"}',                          # not UTF-8
    b"[" * 950 + b"]" * 950,                         # deeper than json reads: json's diagnostic
    b'{"prompt": [1,]}',                             # not JSON
])
def test_what_only_the_careful_path_decides(raw):
    assert fast_json_line(raw) is None


def test_the_integer_bound_still_holds_through_the_log(tmp_path):
    from prefixlint.replay.requestlog import BadLine, read_log

    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"prompt": [1, 2, 3]}\n{"prompt": [' + b"9" * 101 + b"]}\n" + b'{"prompt": [18446744073709551616]}\n')
    with open(log, "rb") as stream:
        items = list(read_log(stream, str(log)))
    assert items[0].body == {"prompt": [1, 2, 3]} and items[0].line == 1
    assert isinstance(items[1], BadLine) and items[1].line == 2 and "101 digits" in items[1].message
    # 2**64 is within the digit bound: read as json reads it (an int), then not a token id (>= 2**31).
    assert isinstance(items[2], BadLine) and items[2].line == 3 and "not token ids" in items[2].message
    with pytest.raises(PrefixlintError):
        loads_json('{"a": ' + "9" * 101 + "}")
