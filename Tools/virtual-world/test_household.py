"""Checks the household day's parts that do not need a solver: `python -m unittest test_household` here (< 1 s).
The run itself (Bumble, mosquitto, the solver) is CI's `Tools/dev test` step."""

from __future__ import annotations

import random
import unittest

import frames
import household as h


class DayTests(unittest.TestCase):
    def test_every_day_is_contiguous_and_walks_at_walking_speed(self) -> None:
        for person in h.PEOPLE:
            spans = h.day_of(person)
            self.assertEqual(spans[0].t0, 0.0)
            self.assertEqual(spans[-1].t1, 86400.0)
            for a, b in zip(spans, spans[1:]):
                self.assertAlmostEqual(a.t1, b.t0, msg=(person, a, b))
            for span in spans:
                if span.kind == "walk":
                    for (t0, x0, y0), (t1, x1, y1) in zip(span.path, span.path[1:]):
                        self.assertAlmostEqual(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 / (t1 - t0), h.WALK_SPEED)
                if span.kind == "stay":
                    self.assertIsNotNone(h.room_at(*span.position(span.t0)), (person, span))
            outs = [s for s in spans if s.kind == "out"]
            self.assertTrue(outs, f"{person} leaves the flat")
            for out in outs:
                before = spans[spans.index(out) - 1]
                self.assertEqual(h.room_at(*before.position(before.t1)), h.EXIT, "out through the front door")

    def test_quiet_spans_are_the_stays_after_two_minutes_and_the_outings(self) -> None:
        spans = h.day_of("bob")
        quiet = h.quiet_spans(spans, random.Random(3))
        inside = [(a, b) for a, b in quiet if h.span_at(spans, a).kind == "stay"]
        self.assertTrue(inside)
        for a, b in inside:
            stay = h.span_at(spans, a)
            self.assertGreaterEqual(a, stay.t0 + h.QUIET_AFTER_STILL_S)
            self.assertLessEqual(b, stay.t1)
            self.assertLessEqual(b - a, h.QUIET_MAX_S + 1e-9)
        for span in spans:
            if span.kind == "walk":
                self.assertFalse(any(a < span.t1 and span.t0 < b for a, b in quiet), "a moving phone is heard")
            if span.kind == "out":
                self.assertIn((span.t0, span.t1), quiet)

    def test_an_ibeacon_frame_is_read_back_and_others_are_not(self) -> None:
        data = frames.ibeacon(h.UUID, 1, 3, -59)
        self.assertEqual(h.ibeacon(data), (h.UUID, 1, 3, -59))
        self.assertIsNone(h.ibeacon(bytes([2, 1, 6])))
        self.assertIsNone(h.ibeacon(data[:-3]), "truncated")


