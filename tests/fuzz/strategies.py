"""Hypothesis strategies for hostile input: mutated real files, generated templates in each
placeholder syntax, data structures for YAML/JSON/TOML, request-log lines and model configs."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).parent.parent.parent
#: Every sample and format fixture, mutated by `mutated_files`.
SEEDS = sorted(p for folder in ("samples", "tests/fixtures/formats", "tests/fixtures/sources")
               for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in
               {".yaml", ".yml", ".json", ".j2", ".jinja", ".jinja2", ".md", ".txt", ".prompt", ".prompty",
                ".py", ".ts"})

#: What an attacker inserts: syntax of every format, values Python refuses, runaway constructs.
HOSTILE = [
    "{{", "}}", "{%", "%}", "{#", "{{ x|nosuchfilter }}", "{% for loop in x %}", "{{ 1 if 'a'.role else 2 }}",
    "{{ 'a'|center(10**9) }}", "{{ '{:>999999999}'.format(1) }}", "{{ ''.__class__ }}", "{:>3000000000}",
    "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "{{> partial}}", "{{#each items}}", "{{/each}}", "{{json x indent=100000000}}", "{{$x}}", "${x}",
    "&a", "*a", "<<: *a", "!!python/object/apply:os.system ['id']", "!!binary", "2024-13-45", "2024-02-30",
    "9" * 5000, "[" * 3000, "{" * 3000, "- ", ": ", "---\n", "\t", "\r\n", "\x00", "\ufeff", "\"", "'",
    "file:///etc/passwd", "file://../../../etc/*", "../../../../etc/passwd", "template_path: /etc/passwd",
    "NaN", "1e400", "-0", "\udcff", "\u202e", "lc: 1", "_type: prompt", "kwargs: 5", "messages:",
]

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
payload = st.one_of(st.sampled_from(HOSTILE), text, st.binary(max_size=12))


@st.composite
def mutated_files(draw) -> tuple[str, bytes]:
    """A seed file with a few insertions, deletions, replacements and duplications."""
    seed = draw(st.sampled_from(SEEDS))
    data = bytearray(seed.read_bytes())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        span = draw(st.integers(0, 64))
        insert = draw(payload)
        insert = insert.encode("utf-8", "surrogatepass") if isinstance(insert, str) else insert
        operation = draw(st.sampled_from(["insert", "replace", "delete", "duplicate"]))
        if operation == "insert":
            data[at:at] = insert
        elif operation == "replace":
            data[at:at + span] = insert
        elif operation == "delete":
            del data[at:at + span]
        else:
            data[at:at] = data[at:at + span] * draw(st.integers(2, 50))
    return seed.name, bytes(data)


NAMES = ["user_name", "session_id", "items", "x", "now", "question", "loop", "ns"]
EXPRESSIONS = st.one_of(
    st.sampled_from(NAMES + ["'a'", "1", "10**9", "range(3)", "range(99999)", "[1, 2]", "{'a': 1}", "none",
                             "loop.index", "ns.s", "'%999999999s'", "x.y.z", "cycler(1, 2)"]),
    st.integers(-10**12, 10**12).map(str),
)
FILTERS = ["upper", "length", "join(',')", "center(10**8)", "indent(99999999)", "replace('a', 'aaaa')",
           "format('a')", "tojson", "tojson(indent=100000)", "batch(3)", "list", "first", "default('d')",
           "nosuchfilter", "sort.keys", "int", "string", "trim", "wordwrap(5)", "selectattr('x')", "map('upper')"]


@st.composite
def jinja_expression(draw) -> str:
    expression = draw(EXPRESSIONS)
    for _ in range(draw(st.integers(0, 2))):
        operator = draw(st.sampled_from(["|", " ~ ", " * ", " + ", " % ", "."]))
        if operator == "|":
            expression += "|" + draw(st.sampled_from(FILTERS))
        elif operator == ".":
            expression += "." + draw(st.sampled_from(["upper()", "ljust(10**9)", "format(x)", "replace('a', x)",
                                                      "items()", "role", "__class__", "split()"]))
        else:
            expression = f"({expression}){operator}{draw(EXPRESSIONS)}"
    return expression


def _block(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(NAMES), jinja_expression(), inner).map(
            lambda t: f"{{% for {t[0]} in {t[1]} %}}{t[2]}{{% endfor %}}"),
        st.tuples(jinja_expression(), inner).map(lambda t: f"{{% if {t[0]} %}}{t[1]}{{% endif %}}"),
        st.tuples(st.sampled_from(NAMES), jinja_expression()).map(lambda t: f"{{% set {t[0]} = {t[1]} %}}"),
        inner.map(lambda body: f"{{% macro m() %}}{body}{{% endmacro %}}{{{{ m() }}}}"),
        st.just("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
        st.lists(inner, max_size=3).map("".join),
    )


jinja_templates = st.recursive(
    st.one_of(text, jinja_expression().map(lambda e: f"{{{{ {e} }}}}"), st.sampled_from(HOSTILE[:14])),
    _block, max_leaves=8,
)

HANDLEBARS = ["{{name}}", "{{#each items}}{{this}}{{/each}}", "{{#if x}}a{{else}}b{{/if}}", "{{json items}}",
              "{{json items indent=100000000}}", "{{> house}}", "{{{raw}}}", "{{role \"user\"}}", "{{#with x}}",
              "{{/with}}", "{{@root.x}}", "{{../x}}", "{{!-- c --}}", "{{#section \"a\"}}{{/section}}", "{{"]
MUSTACHE = ["{{name}}", "{{#items}}{{.}}{{/items}}", "{{^x}}none{{/x}}", "{{{raw}}}", "{{> part}}", "{{=<% %>=}}",
            "{{&x}}", "{{!c}}", "{{#a}}{{#b}}", "{{/a}}", "{{"]
handlebars_templates = st.lists(st.one_of(st.sampled_from(HANDLEBARS), text), max_size=8).map("".join)
mustache_templates = st.lists(st.one_of(st.sampled_from(MUSTACHE), text), max_size=8).map("".join)

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True), text,
                    st.sampled_from(["2024-13-45", "{{ x }}", "file:///etc/passwd", "9" * 5000]))
KEYS = st.one_of(text, st.sampled_from(
    ["messages", "prompt", "role", "content", "variables", "samples", "kind", "template", "_type",
     "input_variables", "template_format", "lc", "kwargs", "id", "tools", "prompts", "providers"]))
structures = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)

MODEL_KEYS = ["num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size",
              "layer_types", "sliding_window", "sliding_window_pattern", "kv_lora_rank", "qk_rope_head_dim",
              "torch_dtype", "text_config", "hybrid_override_pattern", "mamba_n_heads", "linear_num_value_heads"]
model_values = st.one_of(st.integers(-10, 10**13), st.sampled_from([0, 1, 64, 128, 4096, 10**12]),
                         st.floats(allow_nan=True), text, st.lists(st.sampled_from(
                             ["full_attention", "sliding_attention", "linear_attention", "mamba", "x"]), max_size=6),
                         st.dictionaries(st.sampled_from(MODEL_KEYS), st.integers(-1, 10**6), max_size=3), st.none())
model_configs = st.dictionaries(st.sampled_from(MODEL_KEYS), model_values, max_size=10)

message = st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant", "tool", "x"])},
                                optional={"content": st.one_of(text, scalars, st.lists(structures, max_size=2)),
                                          "tool_calls": structures, "timestamp": scalars})
request_lines = st.one_of(
    st.lists(message, max_size=3).map(lambda ms: {"messages": ms}),
    st.fixed_dictionaries({"request": st.lists(message, max_size=2).map(lambda ms: {"messages": ms})},
                          optional={"timestamp": scalars, "response": structures}),
    structures,
)
