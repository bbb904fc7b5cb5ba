"""The realistic values two requests carry: two moments and two generated values of each kind.

Data only, so that loaders (which declare a value the code computes from the clock) and the
renderer (which fills undeclared placeholders) share it without a load <-> render dependency.
"""

from __future__ import annotations

from datetime import datetime, timezone

MOMENTS = (datetime(2025, 3, 14, 9, 26, 53, tzinfo=timezone.utc), datetime(2025, 3, 15, 17, 42, 8, tzinfo=timezone.utc))

GENERATED: dict[str, tuple[str, str]] = {
    "iso_date": ("2025-03-14", "2025-03-15"),
    "iso_datetime": ("2025-03-14T09:26:53Z", "2025-03-15T17:42:08Z"),
    "rfc2822": ("Fri, 14 Mar 2025 09:26:53 +0000", "Sat, 15 Mar 2025 17:42:08 +0000"),
    "epoch": ("1741944413", "1742060528"),
    "strftime": ("2025-03-14 09:26:53", "2025-03-15 17:42:08"),
    "uuid": ("3f8e2a71-5c4b-4d9e-a1f0-7b6c2d8e9f13", "b72c19d4-0e6a-4f38-9c25-e81a4b7d3c60"),
    "hex": ("9f86d081884c7d659a2feaa0c55ad015", "a3c5e8b1f27d4096be13c8d742f5a906"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzQ4MTciLCJpYXQiOjE3NDE5NDQ0MTN9.Qm9kZWZ1bC1zaWduYXR1cmUtMQ",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzkwMjIiLCJpYXQiOjE3NDIwNjA1Mjh9.U2Vjb25kLXNpZ25hdHVyZS0yMg"),
    "person_name": ("Maria Garcia", "Kenji Watanabe"),
    "email": ("maria.garcia@example.com", "kenji.watanabe@example.org"),
    "location": ("Lisbon, Portugal", "Osaka, Japan"),
    "integer": ("3", "17"),
    "random": ("0.7312", "0.1849"),
    "paragraph": (
        "My order #48213 arrived yesterday but the charger is missing from the box. Can I get a"
        " replacement shipped, or do I need to return the whole laptop?",
        "I was billed twice for my March subscription. Please refund the duplicate charge and"
        " tell me when it will show up on my card.",
    ),
    "text": ("first sample value", "second sample value"),
}
