#include "util/cpu_affinity.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace gshmem {

bool parse_cpu_list(const std::string& text, std::vector<int>* cpus) {
  cpus->clear();
  std::string t;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  }
  if (t.empty()) return false;
  std::stringstream ss(t);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const size_t dash = part.find('-');
    char* end = nullptr;
    const long first = std::strtol(part.c_str(), &end, 10);
    if (end == part.c_str() || first < 0) return false;
    long last = first;
    if (dash != std::string::npos) {
      const char* at = part.c_str() + dash + 1;
      last = std::strtol(at, &end, 10);
      if (end == at || last < first) return false;
    }
    if (*end != '\0' || last >= CPU_SETSIZE) return false;
    for (long c = first; c <= last; ++c) cpus->push_back(static_cast<int>(c));
  }
  return true;
}

std::string narrow_to_device_cpus(const std::string& bus_id, std::string* why) {
  std::string bus;
  for (char c : bus_id) bus += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string path = "/sys/bus/pci/devices/" + bus + "/local_cpulist";
  std::ifstream f(path);
  std::string text;
  std::vector<int> local;
  if (!f || !std::getline(f, text) || !parse_cpu_list(text, &local)) {
    *why = "cannot read the GPU's local CPUs from " + path;
    return "";
  }
  cpu_set_t current;
  CPU_ZERO(&current);
  if (sched_getaffinity(0, sizeof current, &current) != 0) {
    *why = "sched_getaffinity failed";
    return "";
  }
  cpu_set_t narrowed;
  CPU_ZERO(&narrowed);
  for (int c : local) {
    if (CPU_ISSET(c, &current)) CPU_SET(c, &narrowed);
  }
  const int kept = CPU_COUNT(&narrowed), had = CPU_COUNT(&current);
  if (kept == 0) {
    *why = "none of the GPU's local CPUs (" + text + ") is in this process's CPU set";
    return "";
  }
  if (kept == had) return "";
  if (sched_setaffinity(0, sizeof narrowed, &narrowed) != 0) {
    *why = "sched_setaffinity failed";
    return "";
  }
  return "CPU set narrowed from " + std::to_string(had) + " to the " + std::to_string(kept) +
         " CPUs local to the GPU (" + text + ")";
}

}  // namespace gshmem
