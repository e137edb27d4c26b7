// gpu_names is compiled as one main translation unit and kGpuNamesParts parts (gpu_names_part.cuh,
// compiled once per part by CMake): ptxas needs over three minutes for all the generated functions
// in one unit, and the parts compile side by side. Part k calls the types whose row in the
// generated table satisfies row % kGpuNamesParts == k; the last part also calls the sized set
// (row == rows). CMake's gpu_names_parts must match kGpuNamesParts.
#pragma once

constexpr int kGpuNamesParts = 5;

// Runs row `row` of the generated table (or the sized set when row == rows) with the kernel of the
// part that holds it: one block of 96 threads, then waits for it. Returns false when the row is not
// in this part.
using GpuNamesPartFn = bool (*)(int row, int rows, void* sym, const void* src, void* res, const void* peer_src, int pe);
bool gpu_names_part0(int, int, void*, const void*, void*, const void*, int);
bool gpu_names_part1(int, int, void*, const void*, void*, const void*, int);
bool gpu_names_part2(int, int, void*, const void*, void*, const void*, int);
bool gpu_names_part3(int, int, void*, const void*, void*, const void*, int);
bool gpu_names_part4(int, int, void*, const void*, void*, const void*, int);
