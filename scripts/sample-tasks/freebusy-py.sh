# freebusy-py: free/busy calendar helpers in Python, tested with pytest.
# The bug: merge() replaces the end of the last merged interval with the end of the next one, so an
# interval contained in another shrinks it: 09:00-12:00 and 10:00-10:30 merge to 09:00-10:30, and
# free_slots() then offers 10:30-12:00 while the person is busy.

file requirements.txt < "$root/images/python-pytest/requirements.txt"
file .gitignore <<'EOF'
__pycache__/
.pytest_cache/
EOF
file pyproject.toml <<'EOF'
[project]
name = "freebusy"
version = "0.2.0"
description = "Free/busy calendar helpers: merge busy intervals, find free slots."
requires-python = ">=3.9"

[tool.pytest.ini_options]
testpaths = ["tests"]
xfail_strict = true
EOF
file freebusy/__init__.py <<'EOF'
"""Free/busy calendar helpers."""

from freebusy.intervals import Interval, merge

__all__ = ["Interval", "merge"]
EOF
file freebusy/intervals.py <<'EOF'
"""Half-open time intervals within one day, in minutes since midnight."""

from dataclasses import dataclass
from typing import Iterable, List


@dataclass(frozen=True, order=True)
class Interval:
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end <= 24 * 60:
            raise ValueError(f"not an interval within a day: {self.start}..{self.end}")

    @property
    def minutes(self) -> int:
        return self.end - self.start

    def __str__(self) -> str:
        return f"{_clock(self.start)}-{_clock(self.end)}"


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def merge(intervals: Iterable[Interval]) -> List[Interval]:
    """Merges overlapping and touching intervals; the result is sorted and disjoint."""
    merged: List[Interval] = []
    for current in sorted(intervals):
        if merged and current.start <= merged[-1].end:
            merged[-1] = Interval(merged[-1].start, current.end)
        else:
            merged.append(current)
    return merged
EOF
file tests/test_intervals.py <<'EOF'
import pytest

from freebusy import Interval, merge


def test_overlapping_intervals_merge():
    assert merge([Interval(540, 600), Interval(570, 660)]) == [Interval(540, 660)]


def test_touching_intervals_merge():
    assert merge([Interval(540, 600), Interval(600, 660)]) == [Interval(540, 660)]


def test_disjoint_intervals_stay_apart():
    assert merge([Interval(540, 600), Interval(660, 720)]) == [Interval(540, 600), Interval(660, 720)]


def test_input_order_does_not_matter():
    assert merge([Interval(660, 720), Interval(540, 600), Interval(590, 610)]) == [
        Interval(540, 610),
        Interval(660, 720),
    ]


def test_nothing_to_merge():
    assert merge([]) == []


def test_an_interval_must_fit_in_a_day():
    with pytest.raises(ValueError):
        Interval(600, 540)
    with pytest.raises(ValueError):
        Interval(0, 24 * 60 + 1)


def test_str_uses_a_24_hour_clock():
    assert str(Interval(545, 1050)) == "09:05-17:30"
EOF
commit 2024-05-13T08:30:00Z "Add Interval and merge"

file freebusy/slots.py <<'EOF'
"""Free slots in a working day, given busy intervals."""

from typing import Iterable, List

from freebusy.intervals import Interval, merge


def free_slots(day: Interval, busy: Iterable[Interval], min_minutes: int = 0) -> List[Interval]:
    """The parts of `day` not covered by any busy interval, at least `min_minutes` long."""
    slots: List[Interval] = []
    cursor = day.start
    for block in merge(busy):
        if block.end <= cursor or block.start >= day.end:
            continue
        if block.start > cursor:
            slots.append(Interval(cursor, block.start))
        cursor = max(cursor, block.end)
    if cursor < day.end:
        slots.append(Interval(cursor, day.end))
    return [slot for slot in slots if slot.minutes >= min_minutes]
EOF
file freebusy/__init__.py <<'EOF'
"""Free/busy calendar helpers."""

from freebusy.intervals import Interval, merge
from freebusy.slots import free_slots

__all__ = ["Interval", "free_slots", "merge"]
EOF
file tests/test_slots.py <<'EOF'
from freebusy import Interval, free_slots

DAY = Interval(9 * 60, 17 * 60)


def test_a_free_day_is_one_slot():
    assert free_slots(DAY, []) == [DAY]


def test_meetings_split_the_day():
    busy = [Interval(600, 660), Interval(780, 840)]
    assert free_slots(DAY, busy) == [Interval(540, 600), Interval(660, 780), Interval(840, 1020)]


def test_busy_time_outside_the_day_is_ignored():
    busy = [Interval(420, 570), Interval(1000, 1200)]
    assert free_slots(DAY, busy) == [Interval(570, 1000)]


def test_short_gaps_are_dropped():
    busy = [Interval(600, 660), Interval(670, 720)]
    assert free_slots(DAY, busy, min_minutes=30) == [Interval(540, 600), Interval(720, 1020)]


def test_overlapping_meetings_count_once():
    busy = [Interval(600, 700), Interval(650, 720)]
    assert free_slots(DAY, busy) == [Interval(540, 600), Interval(720, 1020)]
EOF
commit 2024-05-14T14:10:00Z "Add free_slots"

file freebusy/parse.py <<'EOF'
"""Reading intervals written as HH:MM-HH:MM."""

import re
from typing import List

from freebusy.intervals import Interval

