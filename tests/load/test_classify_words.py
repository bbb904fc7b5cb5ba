"""Names classified by their words (issue 11, item 3): camelCase, PascalCase, snake, kebab,
dotted and indexed names; calls by their last word; deployment constants stay stable."""

import pytest

from prefixlint.load.classify import builtin_catalog, classify_call, classify_variable, name_words

CATALOG = builtin_catalog()


@pytest.mark.parametrize("name, words", [
    ("customer.firstName", ["customer", "first", "name"]),
    ("researchContext", ["research", "context"]),
    ("CurrentDate", ["current", "date"]),
    ("runtime_info.date", ["runtime", "info", "date"]),
    ("user-location", ["user", "location"]),
    ("state['date']", ["state", "date"]),
    ("items[0].title", ["items", "0", "title"]),
    ("HTTPServerTime", ["http", "server", "time"]),
    ("$firstname", ["firstname"]),
])
def test_name_words(name, words):
    assert name_words(name) == words


@pytest.mark.parametrize("name, cls, frequency", [
    ("currentDate", "timestamp", "per_day"),
    ("dateTime", "timestamp", "per_request"),
    ("systemClock", "timestamp", "per_request"),
    ("researchContext", "request-content", "per_request"),
    ("documentation", "request-content", "per_request"),
    ("searchSnippets", "request-content", "per_request"),
    ("participant", "user-data", "per_user"),
    ("customer.firstName", "user-data", "per_user"),
    ("memberProfile", "user-data", "per_user"),
    ("userTimezone", "user-data", "per_user"),
    ("customer_orders", "user-data", "per_user"),  # the head says nothing: a modifier decides
    ("userQuestion", "request-content", "per_request"),  # the head word decides first
    ("iterationCount", "counter-or-random", "per_request"),
    ("birthDate", "user-data", "per_user"),  # the longest phrase at the head wins
    # a user's saved instructions: set once, constant within a conversation
    ("customInstructions", "user-data", "per_user"),
    ("sanitized_instructions", "user-data", "per_user"),
    ("instruction_input", "request-content", "per_request"),  # named whole: the request's input
    # a job a request is about: `role` qualified by the job, not the assistant's role
    ("job_role", "request-content", "per_request"),
    ("targetRole", "request-content", "per_request"),
    ("jobDescription", "request-content", "per_request"),
    # names in Spanish, Portuguese, French, German
    ("fecha_actual", "timestamp", "per_day"),
    ("hora", "timestamp", "per_request"),
    ("mensaje", "request-content", "per_request"),
    ("contexto", "request-content", "per_request"),
    ("nombre_usuario", "user-data", "per_user"),
    ("kontext", "request-content", "per_request"),
])
def test_volatile_by_words(name, cls, frequency):
    v = classify_variable(CATALOG, name, None)
    assert (v.cls, v.frequency) == (cls, frequency)


@pytest.mark.parametrize("name", [
    "top_k", "dialect", "tools", "tool_names", "aiName", "assistant_name", "botName", "model_name",
    "api_docs", "table_info", "system_message", "knowledge_cutoff_date", "max_results", "maxIterations",
    "product_name", "tone",
])
def test_deployment_constants_stay_stable(name):
    assert not classify_variable(CATALOG, name, None).volatile


def test_declared_kind_wins_over_a_deployment_word():
    assert classify_variable(CATALOG, "assistant_name", "per_user").volatile


@pytest.mark.parametrize("name, frequency", [
    ("TimePlugin.Now", "per_request"), ("timeplugin.now", "per_request"), ("TimePlugin.Second", "per_request"),
    ("time.Date", "per_day"), ("clock.today", "per_day"), ("get_timestamp", "per_request"),
])
def test_calls_by_last_word(name, frequency):
    v = classify_call(CATALOG, name)
    assert v.cls == "timestamp" and v.frequency == frequency


@pytest.mark.parametrize("name", ["recall", "get_weather", "date_format", "TimePlugin.Format"])
def test_other_calls_stay_stable(name):
    assert not classify_call(CATALOG, name).volatile



@pytest.mark.parametrize("name", ["role", "assistant_role", "agent_role", "bot_name",
                                  # a bound on something is a limit the deployment sets
                                  "max_search_queries", "maxSearchQueries", "min_score", "maximum_questions"])
def test_the_assistants_role_stays_a_deployment_constant(name):
    assert classify_variable(CATALOG, name, None).frequency == "per_deployment"


@pytest.mark.parametrize("name", ["max_docs", "min_context", "max_history", "maxChatHistory",  # a bound, before globs
                                  "num_questions", "number_of_results", "n_ideas", "numTurns"])  # a size to produce
def test_a_bound_or_a_size_is_a_deployment_constant_before_what_it_names(name):
    # `*_docs`, `*_context`, `*_history` alone would make these request content
    found = classify_variable(CATALOG, name, None)
    assert (found.cls, found.frequency) == (None, "per_deployment")


@pytest.mark.parametrize(("name", "cls", "frequency"), [
    ("turn_number", "counter-or-random", "per_request"), ("step_number", "counter-or-random", "per_request"),
    ("phone_number", "user-data", "per_user"), ("docs", "request-content", "per_request"),
    ("n", "counter-or-random", "per_request"),
])
def test_a_running_count_and_what_a_bound_would_name_keep_their_class(name, cls, frequency):
    found = classify_variable(CATALOG, name, None)
    assert (found.cls, found.frequency) == (cls, frequency)
