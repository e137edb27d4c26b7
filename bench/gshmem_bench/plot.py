"""One PNG per test: the libraries' medians (and a baseline build's) against the message size, log axes."""


def plot_test(rows, path, title):
    """`rows`: report.Row of one test and metric. Returns the path, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = sorted(rows, key=lambda r: r.size)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for lib, style, name in (("nvshmem", "s--", "NVSHMEM"), ("baseline", "^:", "gshmem (baseline)"),
                             ("gshmem", "o-", "gshmem")):
        pts = [(r.size, r.median(lib)) for r in rows if r.median(lib)]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=name, markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size (bytes)")
    unit = rows[0].units if rows else ""
    ax.set_ylabel(f"{rows[0].metric} ({unit})" if rows else "")
    better = "higher is better" if rows and rows[0].higher_is_better else "lower is better"
    ax.set_title(f"{title} ({better})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