class FigureTests(unittest.TestCase):
    def test_false_not_home_departure_delay_and_still_changes(self) -> None:
        days = {person: h.day_of(person) for person in h.PEOPLE}
        alice = h.target_of("alice")
        leave = next(s for s in days["alice"] if s.kind == "out").t0

        def fix(day: float, room: str | None, presence: str = "home", arrived: float | None = None) -> dict:
            return {"t": 1000.0 + day, "target": alice, "room": room, "presence": presence,
                    "arrived": day if arrived is None else arrived}
        fixes = {alice: [fix(3600, "bedroom-1"), fix(3700, "bedroom-1"), fix(3800, None), fix(3900, "bedroom-1"),
                         fix(4000, "bedroom-1", "not_home"), fix(4100, "bedroom-1"),
                         fix(leave - 5, "foyer"), dict(fix(leave + 20, "foyer"), lastKnown=True),
                         dict(fix(leave + 20, None, "not_home", arrived=leave + 131), lastKnown=True, silentFor=130.0)]}
        result = h.figures(days, fixes, 1000.0, 0.0, 86400.0)
        self.assertEqual(result["falseNotHome"], 1)
        self.assertEqual(result["falseNotHomeAt"], [("alice", "01:06:40")])
        alices = [d for d in result["departures"] if d["person"] == "alice"]
        self.assertAlmostEqual(alices[0]["notHomeAfter"], 125.0, msg="decided on the solver's clock: last heard + silentFor")
        self.assertAlmostEqual(alices[0]["lastHeardAfter"], -5.0)
        self.assertAlmostEqual(alices[0]["arrivedAfter"], 131.0, msg="the run's own lag is kept apart")
        self.assertEqual(result["people"]["alice"]["stillChanges"], 2, "bedroom-1 -> none -> bedroom-1")
        self.assertEqual(h.check(result, rooms=False)[0][:22], "1 false not_home event")
        self.assertEqual([(f["at"], f["room"]) for f in result["falseNotHomeFixes"][0]["lastFixes"]],
                         [("01:06:40", "bedroom-1")],
                         "the current fixes of the last minute before the silence (not 01:05:00's)")
        text = h.report({**result, "from": "00:00", "to": "24:00", "rate": 60, "seed": 1, "quietSpans": {},
                         "longestQuietMin": 0, "reports": {}})
        self.assertIn("alice read not_home at 01:06:40 while at home; the last fixes before the silence: "
                      "01:06:40 (-, -) bedroom-1 -, radius - m, - m/s, course -", text)

    def test_a_departure_never_read_prints_the_fixes_around_it(self) -> None:
        days = {person: h.day_of(person) for person in h.PEOPLE}
        bob = h.target_of("bob")
        leave = next(s for s in days["bob"] if s.kind == "out").t0
        fixes = {bob: [
            {"t": 1000.0 + leave - 30, "target": bob, "room": "kitchen", "x": 9.1, "y": 2.7, "arrived": leave - 30},
            {"t": 1000.0 + leave - 3, "target": bob, "room": "living", "roomProbability": 0.56, "x": 2.5, "y": 3.8,
             "horizontalAccuracy": 1.96, "speed": 0.18, "arrived": leave - 3},
            {"t": 1000.0 + leave + 30, "target": bob, "room": "living", "x": 2.5, "y": 3.8, "lastKnown": True,
             "arrived": leave + 30}]}
        result = h.figures(days, fixes, 1000.0, 0.0, 86400.0)
        bobs = [d for d in result["departures"] if d["person"] == "bob"]
        self.assertIsNone(bobs[0]["notHomeAfter"])
        self.assertEqual([f["room"] for f in bobs[0]["lastFixes"]], ["living"],
                         "only current fixes from 20 s before the door")
        self.assertIn("departures never read not_home", " ".join(h.check(result, rooms=False)))
        text = h.report({**result, "from": "00:00", "to": "24:00", "rate": 60, "seed": 1, "quietSpans": {},
                         "longestQuietMin": 0, "reports": {}})
        self.assertIn("bob left at " + h.clock_text(leave) + " and never read not_home; the last fixes around it: "
                      + h.clock_text(leave - 3) + " (2.5, 3.8) living 0.56, radius 2.0 m, 0.18 m/s, course -", text)

    def test_a_departure_read_late_prints_the_fixes_around_it(self) -> None:
        days = {person: h.day_of(person) for person in h.PEOPLE}
        alice = h.target_of("alice")
        leave = next(s for s in days["alice"] if s.kind == "out").t0
        fixes = {alice: [
            {"t": 1000.0 + leave - 2, "target": alice, "room": "hall", "roomProbability": 0.61, "x": 3.6, "y": 5.1,
             "horizontalAccuracy": 1.5, "speed": 0.62, "course": 268.0, "arrived": leave - 2},
            {"t": 1000.0 + leave + 2700, "target": alice, "room": None, "x": 3.6, "y": 5.1, "lastKnown": True,
             "presence": "not_home", "silentFor": 2702.0, "arrived": leave + 2701}]}
        result = h.figures(days, fixes, 1000.0, 0.0, 86400.0)
        alices = [d for d in result["departures"] if d["person"] == "alice"]
        self.assertAlmostEqual(alices[0]["notHomeAfter"], 2700.0)
        self.assertIn("door to not_home took 2700 s", " ".join(h.check(result, rooms=False)))
        text = h.report({**result, "from": "00:00", "to": "24:00", "rate": 60, "seed": 1, "quietSpans": {},
                         "longestQuietMin": 0, "reports": {}})
        self.assertIn("alice left at " + h.clock_text(leave) + " and read not_home 2700 s later; the last fixes around "
                      "it: " + h.clock_text(leave - 2) + " (3.6, 5.1) hall 0.61, radius 1.5 m, 0.62 m/s, course 268",
                      text)


if __name__ == "__main__":
    unittest.main()
