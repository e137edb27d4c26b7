"""Parsers for every perftest output format (NVSHMEM's, which gshmem's perftests keep).

- basic:  "#<job>", a header "size(B)  scope  <var> (<units>)", rows "<size> <subjob> <value>"
          (the subjob may contain spaces: "with _on_stream")
- v1:     device collectives: "size(B) count type [redop] scope latency(us) algbw(GB/s) busbw(GB/s)"
- v2:     host on-stream collectives: "size(B) count type [redop] latency(us) min_lat(us) max_lat(us)
          algbw(GB/s) busbw(GB/s)"
- machine readable (NVSHMEM_MACHINE_READABLE_OUTPUT=1):
          "&&&& PERF <job>___<subjob>___size__<bytes>___<var> <value> <+|-><units>"

Each parser yields Sample records; a whole log (several tables, other lines in between) goes
through parse_output().
"""
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    job: str              # the table's job name ("shmem_put_bw", "Latency", ...)
    subjob: str           # scope / type column ("block", "host", "int32-sum-b", ...)
    size: int             # bytes
    metric: str           # "BW", "latency", "busbw", ...
    units: str            # "GB/sec", "us", ...
    value: float
    higher_is_better: bool


_HEADER = re.compile(r"^size\(B\)\s+(.*)$")
_BASIC_COLS = re.compile(r"^scope\s+(\S+)\s+\((.+?)\)\s*$")
_MACHINE = re.compile(r"^&&&& PERF (.+?)___(.+?)___size__(\d+)___(\S+) ([-+0-9.eE]+) ([+-])(\S+)\s*$")
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def higher_is_better(metric, units):
    """Bandwidths and rates are better high; latencies and times low."""
    text = (metric + " " + units).lower()
    return not ("lat" in text or units.lower() in ("us", "ms", "s", "ns"))


def _is_number(s):
    return bool(_NUMBER.match(s))


def parse_output(text):
    """Every sample in a perftest's output, whatever its format(s)."""
    samples = []
    job = ""
    table = None  # (kind, columns, metric, units)
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            table = None
            continue
        m = _MACHINE.match(line)
        if m:
            job_m, subjob, size, var, value, sign, units = m.groups()
            samples.append(Sample(job_m, subjob, int(size), var, units, float(value), sign == "+"))
            continue
        if line.startswith("#"):
            job = line[1:].strip()
            table = None
            continue
        h = _HEADER.match(line)
        if h:
            rest = h.group(1).strip()
            b = _BASIC_COLS.match(rest)
            if b:
                table = ("basic", None, b.group(1), b.group(2))
            else:
                cols = rest.split()
                table = ("v2" if "min_lat(us)" in cols else "v1", ["size(B)"] + cols, None, None)
            continue
        if table is None:
            continue
        parts = line.split()
        kind = table[0]
        if kind == "basic":
            # The subjob may hold spaces (stream_latency's "with _on_stream"): it is everything
            # between the size and the value.
            if len(parts) < 3 or not parts[0].isdigit() or not _is_number(parts[-1]):
                table = None
                continue
            metric, units = table[2], table[3]
            samples.append(Sample(job, " ".join(parts[1:-1]), int(parts[0]), metric, units, float(parts[-1]),
                                  higher_is_better(metric, units)))
        else:
            cols = table[1]
            if len(parts) != len(cols) or not parts[0].replace(".", "", 1).isdigit():
                table = None
                continue
            row = dict(zip(cols, parts))
            subjob = "-".join(row[c] for c in ("type", "redop", "scope") if c in row)
            size = int(float(row["size(B)"]))
            for col, value in row.items():
                cm = re.match(r"^(\w+)\((.+)\)$", col)
                if not cm or col == "size(B)" or not _is_number(value):
                    continue
                metric, units = cm.group(1), cm.group(2)
                samples.append(Sample(job, subjob, size, metric, units, float(value),
                                      higher_is_better(metric, units)))
    return samples


def failed(text, returncode):
    """Whether a perftest run failed: a non-zero exit or a correctness check's FAILED line."""
    return returncode != 0 or re.search(r"\bFAILED\b", text) is not None
