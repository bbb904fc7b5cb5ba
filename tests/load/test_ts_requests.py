"""TypeScript/JavaScript values read from the request a handler serves (`ts_requests`, issue 19
item 5): per request whatever their name, or what a more precise name says (per user)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(12))
ROUTE = '''import OpenAI from "openai";

const openai = new OpenAI();

export async function POST(PARAMETER) {
  READ
  const system = `You write essays about ${topic}.
RULES
`;
  const completion = await openai.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "system", content: system }, { role: "user", content: "Write it." }],
  });
  return Response.json(completion);
}
'''


def findings(tmp_path, parameter: str, read: str, field: str = "topic") -> dict[str, dict]:
    path = tmp_path / "route.ts"
    route = ROUTE.replace("PARAMETER", parameter).replace("READ", read).replace("RULES", RULES)
    path.write_text(route.replace("${topic}", "${" + field + "}"))
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


@pytest.mark.parametrize(("parameter", "read", "shown"), [
    ("req: Request", "const { topic } = await req.json();", "await req.json()"),
    ("request: NextRequest", "const formData = await request.formData();\n  const topic = formData.get('topic') as string;",
     "formData.get('topic') as string"),
    ("incoming: Request", "const topic = new URL(incoming.url).searchParams.get('q');",
     "new URL(incoming.url).searchParams.get('q')"),
    ("req, res", "const topic = req.body.topic;", "req.body.topic"),
    # through a validation that gives back the same data (zod's safeParse, JSON.parse)
    ("req: Request", "const parsed = essaySchema.safeParse(await req.json());\n  const { topic } = parsed.data;",
     "parsed.data"),
    ("req: Request", "const { topic } = JSON.parse(await req.text());", "JSON.parse(await req.text())"),
])
def test_a_value_read_from_the_request_is_per_request_whatever_its_name(tmp_path, parameter, read, shown):
    found = findings(tmp_path, parameter, read)
    topic = found["topic"]
    # `topic` is named like nothing the catalog knows: the request decides
    assert (topic["code"], topic["line"], topic["column"], topic["frequency"]) == ("PFX005", read.count("\n") + 7, 42,
                                                                                   "per_request")
    assert topic["evidence"].startswith(f"read from the request: {shown} (route.ts:")


def test_a_name_that_says_per_user_keeps_its_frequency(tmp_path):
    found = findings(tmp_path, "req: Request", "const { userName } = await req.json();", "userName")
    assert (found["user_name"]["code"], found["user_name"]["frequency"]) == ("PFX003", "per_user")
    assert found["user_name"]["evidence"] == "read from the request: await req.json() (route.ts:6)"


@pytest.mark.parametrize(("parameter", "read"), [
    ("input: string", "const topic = input;"),
    ("options: Options", "const topic = options.topic;"),
    ("req: Request", "let topic = 'essays';"),  # not a const read from the request
])
def test_other_parameters_say_nothing_of_their_own(tmp_path, parameter, read):
    assert "topic" not in findings(tmp_path, parameter, read)
