"""The autouse fixture every Python suite's conftest.py imports: a test
fails when any process it started wrote a sanitizer report
(`sanitizers.asan_reports`). Importing `no_sanitizer_reports` into a
conftest registers it for that suite."""

from __future__ import annotations

import pytest

from sanitizers import asan_reports


@pytest.fixture(autouse=True)
def no_sanitizer_reports(tmp_path_factory):
    with asan_reports(tmp_path_factory.mktemp("asan")) as found:
        yield
    assert not found, "sanitizer report(s) from a process this test started:\n" + "\n".join(found)
