"""Unit tests of bench/compare's parsing, reporting, goals and plots, on recorded perftest output."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from gshmem_bench import parse, plot, report, run, runlist  # noqa: E402


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

    def test_basic_tables_with_one_subjob_each(self):
        s = parse.parse_output(data("shmem_put_latency.txt"))
        self.assertEqual(len(s), 15)  # Thread, Warp, Block x 4..64 B
        self.assertEqual([x.subjob for x in s[::5]], ["Thread", "Warp", "Block"])
        self.assertTrue(all(x.job == "shmem_put_latency" and x.metric == "latency" and not x.higher_is_better
                            for x in s))
        self.assertEqual(s[1], parse.Sample("shmem_put_latency", "Thread", 8, "latency", "us", 1.874, False))

    def test_one_row_table_per_type(self):
        s = parse.parse_output(data("shmem_atomic_latency.txt"))
        self.assertEqual([(x.job, x.size) for x in s], [("shmem_at_int_inc_ping_lat", 4),
                                                         ("shmem_at_long_inc_ping_lat", 8),
                                                         ("shmem_at_uint64_inc_ping_lat", 8)])
        self.assertAlmostEqual(s[2].value, 1.131)

    def test_bandwidth_and_message_rate_tables(self):
        s = parse.parse_output(data("shmem_p_bw_msgrate.txt"))  # also a "Note:" line before the options
        self.assertEqual([x.metric for x in s], ["BW"] * 3 + ["msgrate"] * 3)
        self.assertTrue(all(x.higher_is_better for x in s))
        self.assertEqual(s[3].units, "MMPS")
        self.assertAlmostEqual(s[5].value, 241.9)

    def test_v1_table_of_the_atomic_ping_pong(self):
        s = parse.parse_output(data("shmem_atomic_ping_pong_v1.txt"))
        lat = [x for x in s if x.metric == "latency"]
        self.assertEqual([(x.job, x.subjob, x.size) for x in lat], [("shmem_at_int_inc_ping_lat", "int-thread", 4),
                                                                    ("shmem_at_uint64_inc_ping_lat", "uint64-thread", 8)])
        self.assertAlmostEqual(lat[1].value, 3.377)
        self.assertEqual(sorted({x.metric for x in s}), ["algbw", "busbw", "latency"])

    def test_stream_latency_subjobs_with_spaces(self):
        for name in ("stream_latency.txt", "stream_latency_machine.txt"):
            s = parse.parse_output(data(name))
            self.assertEqual(len(s), 8, name)
            self.assertEqual({x.subjob for x in s}, {"with _on_stream", "without _on_stream"}, name)
            self.assertTrue(all(x.job == "Stream_Latency" and x.units == "us" for x in s), name)
            self.assertEqual(s[4], parse.Sample("Stream_Latency", "without _on_stream", 4, "latency", "us", 16.871,
                                                False), name)

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

    def test_tables_of_one_test_stay_apart(self):
        def rec(lib, subjob, value):
            r = record("put_latency", lib, 8, value, "latency", "us", False)
            r.update(job="shmem_put_latency", subjob=subjob)
            return r
        recs = [rec("gshmem", "Thread", 1.0), rec("nvshmem", "Thread", 2.0),
                rec("gshmem", "Block", 9.0), rec("nvshmem", "Block", 3.0)]
        rows = {r.label(): r for r in report.build_rows(recs)}
        self.assertEqual(sorted(rows), ["put_latency[Block]", "put_latency[Thread]"])
        self.assertEqual(rows["put_latency[Thread]"].median("gshmem"), 1.0)  # not the median of 1 and 9
        self.assertAlmostEqual(rows["put_latency[Block]"].ratio(), 3.0 / 9.0)
        goals = [{"test": "put_latency", "size": 8, "metric": "latency", "subjob": "Thread", "goal": 1.3}]
        self.assertIsNotNone(report.goal_for(goals, rows["put_latency[Thread]"]))
        self.assertIsNone(report.goal_for(goals, rows["put_latency[Block]"]))
        text = report.table(list(rows.values()), goals, only_goal_rows=True)
        self.assertIn("put_latency[Thread]", text)
        self.assertNotIn("put_latency[Block]", text)

    def test_baseline_columns_and_regressions(self):
        recs = [record("bw", "gshmem", 1024, 200), record("bw", "nvshmem", 1024, 100),
                record("bw", "baseline", 1024, 250),
                record("lat", "gshmem", 8, 2.0, "latency", "us", False),
                record("lat", "nvshmem", 8, 3.0, "latency", "us", False),
                record("lat", "baseline", 8, 2.5, "latency", "us", False)]
        rows = {r.test: r for r in report.build_rows(recs)}
        self.assertEqual(rows["bw"].median("baseline"), 250)
        self.assertAlmostEqual(rows["bw"].ratio("baseline"), 0.8)   # 200 GB/s against 250 before
        self.assertAlmostEqual(rows["lat"].ratio("baseline"), 1.25)  # 2.0 us against 2.5 before
        self.assertAlmostEqual(rows["bw"].ratio(), 2.0)              # NVSHMEM stays the default
        text = report.table(list(rows.values()), [])
        self.assertIn("baseline", text.splitlines()[0])
        lines = {l.split()[0]: l for l in text.splitlines()[1:-1]}
        self.assertIn("REGRESSED", lines["bw"])
        self.assertNotIn("SLOWER", lines["bw"])
        self.assertNotIn("REGRESSED", lines["lat"])
        self.assertIn("0.80", lines["bw"].split())
        # Without baseline values the table keeps its columns.
        plain = report.table(report.build_rows([r for r in recs if r["library"] != "baseline"]), [])
        self.assertNotIn("baseline", plain.splitlines()[0])
        self.assertNotIn("REGRESSED", plain)

    def test_goals_file_matches_the_default_run_list(self):
        bench = os.path.dirname(HERE)
        goals = report.load_goals(os.path.join(bench, "goals.json"))
        tests = {e.test for e in runlist.read_runlist(os.path.join(bench, "runlists", "default.list"))}
        for g in goals:
            self.assertIn(g["test"], tests, f"goal for {g['test']} has no run")
            self.assertGreater(g["goal"], 0)


class CeilingTest(unittest.TestCase):
    """The plain-CUDA ceilings: cuda_ceiling's tables, and each test's rows held to them."""

    # cuda_ceiling's output format (the figures are made up for the test).
    OUTPUT = ("cuda_ceiling: GPU 0 (GPU, bus 19) to GPU 1 (GPU, bus 2a)\n"
              "#ce_put\nsize(B)   scope   BW (GB/sec)\n1048576   ce      150.000\n268435456 ce      390.000\n\n"
              "#signal_round_trip\nsize(B)   scope   latency (us)\n8         thread  2.000\n\n")

    def test_its_tables_parse(self):
        s = parse.parse_output(self.OUTPUT)
        self.assertEqual([(x.job, x.size, x.value, x.higher_is_better) for x in s],
                         [("ce_put", 1048576, 150.0, True), ("ce_put", 268435456, 390.0, True),
                          ("signal_round_trip", 8, 2.0, False)])

    def test_rows_against_the_best_ceiling_at_their_size(self):
        recs = [record("ceil_ce", "cuda", 1 << 20, 150), record("ceil_ce", "cuda", 256 << 20, 390),
                record("ceil_sm", "cuda", 1 << 20, 160), record("ceil_sm", "cuda", 256 << 20, 300),
                record("put", "gshmem", 1 << 20, 156), record("put", "nvshmem", 1 << 20, 140),
                record("put", "gshmem", 256 << 20, 370), record("put", "gshmem", 4 << 20, 200)]
        lat = dict(metric="latency", units="us", high=False)
        recs += [record("ceil_sig", "cuda", 8, 2.0, **lat), record("ping", "gshmem", 4, 2.1, **lat),
                 record("ping", "gshmem", 8, 2.4, **lat), record("ping", "gshmem", 64, 9.0, **lat)]
        rows = report.build_rows(recs)
        ceilings = [{"test": "put", "against": ["ceil_ce", "ceil_sm"]}, {"test": "ping", "against": ["ceil_sig"]}]
        text = report.ceiling_table(rows, ceilings)
        lines = {tuple(line.split()[:2]): line for line in text.splitlines()[1:-1]}
        # 1 MiB: the better ceiling is SM's 160; 156 is 0.975 of it (within 3 %), NVSHMEM's 140 is 0.875.
        self.assertRegex(lines[("put", str(1 << 20))], r"160\.000 +156\.000 +0\.97 +140\.000 +0\.88 +ceil_sm$")
        # 256 MiB: 370 of the copy engines' 390 is 0.949: marked.
        self.assertRegex(lines[("put", str(256 << 20))], r"0\.95 +- +- +CEIL +ceil_ce$")
        self.assertNotIn(("put", str(4 << 20)), lines)  # no ceiling at 4 MiB
        # Latency: within 10 % of the floor (2.0 / 2.1 = 0.95), or not (2.0 / 2.4 = 0.83); the floor of
        # 8 bytes does not hold 64-byte rows.
        self.assertNotIn("CEIL", lines[("ping", "4")])
        self.assertIn("CEIL", lines[("ping", "8")])
        self.assertNotIn(("ping", "64"), lines)

    def test_ceilings_stay_out_of_the_main_table(self):
        rows = report.build_rows([record("ceil_ce", "cuda", 1024, 150), record("put", "gshmem", 1024, 100)])
        text = report.table(rows, [])
        self.assertNotIn("ceil_ce", text)
        self.assertIn("put", text)
        self.assertEqual(report.ceiling_table(report.build_rows([record("put", "gshmem", 1024, 1)]), []), "")

    def test_runs_as_one_process_and_never_against_nvshmem(self):
        self.assertEqual(run.launch_command("cuda", "/b/cuda_ceiling", ("--only", "ce_put"), "gshmrun", None),
                         (["/b/cuda_ceiling", "--only", "ce_put"], None))
        self.assertNotIn("cuda_ceiling", runlist.nvshmem_programs())
        self.assertTrue(runlist.Entry("c", "cuda_ceiling", ()).plain_cuda())
        self.assertFalse(runlist.Entry("p", "shmem_put_bw", ()).plain_cuda())

    def test_ceilings_file_matches_the_default_run_list(self):
        bench = os.path.dirname(HERE)
        entries = {e.test: e for e in runlist.read_runlist(os.path.join(bench, "runlists", "default.list"))}
        for c in report.load_ceilings(os.path.join(bench, "ceilings.json")):
            self.assertIn(c["test"], entries, f"{c['test']} has no run")
            self.assertFalse(entries[c["test"]].plain_cuda())
            for name in c["against"]:
                self.assertIn(name, entries, f"ceiling {name} has no run")
                self.assertTrue(entries[name].plain_cuda(), name)


class NcclTest(unittest.TestCase):
    """bench/nccl_collectives.py's tables read as the on-stream collective perftests' do."""

    def test_tables_parse_as_the_perftests_v2_tables(self):
        import nccl_collectives
        reduce = parse.parse_output("\n".join(nccl_collectives.format_table("all_reduce", 4, [(1024, 256, 10.0, 9.0,
                                                                                              11.0)])))
        by = {x.metric: x for x in reduce}
        self.assertEqual(by["latency"], parse.Sample("nccl_all_reduce", "int32-sum", 1024, "latency", "us", 10.0, False))
        self.assertAlmostEqual(by["algbw"].value, 0.1024, places=3)  # 1024 B in 10 us
        self.assertAlmostEqual(by["busbw"].value, 0.1024 * 1.5, places=3)  # 2(n-1)/n
        gather = parse.parse_output("\n".join(nccl_collectives.format_table("all_gather", 8, [(4096, 1024, 20.0, 19.0,
                                                                                              21.0)])))
        self.assertEqual({x.subjob for x in gather}, {"int32"})
        self.assertAlmostEqual({x.metric: x for x in gather}["busbw"].value, 4096 / 20e-6 / 1e9 * 7 / 8, places=3)

    def test_without_torch_or_a_gpu_it_is_skipped(self):
        import subprocess
        script = os.path.join(os.path.dirname(HERE), "nccl_collectives.py")
        p = subprocess.run([sys.executable, script, "-e", "64"], stdout=subprocess.PIPE, text=True, timeout=120)
        if p.returncode == 0:
            self.skipTest("torch and a GPU are here: the script ran")
        self.assertEqual(p.returncode, 77, p.stdout)
        self.assertIn("skipped", p.stdout)


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


class ProgramsTest(unittest.TestCase):
    """The programs bench/compare knows are the perftests that exist and that CMake builds."""

    def test_every_perftest_can_be_run_and_every_program_exists(self):
        perftest = os.path.join(os.path.dirname(os.path.dirname(HERE)), "perftest")
        with open(os.path.join(perftest, "CMakeLists.txt")) as f:
            cmake = f.read()
        sources = set()
        for kind, ext in (("device", ".cu"), ("host", ".cpp")):
            for group in ("pt-to-pt", "coll"):
                folder = os.path.join(perftest, kind, group)
                sources |= {f"{kind}/{group}/{n}" for n in os.listdir(folder) if n.endswith(ext)}
        known = {src for src, _ in runlist.PROGRAMS.values()}
        self.assertEqual(sources - known, set(), "perftests that bench/compare cannot run (runlist.PROGRAMS)")
        for name, (src, kind) in runlist.PROGRAMS.items():
            self.assertTrue(os.path.exists(os.path.join(perftest, src)), src)
            self.assertEqual(os.path.splitext(os.path.basename(src))[0], name)
            self.assertEqual(src.split("/")[0], kind)
            self.assertIn(name, cmake, f"{name} is not registered in perftest/CMakeLists.txt")


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


class MergeTest(unittest.TestCase):
    def test_report_only_merges_earlier_runs(self):
        import subprocess
        compare = os.path.join(os.path.dirname(HERE), "compare")
        with tempfile.TemporaryDirectory() as tmp:
            parts = []
            for i, recs in enumerate([
                    [record("put_bw_c4", lib, 33554432, v, rep=r) for lib, v in (("gshmem", 180.0), ("nvshmem", 170.0))
                     for r in (1, 2, 3)],
                    [record("host_latency", lib, 8, v, metric="latency", units="us", high=False, rep=r)
                     for lib, v in (("gshmem", 8.0), ("nvshmem", 9.0))
                     for r in (1, 2, 3)]]):
                path = os.path.join(tmp, f"part{i}.json")
                with open(path, "w") as f:
                    json.dump({"machine": {"gpus": ["H200"]}, "libraries": {"gshmem": "x", "nvshmem": "y"},
                               "records": recs, "failures": [], "not_run": ["gshmem st_bw (repetition 3)"] * i}, f)
                parts.append(path)
            out = os.path.join(tmp, "all")
            p = subprocess.run([sys.executable, compare, out, "--report-only", "--add-results", parts[0], "--add-results",
                                parts[1]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
            # The run left out in part 1 is carried over: the merged report says so and fails.
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("NOT RUN", p.stdout)
            with open(os.path.join(out, "results.json")) as f:
                merged = json.load(f)
            self.assertEqual(len(merged["records"]), 12)
            self.assertEqual(merged["machine"], {"gpus": ["H200"]})
            with open(os.path.join(out, "table.txt")) as f:
                table = f.read()
            self.assertRegex(table, r"put_bw_c4 +33554432 .* 170\.000 +180\.000 +1\.06")
            self.assertRegex(table, r"host_latency +8 .* 9\.000 +8\.000 +1\.12")


if __name__ == "__main__":
    unittest.main()
