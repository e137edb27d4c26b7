"""gshmem's side-by-side benchmark harness: builds NVSHMEM-style perftests against gshmem and
NVSHMEM, runs them alternately, and reports medians, ratios, goals, JSON and plots."""
