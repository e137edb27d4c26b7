// NVSHMEM_CPU_AFFINITY (NVSHMEM 3.7): a PE's threads on the CPUs near its GPU.
#pragma once

#include <string>
#include <vector>

namespace gshmem {

// The CPU numbers of a Linux CPU list ("0-3,8,10-11"); false when `text` is not one.
bool parse_cpu_list(const std::string& text, std::vector<int>* cpus);

// AUTO: narrows this process's CPU set to the CPUs local to the PCI device `bus_id` ("0000:1b:00.0", any case;
// from its sysfs local_cpulist): the intersection of the two, when it is not empty and smaller than the current
// set, for the calling thread and the threads it starts after (the library's, at binding). The set only narrows,
// so a set the user or launcher chose is kept within. Returns what it did, in words
// for the log ("" when nothing changed, with the reason in *why when there is one).
std::string narrow_to_device_cpus(const std::string& bus_id, std::string* why);

}  // namespace gshmem
