"""Image and audio parts of chat requests, keyed by their content as vLLM keys them.

vLLM puts a multimodal item's content hash (`mm_hash`) in the extra keys of the blocks its
placeholder tokens cover (`_gen_mm_extra_hash_keys` in `vllm/v1/core/kv_cache_utils.py`), so
two requests reuse each other's blocks up to the first item whose content differs. A replay
renders each item as a marker made from its content's sha256: the same content is the same
tokens, other content diverges there. The marker is a few tokens where the model's processor
makes tens to thousands of placeholder tokens, so the keys are right and the token counts
around items are not. A part without content (no url or data) cannot be keyed: a bad line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

#: Part type -> (the key holding an object, the key of the content in it); None: at the top.
MEDIA_PARTS = {
    "image_url": ("image_url", "url"),
    "input_image": (None, "image_url"),
    "image": (None, "image"),
    "input_audio": ("input_audio", "data"),
    "audio_url": ("audio_url", "url"),
    "video_url": ("video_url", "url"),
}


def media_content(part: Mapping[str, Any]) -> str | None:
    outer, key = MEDIA_PARTS[part["type"]]
    holder = part.get(outer) if outer else part
    if isinstance(holder, str) and outer:  # "image_url": "https://..." (a shorthand some clients send)
        return holder or None
    value = holder.get(key) if isinstance(holder, Mapping) else None
    return value if isinstance(value, str) and value else None


def marked(content: Any) -> Any:
    """A message's content with each media part replaced by a text part naming its hash."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        if isinstance(part, Mapping) and part.get("type") in MEDIA_PARTS:
            data = media_content(part)
            assert data is not None  # the log reader refuses a media part without content (a bad line)
            digest = hashlib.sha256(data.encode()).hexdigest()[:16]
            out.append({"type": "text", "text": f"<|{part['type']}:{digest}|>"})
        else:
            out.append(part)
    return out
