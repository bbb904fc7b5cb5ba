"""The volatility catalog (rules/signals.yaml): names, calls, sample values, declared kinds."""

from __future__ import annotations

import pytest

from prefixlint.load.classify import (
    builtin_catalog,
    classify_call,
    classify_variable,
    load_catalog_extension,
    strftime_frequency,
)

CATALOG = builtin_catalog()


@pytest.mark.parametrize(("name", "cls", "frequency"), [
    ("now", "timestamp", "per_request"),
    ("current_time", "timestamp", "per_request"),
    ("local_time", "timestamp", "per_request"),
    ("today", "timestamp", "per_day"),
    ("current_date", "timestamp", "per_day"),
    ("session_id", "identifier", "per_user"),
    ("conversation_id", "identifier", "per_user"),
    ("request_id", "identifier", "per_request"),
    ("trace_id", "identifier", "per_request"),
    ("order_id", "identifier", "per_request"),
    ("nonce", "identifier", "per_request"),
    ("user_name", "user-data", "per_user"),
    ("user_id", "user-data", "per_user"),
    ("Email", "user-data", "per_user"),
    ("location", "user-data", "per_user"),
    ("iteration", "counter-or-random", "per_request"),
    ("turn_number", "counter-or-random", "per_request"),
    ("question", "request-content", "per_request"),
    ("user_message", "request-content", "per_request"),
    ("retrieved_documents", "request-content", "per_request"),
    ("context", "request-content", "per_request"),
])
def test_names(name, cls, frequency):
    v = classify_variable(CATALOG, name, None)
    assert (v.cls, v.frequency, v.volatile) == (cls, frequency, True)


@pytest.mark.parametrize("name", ["product_name", "company", "tone", "max_iterations", "language_style"])
def test_unknown_names_are_stable(name):
    assert not classify_variable(CATALOG, name, None).volatile


@pytest.mark.parametrize(("sample", "cls", "frequency"), [
    ("2025-03-14T09:26:53Z", "timestamp", "per_request"),
    ("2025-03-14 09:26", "timestamp", "per_request"),
    ("2025-03-14", "timestamp", "per_day"),
    ("Friday, March 14, 2025", "timestamp", "per_day"),
    ("Fri, 14 Mar 2025 09:26:53 +0000", "timestamp", "per_request"),
    ("1741944413", "timestamp", "per_request"),
    ("0f8fad5b-d9cb-469f-a165-70867728950e", "identifier", "per_request"),
    ("9f86d081884c7d659a2feaa0c55ad015", "identifier", "per_request"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "identifier", "per_request"),
    ("ana.lopez@example.com", "user-data", "per_user"),
])
def test_sample_values(sample, cls, frequency):
    v = classify_variable(CATALOG, "field", None, [sample])
    assert (v.cls, v.frequency) == (cls, frequency)


def test_declared_kind_wins():
    assert not classify_variable(CATALOG, "now", "stable").volatile
    assert classify_variable(CATALOG, "now", "per_day").frequency == "per_day"
    v = classify_variable(CATALOG, "blurb", "per_user")
    assert (v.cls, v.frequency) == ("user-data", "per_user")
    assert classify_variable(CATALOG, "blurb", "per_request").cls == "request-content"
    assert classify_variable(CATALOG, "blurb", "per_day").cls == "timestamp"


@pytest.mark.parametrize(("fmt", "frequency"), [
    ("%Y-%m-%d %H:%M:%S", "per_request"), ("%H:%M", "per_request"), ("%d %B %Y", "per_day"),
    ("%A", "per_day"), ("%Y", "per_deployment"),
])
def test_strftime_now_frequency_follows_its_format(fmt, frequency):
    assert strftime_frequency(fmt) == frequency
    v = classify_call(CATALOG, "strftime_now", [fmt])
    assert v.cls == "timestamp" and v.frequency == frequency


@pytest.mark.parametrize(("call", "cls"), [
    ("now", "timestamp"), ("utc_now", "timestamp"), ("uuid4", "identifier"), ("random", "counter-or-random"),
])
def test_calls(call, cls):
    assert classify_call(CATALOG, call).cls == cls


def test_unknown_calls_are_stable_helpers():
    assert not classify_call(CATALOG, "format_price").volatile


def test_users_extend_the_catalog_first(tmp_path):
    extra = [{"id": "tenant", "class": "user-data", "frequency": "per_user", "names": ["tenant*"]},
             {"id": "ticket", "class": "identifier", "frequency": "per_request", "samples": ["^TCK-\\d+$"]}]
    catalog = CATALOG.extended(extra)
    assert classify_variable(catalog, "tenant_slug", None).signal == "tenant"
    assert classify_variable(catalog, "ref", None, ["TCK-1234"]).cls == "identifier"
    path = tmp_path / "signals.yaml"
    path.write_text("signals:\n  - {id: shard, class: identifier, frequency: per_request, names: [shard]}\n")
    assert classify_variable(CATALOG.extended(load_catalog_extension(str(path))), "shard", None).volatile
