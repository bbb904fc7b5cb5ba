"""Image and audio parts: keyed by their content (vLLM's mm_hash), worked out with o200k_base."""

from __future__ import annotations

import hashlib

from tests.replay.test_replay import SYSTEM, chat_ids, chatml, data_of, replay, vllm_hit

CAT = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
DOG = "https://example.com/dog.png"


def request(image):
    return {"messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": [{"type": "text", "text": "What is in this picture?"},
                                                      {"type": "image_url", "image_url": {"url": image}}]}]}


def rendered(enc, image):
    digest = hashlib.sha256(image.encode()).hexdigest()[:16]
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"What is in this picture?\n<|image_url:{digest}|>"}]
    return chat_ids(enc, chatml(messages))


def test_the_same_image_is_reused_another_diverges_at_it(tmp_path, enc):
    prompts = [rendered(enc, CAT), rendered(enc, CAT), rendered(enc, DOG)]
    expected = [vllm_hit(p, prompts[:i]) for i, p in enumerate(prompts)]
    data = data_of(replay(tmp_path, [request(CAT), request(CAT), request(DOG)])[0])
    assert data["prompt_tokens"] == sum(map(len, prompts))
    assert data["cached_tokens"] == sum(expected)
    assert expected[2] < expected[1]  # the dog diverges at its image, the second cat does not


def test_a_part_without_content_is_a_bad_line(tmp_path):
    lines = [request(CAT), {"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]}]
    data = data_of(replay(tmp_path, lines)[0])
    assert data["requests"] == 1
    assert data["bad_lines"] == [{"line": 2, "message": "message 1: a 'input_audio' part without its content (url or"
                                                       " data): its cache key (vLLM's mm_hash) cannot be known"}]
