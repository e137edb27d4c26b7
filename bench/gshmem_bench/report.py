"""Medians, ratios, goals and the summary table."""
import json
import statistics
from dataclasses import dataclass, field


@dataclass
class Row:
    test: str
    args: str
    size: int
    metric: str
    units: str
    higher_is_better: bool
    job: str = ""      # the table a value comes from: its job name ...
    subjob: str = ""   # ... and its scope/type column (a test may print several tables)
    series: str = ""   # what tells this row's table from the test's others ("" when it has one)
    gshmem: list = field(default_factory=list)   # one value per repetition
    nvshmem: list = field(default_factory=list)
    baseline: list = field(default_factory=list)  # gshmem as built from another revision (--baseline-build-dir)

    def label(self):
        return f"{self.test}[{self.series}]" if self.series else self.test

    def median(self, lib):
        """`lib`: "gshmem", "nvshmem" or "baseline"."""
        values = getattr(self, lib)
        return statistics.median(values) if values else None

    def ratio(self, other="nvshmem"):
        """gshmem against `other` ("nvshmem" or "baseline"): > 1 means gshmem is better, whatever the
        metric's direction."""
        g, n = self.median("gshmem"), self.median(other)
        if not g or not n:
            return None
        return g / n if self.higher_is_better else n / g


def load_goals(path):
    """The goals file: a list of {test, size, metric, goal, nvshmem_reference, note}."""
    with open(path) as f:
        return json.load(f)["goals"]


def goal_for(goals, row):
    """The goal of a row: same test, size and metric, and the same subjob when the goal names one
    (a goal without a subjob applies to every table of its test)."""
    for g in goals:
        if (g["test"] == row.test and g["size"] == row.size and g.get("metric", row.metric) == row.metric and
                g.get("subjob", row.subjob) == row.subjob):
            return g
    return None


def meets(goal, value, higher_is_better):
    if value is None:
        return False
    return value >= goal["goal"] if higher_is_better else value <= goal["goal"]


def build_rows(records):
    """Groups raw records (dicts with test, args, library, size, metric, units, value,
    higher_is_better, and the job and subjob of their table) into rows: one per test, table, size and
    metric, so that the tables of one test (thread, warp and block scope; one per type) are never
    mixed in one median."""
    rows = {}
    for r in records:
        job, subjob = r.get("job", ""), r.get("subjob", "")
        key = (r["test"], job, subjob, r["size"], r["metric"])
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(r["test"], r["args"], r["size"], r["metric"], r["units"], r["higher_is_better"],
                                  job, subjob)
        getattr(row, r["library"]).append(r["value"])
    # Name the tables of tests that print several by what differs between them.
    tables = {}
    for test, job, subjob, _, _ in rows:
        tables.setdefault(test, set()).add((job, subjob))
    for (test, job, subjob, _, _), row in rows.items():
        seen = tables[test]
        if len(seen) > 1:
            jobs_differ = len({j for j, _ in seen}) > 1
            subjobs_differ = len({s for _, s in seen}) > 1
            row.series = "/".join(p for p, differs in ((job, jobs_differ), (subjob, subjobs_differ)) if differs)
    return [rows[k] for k in sorted(rows)]


def table(rows, goals, only_goal_rows=False):
    """The summary table as text. Marks: MISS (a goal row whose gshmem median misses its goal),
    SLOWER (gshmem worse than NVSHMEM), and, where a baseline build ran, REGRESSED (gshmem worse than
    the baseline); the baseline's median and gshmem's ratio to it then get columns of their own."""
    lines = []
    shown = [r for r in rows if not only_goal_rows or goal_for(goals, r)]
    w = max([28] + [len(r.label()) for r in shown])
    with_base = any(r.baseline for r in rows)
    base_head = f" {'baseline':>10} {'vs base':>7}" if with_base else ""
    head = (f"{'test':<{w}} {'size':>10} {'metric':<14} {'NVSHMEM':>10} {'gshmem':>10} {'ratio':>6}{base_head} "
            f"{'goal':>9}  mark   args")
    lines.append(head)
    for row in rows:
        goal = goal_for(goals, row)
        if only_goal_rows and goal is None:
            continue
        g, n, ratio = row.median("gshmem"), row.median("nvshmem"), row.ratio()
        direction = ">=" if row.higher_is_better else "<="
        goal_text = f"{direction}{goal['goal']:g}" if goal else ""
        marks = []
        if goal and not meets(goal, g, row.higher_is_better):
            marks.append("MISS")
        if ratio is not None and ratio < 0.98:
            marks.append("SLOWER")
        fmt = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"
        fmt_ratio = lambda v, n: f"{v:{n}.2f}" if v is not None else f"{'-':>{n}}"
        base_cols = ""
        if with_base:
            vs_base = row.ratio("baseline")
            if vs_base is not None and vs_base < 0.98:
                marks.append("REGRESSED")
            base_cols = f" {fmt(row.median('baseline'))} {fmt_ratio(vs_base, 7)}"
        lines.append(f"{row.label():<{w}} {row.size:>10} {row.metric + ' (' + row.units + ')':<14} {fmt(n)} {fmt(g)} "
                     f"{fmt_ratio(ratio, 6)}{base_cols} {goal_text:>9}  {','.join(marks):<6} {row.args}")
    lines.append("ratio > 1: gshmem better (gshmem/NVSHMEM for bandwidth, NVSHMEM/gshmem for latency); medians "
                 "over the repetitions; MISS: misses its goal in bench/goals.json; SLOWER: more than 2% worse than NVSHMEM" +
                 ("; vs base: gshmem against the baseline build, the same way; REGRESSED: more than 2% worse than it"
                  if with_base else ""))
    return "\n".join(lines)
