"""Test-suite settings: hypothesis is derandomized on CI, so a submission's run is repeatable.

Locally hypothesis explores new examples on every run (and keeps failures in .hypothesis/);
on CI (`CI` set) every run draws the same examples, and a failure prints its reproduction.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
