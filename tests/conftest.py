"""Test-suite settings: hypothesis is derandomized on CI, so a submission's run is repeatable.

Locally hypothesis explores new examples on every run (and keeps failures in .hypothesis/);
on CI (`CI` set) every run draws the same examples, and a failure prints its reproduction.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The result cache (.prefixlint_cache) is off for the suite: a test that patches a limit or a
# tokenizer must see its file checked again. tests/check/test_cache.py turns it on.
os.environ.setdefault("PREFIXLINT_NO_CACHE", "1")