_RANGE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


def parse_interval(text: str) -> Interval:
    """parse_interval("09:30-10:15") == Interval(570, 615)."""
    match = _RANGE.match(text)
    if match is None:
        raise ValueError(f"not an interval: {text!r} (expected HH:MM-HH:MM)")
    h1, m1, h2, m2 = (int(part) for part in match.groups())
    if m1 > 59 or m2 > 59:
        raise ValueError(f"not an interval: {text!r} (minutes past 59)")
    return Interval(h1 * 60 + m1, h2 * 60 + m2)


def parse_intervals(text: str) -> List[Interval]:
    """Comma-separated intervals: "09:00-10:00, 13:00-14:30"."""
    return [parse_interval(part) for part in text.split(",") if part.strip()]
EOF
file freebusy/__init__.py <<'EOF'
"""Free/busy calendar helpers."""

from freebusy.intervals import Interval, merge
from freebusy.parse import parse_interval, parse_intervals
from freebusy.slots import free_slots

__all__ = ["Interval", "free_slots", "merge", "parse_interval", "parse_intervals"]
EOF
file tests/test_parse.py <<'EOF'
import pytest

from freebusy import Interval, parse_interval, parse_intervals


def test_parses_one_interval():
    assert parse_interval("09:30-10:15") == Interval(570, 615)


def test_parses_a_list():
    assert parse_intervals("9:00-10:00, 13:00-14:30,") == [Interval(540, 600), Interval(780, 870)]


@pytest.mark.parametrize("text", ["9-10", "09:60-10:00", "10:00", "25:00-26:00"])
def test_rejects_bad_intervals(text):
    with pytest.raises(ValueError):
        parse_interval(text)
EOF
file README.md <<'EOF'
# freebusy

Free/busy calendar helpers: merge busy intervals, find the free slots of a day.

```python
from freebusy import Interval, free_slots, parse_intervals

day = Interval(9 * 60, 17 * 60)
busy = parse_intervals("10:00-11:00, 13:00-14:00")
print([str(slot) for slot in free_slots(day, busy, min_minutes=30)])
# ['09:00-10:00', '11:00-13:00', '14:00-17:00']
```

Tests: `python3 -m pytest` (pytest pinned in requirements.txt).
EOF
commit 2024-05-20T10:45:00Z "Parse HH:MM-HH:MM intervals; README"

# The fix: a merged interval ends at the later of the two ends.
file freebusy/intervals.py <<'EOF'
"""Half-open time intervals within one day, in minutes since midnight."""

from dataclasses import dataclass
from typing import Iterable, List


@dataclass(frozen=True, order=True)
class Interval:
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end <= 24 * 60:
            raise ValueError(f"not an interval within a day: {self.start}..{self.end}")

    @property
    def minutes(self) -> int:
        return self.end - self.start

    def __str__(self) -> str:
        return f"{_clock(self.start)}-{_clock(self.end)}"


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def merge(intervals: Iterable[Interval]) -> List[Interval]:
    """Merges overlapping and touching intervals; the result is sorted and disjoint."""
    merged: List[Interval] = []
    for current in sorted(intervals):
        if merged and current.start <= merged[-1].end:
            merged[-1] = Interval(merged[-1].start, max(merged[-1].end, current.end))
        else:
            merged.append(current)
    return merged
EOF
gold

hidden tests/regression/test_contained_meetings.py <<'EOF'
from freebusy import Interval, free_slots, merge, parse_intervals

DAY = Interval(9 * 60, 17 * 60)


def test_a_contained_interval_does_not_shrink_its_container():
    assert merge([Interval(540, 720), Interval(600, 630)]) == [Interval(540, 720)]


def test_several_intervals_inside_one():
    busy = parse_intervals("08:00-18:00, 09:00-10:00, 12:00-13:00")
    assert merge(busy) == [Interval(480, 1080)]


def test_no_free_slot_inside_a_long_meeting():
    busy = parse_intervals("09:00-12:00, 10:00-10:30")
    assert free_slots(DAY, busy) == [Interval(720, 1020)]


def test_identical_intervals_merge_to_one():
    assert merge([Interval(600, 660), Interval(600, 660)]) == [Interval(600, 660)]
EOF

cat > "$task/task.json.in" <<'EOF'
{
  "$schema": "../../packages/spec/task.schema.json",
  "id": "freebusy-py",
  "description": "Python free/busy helpers; merging must not shrink an interval that contains another. Tests: pytest 7 from Debian.",
  "image": "python-pytest",
  "framework": "pytest",
  "repo": { "mirror": "repo.bundle", "baseCommit": "@BASE_COMMIT@" },
  "suites": {
    "existing": {
      "command": "python3 -m pytest -p no:cacheprovider -q --junitxml=\"$ORACLE_JUNIT\" tests --ignore=tests/regression",
      "files": ["tests/**", "**/conftest.py", "pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"]
    },
    "hidden": {
      "command": "python3 -m pytest -p no:cacheprovider -q --junitxml=\"$ORACLE_JUNIT\" tests/regression"
    }
  },
  "diff": {
    "allow": ["**"],
    "deny": ["tests/**", "**/conftest.py", "pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "requirements*.txt", "**/*.pth", "sitecustomize.py", "usercustomize.py"]
  },
  "timeoutSeconds": 60,
  "env": { "PYTHONDONTWRITEBYTECODE": "1" }
}
EOF
