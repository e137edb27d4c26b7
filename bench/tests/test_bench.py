"""Unit tests of bench/compare's parsing, reporting, goals and plots, on recorded perftest output."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from gshmem_bench import parse, plot, report, runlist  # noqa: E402


def data(name):
    with open(os.path.join(HERE, "data", name)) as f:
        return f.read()


class ParseTest(unittest.TestCase):
    def test_basic_table_of_a_device_perftest(self):
        s = parse.parse_output(data("shmem_put_bw_h200.txt"))
        self.assertEqual(len(s), 19)  # 8 B .. 2 MiB; the option lines are not rows
        self.assertEqual(s[0], parse.Sample("shmem_put_bw", "block", 8, "BW", "GB/sec", 0.004524, True))
        self.assertEqual(s[-1].size, 2097152)
        self.assertAlmostEqual(s[-1].value, 155.437)

    def test_basic_tables_of_the_host_perftests(self):
        bw = parse.parse_output(data("host_bw.txt"))
        self.assertTrue(bw and all(x.job == "Bandwidth" and x.subjob == "host" and x.higher_is_better for x in bw))
        self.assertEqual([x.size for x in bw], [4 << i for i in range(len(bw))])
        lat = parse.parse_output(data("host_latency.txt"))
        self.assertTrue(lat and all(x.metric == "latency" and x.units == "us" and not x.higher_is_better for x in lat))
        self.assertEqual(lat[0].size, 1)

    def test_machine_readable_lines(self):
        s = parse.parse_output(data("host_latency_machine.txt"))
        self.assertEqual([x.size for x in s], [1, 2, 4, 8, 16, 32, 64])
        self.assertTrue(all(x.job == "Latency" and x.subjob == "host" and x.units == "us" for x in s))
        self.assertFalse(s[0].higher_is_better)  # the "-" sign

    def test_v1_device_collective_table(self):
        s = parse.parse_output(data("device_coll_v1.txt"))
        lat = [x for x in s if x.metric == "latency"]
        self.assertEqual(len(lat), 2)
        self.assertEqual(lat[0].subjob, "int32-sum-b")
        self.assertAlmostEqual(lat[1].value, 5.701)
        self.assertFalse(lat[0].higher_is_better)
        self.assertTrue(all(x.higher_is_better for x in s if x.metric in ("algbw", "busbw")))

    def test_v2_host_collective_table(self):
        s = parse.parse_output(data("host_coll_v2.txt"))
        metrics = sorted({x.metric for x in s})
        self.assertEqual(metrics, ["algbw", "busbw", "latency", "max_lat", "min_lat"])
        self.assertEqual({x.size for x in s}, {256, 512})
        self.assertEqual(s[0].subjob, "int")

    def test_failures_are_recognised(self):
        self.assertTrue(parse.failed(data("failed_check.txt"), 0))
        self.assertTrue(parse.failed("", 139))
        self.assertFalse(parse.failed(data("host_bw.txt"), 0))
        self.assertEqual(parse.parse_output(data("failed_check.txt")), [])


def record(test, lib, size, value, metric="BW", units="GB/sec", high=True, rep=1):
    return {"test": test, "args": "-n 1", "library": lib, "rep": rep, "size": size, "metric": metric, "units": units,
            "value": value, "higher_is_better": high}


class ReportTest(unittest.TestCase):
    def test_medians_and_ratios_in_both_directions(self):
        recs = [record("bw", "gshmem", 1024, v, rep=i) for i, v in enumerate([100, 300, 200])]
        recs += [record("bw", "nvshmem", 1024, v, rep=i) for i, v in enumerate([50, 100, 400])]
        recs += [record("lat", "gshmem", 8, 2.0, "latency", "us", False), record("lat", "nvshmem", 8, 3.0, "latency",
                                                                                 "us", False)]
        rows = {r.test: r for r in report.build_rows(recs)}
        self.assertEqual(rows["bw"].median("gshmem"), 200)
        self.assertEqual(rows["bw"].median("nvshmem"), 100)
        self.assertAlmostEqual(rows["bw"].ratio(), 2.0)
        self.assertAlmostEqual(rows["lat"].ratio(), 1.5)  # lower latency: gshmem better

    def test_missing_library_gives_no_ratio(self):
        rows = report.build_rows([record("bw", "gshmem", 1024, 5.0)])
        self.assertIsNone(rows[0].ratio())
        self.assertIn("-", report.table(rows, []).splitlines()[1])

    def test_goal_marking(self):
        goals = [{"test": "bw", "size": 1024, "metric": "BW", "goal": 150},
                 {"test": "lat", "size": 8, "metric": "latency", "goal": 2.0}]
        recs = [record("bw", "gshmem", 1024, 140), record("bw", "nvshmem", 1024, 100),
                record("lat", "gshmem", 8, 1.9, "latency", "us", False),
                record("lat", "nvshmem", 8, 1.5, "latency", "us", False),
                record("bw", "gshmem", 2048, 1.0), record("bw", "nvshmem", 2048, 1.0)]
        text = report.table(report.build_rows(recs), goals)
        lines = {(l.split()[0], l.split()[1]): l for l in text.splitlines()[1:-1]}
        self.assertIn("MISS", lines[("bw", "1024")])        # 140 < 150
        self.assertNotIn("SLOWER", lines[("bw", "1024")])   # but faster than NVSHMEM
        self.assertIn(">=150", lines[("bw", "1024")])
        self.assertNotIn("MISS", lines[("lat", "8")])        # 1.9 <= 2.0
        self.assertIn("SLOWER", lines[("lat", "8")])         # 1.9 us against 1.5
        self.assertIn("<=2", lines[("lat", "8")])
        self.assertNotIn("MISS", lines[("bw", "2048")])      # no goal for this size
        only = report.table(report.build_rows(recs), goals, only_goal_rows=True)
        self.assertEqual(len(only.splitlines()), 4)  # header, 2 goal rows, footer

    def test_goals_file_matches_the_default_run_list(self):
        bench = os.path.dirname(HERE)
        goals = report.load_goals(os.path.join(bench, "goals.json"))
        tests = {e.test for e in runlist.read_runlist(os.path.join(bench, "runlists", "default.list"))}
        for g in goals:
            self.assertIn(g["test"], tests, f"goal for {g['test']} has no run")
            self.assertGreater(g["goal"], 0)


class RunlistTest(unittest.TestCase):
    def test_reading_and_selecting(self):
        with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as f:
            f.write("# comment\nputs shmem_put_bw -c 4 -e 32M  # trailing\n\nlat latency --issue host\n")
        try:
            entries = runlist.read_runlist(f.name)
            self.assertEqual([e.test for e in entries], ["puts", "lat"])
            self.assertEqual(entries[0].args, ("-c", "4", "-e", "32M"))
            self.assertEqual([e.test for e in runlist.select(entries, ["lat"])], ["lat"])
            with self.assertRaises(ValueError):
                runlist.select(entries, ["nope"])
        finally:
            os.unlink(f.name)

    def test_unknown_program_is_an_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as f:
            f.write("x not_a_perftest -n 1\n")
        try:
            with self.assertRaises(ValueError):
                runlist.read_runlist(f.name)
        finally:
            os.unlink(f.name)


class PlotTest(unittest.TestCase):
    def test_png_with_both_curves(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed")
        recs = [record("bw", lib, 1 << k, float(k + (lib == "gshmem"))) for k in range(3, 12) for lib in ("gshmem", "nvshmem")]
        with tempfile.TemporaryDirectory() as d:
            path = plot.plot_test(report.build_rows(recs), os.path.join(d, "bw.png"), "bw")
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(path), 5000)


class ResultsJsonTest(unittest.TestCase):
    def test_records_round_trip(self):
        recs = [record("bw", "gshmem", 8, 1.5)]
        text = json.dumps({"records": recs})
        self.assertEqual(report.build_rows(json.loads(text)["records"])[0].median("gshmem"), 1.5)


if __name__ == "__main__":
    unittest.main()
