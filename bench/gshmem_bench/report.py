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
    cuda: list = field(default_factory=list)      # plain CUDA (a ceiling of cuda_ceiling)

    def label(self):
        return f"{self.test}[{self.series}]" if self.series else self.test

    def median(self, lib):
        """`lib`: "gshmem", "nvshmem", "baseline" or "cuda"."""
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
    rows = [r for r in rows if not r.cuda]  # the ceilings have a table of their own (ceiling_table)
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


def load_ceilings(path):
    """The ceilings file: a list of {test, against: [ceiling tests], note}; [] when there is none."""
    try:
        with open(path) as f:
            return json.load(f)["ceilings"]
    except FileNotFoundError:
        return []


def ceiling_for(rows, entry, row):
    """The best plain-CUDA figure among entry["against"] for `row`: the highest bandwidth, or the lowest
    latency, of those ceilings' rows with the same metric direction at the row's size, or, for a ceiling
    measured at one size only (a latency floor), at that size when the row's is not larger. Returns
    (value, ceiling test) or (None, None)."""
    best, name = None, None
    for c in (r for r in rows if r.cuda and r.test in entry["against"] and r.higher_is_better == row.higher_is_better):
        sizes = {r.size for r in rows if r.cuda and r.test == c.test}
        if c.size != row.size and not (len(sizes) == 1 and row.size <= c.size):
            continue
        v = c.median("cuda")
        if best is None or (v > best if row.higher_is_better else v < best):
            best, name = v, c.test
    return best, name


# How close to plain CUDA a row must come: bandwidth within 3 % of the ceiling, latency within 10 % of
# the floor.
BW_SHARE = 0.97
LATENCY_SHARE = 1.10


def ceiling_table(rows, ceilings):
    """gshmem's and NVSHMEM's medians against the plain-CUDA ceiling of the same run, for each row of a
    test that ceilings.json names; "" when no ceiling ran. Marks CEIL: a bandwidth under 97 % of the
    ceiling, or a latency over 110 % of the floor."""
    if not any(r.cuda for r in rows):
        return ""
    lines = [f"{'test':<28} {'size':>10} {'metric':<14} {'ceiling':>10} {'gshmem':>10} {'share':>6} {'NVSHMEM':>10} "
             f"{'share':>6}  mark   against"]
    for entry in ceilings:
        for row in (r for r in rows if r.test == entry["test"] and not r.cuda):
            ceiling, name = ceiling_for(rows, entry, row)
            if ceiling is None or not ceiling:
                continue
            g, n = row.median("gshmem"), row.median("nvshmem")
            share = lambda v: (v / ceiling if row.higher_is_better else ceiling / v) if v else None
            fmt = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"
            fmt_share = lambda v: f"{v:6.2f}" if v is not None else f"{'-':>6}"
            gs = share(g)
            mark = "CEIL" if gs is not None and gs < (BW_SHARE if row.higher_is_better else 1 / LATENCY_SHARE) else ""
            lines.append(f"{row.label():<28} {row.size:>10} {row.metric + ' (' + row.units + ')':<14} {fmt(ceiling)} "
                         f"{fmt(g)} {fmt_share(gs)} {fmt(n)} {fmt_share(share(n))}  {mark:<6} {name}")
    lines.append("share: the library's median against plain CUDA's (bandwidth over the ceiling, the floor over the "
                 "latency; 1 is plain CUDA's figure); CEIL: bandwidth under 97 % of the ceiling, or latency over 110 % "
                 "of the floor (bench/ceilings.json says which ceilings each test is held to)")
    return "\n".join(lines)
