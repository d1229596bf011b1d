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
