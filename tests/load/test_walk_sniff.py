"""Which program source a directory walk opens: a prompt-like word, or a module that talks to a
model whatever its names are (an LLM SDK or framework, a call that sends, a user-role message,
a CrewAI task's `expected_output`)."""

from __future__ import annotations

import pytest

from prefixlint.load import python_source, ts_source

CREWAI_TASK = '''from crewai import Task

research = Task(description="Research {topic} in depth.", expected_output="Ten bullet points.", agent=agent)
'''
GEMINI_ROUTE = '''export async function POST(req: Request) {
  const { product } = await req.json();
  const contents = [{ role: 'user', parts: [{ text: `Describe ${product}.` }] }];
  return Response.json(await ai.models.generateContent({ model: 'gemini-2.0-flash', contents }));
}
'''


@pytest.mark.parametrize("loader, text", [
    (python_source, CREWAI_TASK),
    (python_source, "import anthropic\n\nclient = anthropic.Anthropic()\n"),
    (python_source, 'reply = client.chat.completions.create(model="m", messages=history)\n'),
    (ts_source, GEMINI_ROUTE),
    (ts_source, "import { streamText } from 'ai';\nimport { openai } from '@ai-sdk/openai';\n"),
])
def test_a_module_that_talks_to_a_model_is_opened(loader, text):
    assert loader.sniff_walked(text)


@pytest.mark.parametrize("loader, text", [
    (python_source, "def add(a, b):\n    return a + b\n"),
    (python_source, 'ROLE = "admin"\nusers = {"role": "owner"}\n'),  # a role that is no message's
    (ts_source, "export const sum = (a: number, b: number) => a + b;\n"),
    (ts_source, "const user = { role: 'admin', name: 'Ada' };\n"),
])
def test_code_that_says_nothing_of_a_model_is_not(loader, text):
    assert not loader.sniff_walked(text)
