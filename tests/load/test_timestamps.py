"""The one timestamp parser of request logs, transcripts and --now."""

from datetime import datetime, timedelta, timezone

from prefixlint.load.timestamps import parse_timestamp
from prefixlint.replay.requestlog import parse_timestamp as log_timestamp


def test_iso_text_keeps_the_offset_it_was_written_with():
    assert parse_timestamp("2025-03-04T10:00:00Z") == datetime(2025, 3, 4, 10, tzinfo=timezone.utc)
    moment = parse_timestamp(" 2025-03-04T23:30:00+02:00 ")
    assert (moment.hour, moment.utcoffset()) == (23, timedelta(hours=2))
    assert parse_timestamp("2025-03-04T10:00:00") == datetime(2025, 3, 4, 10)


def test_epoch_seconds_and_milliseconds_are_utc():
    # 1741082400 s after 1970-01-01 is 2025-03-04 10:00 UTC (20151 days * 86400 + 36000).
    expected = datetime(2025, 3, 4, 10, tzinfo=timezone.utc)
    assert parse_timestamp(1741082400) == expected
    assert parse_timestamp(1741082400000) == expected


def test_what_is_not_a_time_is_none():
    for value in ("yesterday", "", True, None, [], 1e30):
        assert parse_timestamp(value) is None


def test_request_logs_read_the_same_clock_in_utc_without_offset():
    assert log_timestamp("2025-03-04T23:30:00+02:00") == datetime(2025, 3, 4, 21, 30)
    assert log_timestamp(1741082400) == datetime(2025, 3, 4, 10)
