#!/usr/bin/env python3
"""bench/nccl_collectives.py: NCCL's all-reduce, all-gather and all-to-all through torch.distributed, in the
tables of gshmem's on-stream collective perftests, so that the same run can set gshmem's collectives beside
NCCL's on 4 and 8 GPUs (bench/compare parses the output as it parses theirs).

  torchrun --standalone --nproc_per_node N bench/nccl_collectives.py [-b 8] [-e 256M] [-f 2] [-n 100] [-w 10]
                                                                    [--ops all_reduce,all_gather,all_to_all]

One process per GPU (LOCAL_RANK picks it); started without torchrun it is a job of one process. Sizes as in the perftests: all_reduce's is the buffer of each
rank (reduction_on_stream, sum of int32), all_gather's and all_to_all's the whole output of each rank
(fcollect_on_stream, alltoall_on_stream; each rank contributes size / N). Each size runs -w untimed
iterations, then -n timed ones between two CUDA events on the collective's stream; the row gives the
average time of one iteration on each rank: latency(us) the mean over the ranks, min_lat and max_lat the
fastest and slowest rank. algbw = size / latency, busbw = algbw * (2(N-1)/N for all_reduce, (N-1)/N for
the others), as the perftests print them. Rank 0 prints; with --backend gloo it runs on CPUs (a check of
the script where there is no GPU, not a measurement).
"""
import argparse
import os
import sys

BUSBW = {"all_reduce": lambda n: 2.0 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
         "all_to_all": lambda n: (n - 1) / n}
JOBS = {"all_reduce": "nccl_all_reduce", "all_gather": "nccl_all_gather", "all_to_all": "nccl_all_to_all"}


def size_arg(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = text.strip().lower()
    return int(float(t[:-1]) * units[t[-1]]) if t and t[-1] in units else int(t)


def sizes(lo, hi, step):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= step
    return out


def format_table(op, n, rows):
    """The lines of one op's table; rows: (size, count, avg_us, min_us, max_us) per size."""
    reduce = op == "all_reduce"
    lines = [f"#{JOBS[op]}",
             f"size(B) count type{' redop' if reduce else ''} latency(us) min_lat(us) max_lat(us) algbw(GB/s) "
             "busbw(GB/s)"]
    for total, count, avg, lo, hi in rows:
        algbw = total / (avg * 1e-6) / 1e9
        lines.append(f"{total} {count} int32{' sum' if reduce else ''} {avg:.3f} {lo:.3f} {hi:.3f} {algbw:.3f} "
                     f"{algbw * BUSBW[op](n):.3f}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-b", type=size_arg, default=8, help="smallest size in bytes (default 8)")
    ap.add_argument("-e", type=size_arg, default=256 << 20, help="largest size in bytes (default 256M)")
    ap.add_argument("-f", type=int, default=2, help="step factor between sizes (default 2)")
    ap.add_argument("-n", type=int, default=100, help="timed iterations per size")
    ap.add_argument("-w", type=int, default=10, help="untimed iterations per size")
    ap.add_argument("--ops", default="all_reduce,all_gather,all_to_all")
    ap.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    a = ap.parse_args()
    ops = [o for o in a.ops.split(",") if o]
    unknown = [o for o in ops if o not in JOBS]
    if unknown or a.f < 2 or a.n < 1 or a.w < 0 or a.b < 4 or a.e < a.b:
        print(f"nccl_collectives: invalid arguments{': unknown ' + ', '.join(unknown) if unknown else ''}",
              file=sys.stderr)
        return 2
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        print("nccl_collectives: torch is not installed: skipped")
        return 77

    gpu = a.backend == "nccl"
    if gpu:
        if not torch.cuda.is_available():
            print("nccl_collectives: no usable GPU: skipped")
            return 77
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    if "RANK" not in os.environ:  # not under torchrun: a job of this one process
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group(a.backend)
    rank, n = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda") if gpu else torch.device("cpu")
    elem = 4  # int32

    def timed(fn, iters):
        if gpu:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) * 1e3 / iters  # us
        import time
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        return (time.perf_counter() - t0) * 1e6 / iters

    if rank == 0:
        print(f"nccl_collectives: {n} ranks, torch {torch.__version__}, backend {a.backend}"
              f"{', NCCL ' + '.'.join(map(str, torch.cuda.nccl.version())) if gpu else ''}")
    for op in ops:
        rows = []
        for size in sizes(a.b, a.e, a.f):
            # Per-rank elements: all_reduce's buffer is the size; the others' output is, with size / N each.
            count = max(1, size // elem) if op == "all_reduce" else max(1, size // (elem * n))
            total = count * elem * (1 if op == "all_reduce" else n)
            src = torch.full((count,), rank + 1, dtype=torch.int32, device=device)
            if op == "all_reduce":
                fn = lambda: dist.all_reduce(src)  # noqa: E731
            elif op == "all_gather":
                out = torch.empty((count * n,), dtype=torch.int32, device=device)
                fn = lambda: dist.all_gather_into_tensor(out, src)  # noqa: E731
            else:
                src = torch.full((count * n,), rank + 1, dtype=torch.int32, device=device)
                out = torch.empty_like(src)
                fn = lambda: dist.all_to_all_single(out, src)  # noqa: E731
            # A check that the first call moves what it should (all_reduce's values then grow with each call).
            fn()
            if gpu:
                torch.cuda.synchronize()
            if op == "all_reduce":
                got, want = src, torch.full_like(src, n * (n + 1) // 2)
            else:
                got, want = out, torch.arange(1, n + 1, dtype=torch.int32, device=device).repeat_interleave(count)
            if not torch.equal(got, want):
                print(f"FAILED: {op} of {total} bytes on rank {rank}: wrong elements", flush=True)
                return 1
            timed(fn, a.w)
            dist.barrier()
            us = torch.tensor([timed(fn, a.n)], dtype=torch.float64, device=device)
            per_rank = [torch.zeros_like(us) for _ in range(n)]
            dist.all_gather(per_rank, us)
            values = [float(t.item()) for t in per_rank]
            rows.append((total, total // elem, sum(values) / n, min(values), max(values)))
        if rank == 0:
            print("\n".join(format_table(op, n, rows)) + "\n", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
