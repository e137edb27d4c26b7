"""Run lists: one perftest run per line, "<test> <program> <arguments...>"; # starts a comment."""
import shlex
from dataclasses import dataclass

PROGRAMS = {  # program -> (source under perftest/, kind)
    "shmem_put_bw": ("device/pt-to-pt/shmem_put_bw.cu", "device"),
    "shmem_get_bw": ("device/pt-to-pt/shmem_get_bw.cu", "device"),
    "bw": ("host/pt-to-pt/bw.cpp", "host"),
    "latency": ("host/pt-to-pt/latency.cpp", "host"),
    "stream_latency": ("host/pt-to-pt/stream_latency.cpp", "host"),
}
PROGRAMS.update({name: (f"device/pt-to-pt/{name}.cu", "device") for name in (
    "shmem_p_bw", "shmem_g_bw", "shmem_st_bw", "shmem_p_latency", "shmem_g_latency", "shmem_put_latency",
    "shmem_get_latency", "shmem_atomic_latency", "shmem_atomic_bw", "shmem_atomic_ping_pong_latency",
    "shmem_p_ping_pong_latency", "shmem_put_ping_pong_latency", "shmem_signal_ping_pong_latency",
    "shmem_put_signal_ping_pong_latency",
    # NVSHMEM 3.7's flush and 3.8's TMA put: against an older NVSHMEM they do not build, and build_nvshmem leaves
    # them out.
    "shmem_flush_bench", "shmem_put_tma_bw")})
PROGRAMS.update({name: (f"device/coll/{name}.cu", "device") for name in (
    "barrier_latency", "sync_latency", "bcast_latency", "fcollect_latency", "alltoall_latency", "reduction_latency",
    "reducescatter_latency")})
# Plain CUDA, no NVSHMEM: one process, run once per repetition as the library "cuda" (the ceilings).
PROGRAMS["cuda_ceiling"] = ("ceiling/cuda_ceiling.cu", "ceiling")
PROGRAMS.update({name: (f"host/coll/{name}.cpp", "host") for name in (
    "barrier_on_stream", "barrier_all_on_stream", "sync_on_stream", "sync_all_on_stream", "broadcast_on_stream",
    "fcollect_on_stream", "alltoall_on_stream", "reduction_on_stream", "reducescatter_on_stream")})


@dataclass(frozen=True)
class Entry:
    test: str
    program: str
    args: tuple

    def plain_cuda(self):
        """Whether this entry measures plain CUDA (a ceiling), not the two libraries."""
        return PROGRAMS[self.program][1] == "ceiling"


def nvshmem_programs():
    """The programs built against both libraries: every one but the plain-CUDA ceilings."""
    return {name: v for name, v in PROGRAMS.items() if v[1] != "ceiling"}


def read_runlist(path):
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = shlex.split(line)
            if len(words) < 2 or words[1] not in PROGRAMS:
                raise ValueError(f"{path}:{number}: expected '<test> <program> [args]' with a program among "
                                 f"{', '.join(sorted(PROGRAMS))}: {line}")
            entries.append(Entry(words[0], words[1], tuple(words[2:])))
    names = [e.test for e in entries]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: test names must be unique")
    return entries


def select(entries, names):
    """The entries named in `names` (all when empty); unknown names are an error."""
    if not names:
        return entries
    known = {e.test: e for e in entries}
    missing = [n for n in names if n not in known]
    if missing:
        raise ValueError(f"unknown tests {', '.join(missing)}; the run list has {', '.join(known)}")
    return [known[n] for n in names]
