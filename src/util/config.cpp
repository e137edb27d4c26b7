#include "util/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

extern char** environ;

namespace gshmem {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(trim(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start)));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

// Finds `text` among the '|'-separated `values` without regard to case; returns the canonical
// spelling from the table, or "" when it is not accepted.
std::string match_value(const std::string& text, const char* values) {
  for (const std::string& v : split(values, '|')) {
    if (lower(v) == lower(text)) return v;
  }
  return "";
}

std::string accepted_list(const char* values) {
  std::string out;
  for (const std::string& v : split(values, '|')) {
    if (!out.empty()) out += ", ";
    out += v;
  }
  return out;
}

const char* type_expectation(ConfigType type) {
  switch (type) {
    case ConfigType::Bool:
      return "a boolean: 1/0, true/false, yes/no or on/off";
    case ConfigType::Int:
      return "an integer";
    case ConfigType::Size:
      return "a size: a number with an optional K, M, G or T suffix (powers of 1024), e.g. 512M";
    case ConfigType::Seconds:
      return "a number of seconds, e.g. 30 or 0.5";
    default:
      return "a value";
  }
}

// Parses one value of a field's type. Writes a description of the problem to `why` on failure.
template <typename T>
bool parse_field(ConfigType type, const char* values, const std::string& text, T* out, std::string* why);

template <>
bool parse_field(ConfigType type, const char*, const std::string& text, bool* out, std::string* why) {
  if (parse_bool(text, out)) return true;
  *why = type_expectation(type);
  return false;
}
template <>
bool parse_field(ConfigType type, const char*, const std::string& text, int64_t* out, std::string* why) {
  if (parse_int(text, out)) return true;
  *why = type_expectation(type);
  return false;
}
template <>
bool parse_field(ConfigType type, const char*, const std::string& text, uint64_t* out, std::string* why) {
  if (parse_size(text, out)) return true;
  *why = type_expectation(type);
  return false;
}
template <>
bool parse_field(ConfigType type, const char*, const std::string& text, double* out, std::string* why) {
  if (parse_seconds(text, out)) return true;
  *why = type_expectation(type);
  return false;
}
template <>
bool parse_field(ConfigType type, const char* values, const std::string& text, std::string* out, std::string* why) {
  if (type == ConfigType::String) {
    *out = text;
    return true;
  }
  std::string canonical = match_value(trim(text), values);
  if (!canonical.empty()) {
    *out = canonical;
    return true;
  }
  *why = std::string("one of ") + accepted_list(values);
  return false;
}
template <>
bool parse_field(ConfigType, const char* values, const std::string& text, std::vector<std::string>* out,
                 std::string* why) {
  std::vector<std::string> items;
  for (const std::string& raw : split(text, ',')) {
    if (raw.empty()) continue;
    std::string item = raw;
    bool negate = item[0] == '^';
    if (negate) item = trim(item.substr(1));
    std::string canonical = match_value(item, values);
    if (canonical.empty()) {
      *why = std::string("a comma list of ") + accepted_list(values) + " (optionally starting with ^)";
      return false;
    }
    items.push_back(negate ? "^" + canonical : canonical);
  }
  *out = items;
  return true;
}

std::string format_field(ConfigType type, bool v) {
  (void)type;
  return v ? "true" : "false";
}
std::string format_field(ConfigType, int64_t v) { return std::to_string(v); }
std::string format_field(ConfigType, uint64_t v) { return format_size(v); }
std::string format_field(ConfigType, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string format_field(ConfigType, const std::string& v) { return v; }
std::string format_field(ConfigType, const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

bool parse_bool(const std::string& text, bool* out) {
  std::string t = lower(trim(text));
  if (t == "1" || t == "y" || t == "yes" || t == "true" || t == "on") {
    *out = true;
    return true;
  }
  if (t == "0" || t == "n" || t == "no" || t == "false" || t == "off") {
    *out = false;
    return true;
  }
  return false;
}

bool parse_int(const std::string& text, int64_t* out) {
  std::string t = trim(text);
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_size(const std::string& text, uint64_t* out) {
  std::string t = trim(text);
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (errno != 0 || end == t.c_str() || !std::isfinite(v) || v < 0) return false;
  std::string suffix = lower(trim(end));
  double mult = 1;
  if (!suffix.empty()) {
    std::string rest = suffix.substr(1);
    switch (suffix[0]) {
      case 'b':
        if (!rest.empty()) return false;
        break;
      case 'k':
        mult = 1024.0;
        break;
      case 'm':
        mult = 1024.0 * 1024;
        break;
      case 'g':
        mult = 1024.0 * 1024 * 1024;
        break;
      case 't':
        mult = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return false;
    }
    if (!(rest.empty() || rest == "b" || rest == "ib")) return false;
  }
  double bytes = v * mult;
  if (bytes > 1.8e19) return false;
  *out = static_cast<uint64_t>(bytes);
  return true;
}

bool parse_seconds(const std::string& text, double* out) {
  std::string t = trim(text);
  if (t.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  std::string rest = lower(trim(end));
  if (errno != 0 || end == t.c_str() || !std::isfinite(v) || v < 0) return false;
  if (!(rest.empty() || rest == "s")) return false;
  *out = v;
  return true;
}

std::string format_size(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && u < 4 && std::fmod(v, 1024.0) == 0.0) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0 && bytes >= 1024) {
    // Not a whole multiple of 1 KiB: show a rounded value with the exact count.
    double r = static_cast<double>(bytes);
    int ru = 0;
    while (r >= 1024.0 && ru < 4) {
      r /= 1024.0;
      ++ru;
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.1f %s (%llu B)", r, units[ru], static_cast<unsigned long long>(bytes));
    return buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  return buf;
}

Status parse_config(const EnvLookup& lookup, Config* out, std::string* errors) {
  Config cfg;
  std::string errs;
#define GSHMEM_CONFIG(field, name, type, def, cat, values, help)                                                      \
  {                                                                                                                   \
    std::string why;                                                                                                  \
    if (!parse_field(ConfigType::type, values, def, &cfg.field, &why)) {                                              \
      errs += std::string(errs.empty() ? "" : "\n") + "internal: the default of " + name + " is malformed.";          \
    }                                                                                                                 \
    if (const char* text = lookup(name)) {                                                                            \
      if (!parse_field(ConfigType::type, values, text, &cfg.field, &why)) {                                           \
        errs += std::string(errs.empty() ? "" : "\n") + name + "='" + text + "' is not valid: expected " + why + "."; \
      }                                                                                                               \
    }                                                                                                                 \
  }
#include "util/config.def"
#undef GSHMEM_CONFIG
  // Values of the right type that still cannot work.
  auto positive = [&](const char* name, double v, const char* why) {
    if (v > 0 || !lookup(name)) return;
    errs += std::string(errs.empty() ? "" : "\n") + name + "='" + lookup(name) + "' is not valid: " + why + ".";
  };
  positive("GSHMEM_BOOTSTRAP_TIMEOUT", cfg.bootstrap_timeout,
           "every bootstrap step needs a deadline above 0 seconds (the default is 120; there is no \"no timeout\")");
  positive("GSHMEM_PEER_TIMEOUT", cfg.peer_timeout,
           "a PE whose host went silent must count as gone after some seconds above 0 (the default is 3)");
  *out = cfg;
  if (errors) *errors = errs;
  return errs.empty() ? GSHMEM_SUCCESS : GSHMEM_ERROR_CONFIG;
}

bool parse_settings_text(const std::string& text, const std::string& origin, std::map<std::string, std::string>* values,
                         std::string* errors) {
  bool good = true;
  size_t start = 0;
  for (int line_no = 1; start < text.size(); ++line_no) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    // A comment: the whole line, or from a '#' that follows a blank.
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        line.resize(i);
        break;
      }
    }
    line = trim(line);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    const std::string name = eq == std::string::npos ? std::string() : trim(line.substr(0, eq));
    if (name.empty() || name.find_first_of(" \t") != std::string::npos) {
      *errors += std::string(errors->empty() ? "" : "\n") + origin + ":" + std::to_string(line_no) + ": '" + line +
                 "' is not a setting: write NAME=VALUE (a # starts a comment).";
      good = false;
      continue;
    }
    (*values)[name] = trim(line.substr(eq + 1));
  }
  return good;
}

bool read_settings_files(const std::vector<std::string>& paths, const std::string& required,
                         std::map<std::string, std::string>* values, std::string* errors) {
  bool good = true;
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) {
      if (path == required) {
        *errors += std::string(errors->empty() ? "" : "\n") + "NVSHMEM_CONF_FILE='" + path +
                   "' cannot be read: " + std::strerror(errno) + ". Name an existing settings file, or unset it.";
        good = false;
      }
      continue;
    }
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    good = parse_settings_text(text, path, values, errors) && good;
  }
  return good;
}

EnvLookup with_settings_files(const std::map<std::string, std::string>& values, EnvLookup env) {
  return [values, env](const char* name) -> const char* {
    auto it = values.find(name);
    // The map lives in the returned function, so the pointer stays valid while the lookup does.
    return it != values.end() ? it->second.c_str() : env(name);
  };
}

namespace {

// The settings files' values in effect for this process, read once.
const std::map<std::string, std::string>& process_settings_files(std::string* errors) {
  static std::string read_errors;
  static const std::map<std::string, std::string> values = [] {
    std::map<std::string, std::string> v;
    const char* home = std::getenv("HOME");
    const char* named = std::getenv("NVSHMEM_CONF_FILE");
    const std::vector<std::string> paths = {
        "/etc/nvshmem.conf", home && *home ? std::string(home) + "/.nvshmem.conf" : "", named ? named : ""};
    read_settings_files(paths, named ? named : "", &v, &read_errors);
    return v;
  }();
  if (errors) *errors = read_errors;
  return values;
}

EnvLookup process_lookup(std::string* errors) {
  return with_settings_files(process_settings_files(errors),
                             [](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace

Status parse_config_from_environment(Config* out, std::string* errors) {
  std::string file_errors;
  const EnvLookup lookup = process_lookup(&file_errors);
  std::string errs;
  const Status s = parse_config(lookup, out, &errs);
  if (!file_errors.empty()) errs = file_errors + (errs.empty() ? "" : "\n" + errs);
  if (errors) *errors = errs;
  return file_errors.empty() ? s : GSHMEM_ERROR_CONFIG;
}

std::vector<ConfigEntry> describe_config(const Config& config, const EnvLookup& lookup) {
  std::vector<ConfigEntry> rows;
#define GSHMEM_CONFIG(field, name, type, def, cat, values, help)                                                      \
  rows.push_back(ConfigEntry{name, ConfigType::type, def, ConfigCategory::cat, values, help, lookup(name) != nullptr, \
                             ConfigCategory::cat == ConfigCategory::Secret                                            \
                                 ? std::string(lookup(name) ? "(set; not shown)" : "")                                \
                                 : format_field(ConfigType::type, config.field)});
#include "util/config.def"
#undef GSHMEM_CONFIG
  return rows;
}

std::vector<ConfigEntry> describe_config_from_environment(const Config& config) {
  return describe_config(config, process_lookup(nullptr));
}

const char* config_type_name(ConfigType t) {
  switch (t) {
    case ConfigType::Bool:
      return "bool";
    case ConfigType::Int:
      return "int";
    case ConfigType::Size:
      return "size";
    case ConfigType::Seconds:
      return "seconds";
    case ConfigType::String:
      return "string";
    case ConfigType::Enum:
      return "choice";
    case ConfigType::List:
      return "list";
  }
  return "?";
}

void print_settings_table(FILE* out, const Config& config) {
  std::vector<ConfigEntry> rows;
  for (ConfigEntry& e : describe_config_from_environment(config)) {
    if (e.category == ConfigCategory::Public) rows.push_back(std::move(e));
  }
  int name_w = 8, value_w = 5;
  for (const ConfigEntry& e : rows) {
    name_w = std::max(name_w, static_cast<int>(std::strlen(e.name)));
    value_w = std::max(value_w, static_cast<int>(e.current.size()) + 2);
  }
  std::fprintf(out, "Settings (* = set in the environment or a settings file):\n  %-*s  %-*s  %s\n", name_w, "variable",
               value_w, "value", "meaning");
  for (const ConfigEntry& e : rows) {
    const std::string value = (e.current.empty() ? std::string("\"\"") : e.current) + (e.is_set ? " *" : "");
    std::fprintf(out, "  %-*s  %-*s  %s\n", name_w, e.name, value_w, value.c_str(), e.help);
  }
}

std::string settings_markdown() {
  Config defaults;
  std::string ignored;
  parse_config([](const char*) -> const char* { return nullptr; }, &defaults, &ignored);
  std::string md =
      "# Settings\n\n"
      "Every setting is an environment variable, read once at `nvshmem_init`. NVSHMEM's variables keep NVSHMEM's\n"
      "meaning; gshmem's own start with `GSHMEM_`. A malformed value is an error naming the variable and what is\n"
      "accepted; a misspelled `GSHMEM_*` name gets a \"did you mean\" warning. `gshmem-info` prints each setting\n"
      "with its value in the current environment; `NVSHMEM_INFO=1` prints them at start.\n\n"
      "Settings files (NVSHMEM 3.6) hold `NAME=VALUE` lines (`#` starts a comment): `/etc/nvshmem.conf`, then\n"
      "`$HOME/.nvshmem.conf`, then the file `NVSHMEM_CONF_FILE` names. A later file's value wins over an earlier\n"
      "one's, and a file's value wins over the environment's, as in NVSHMEM. A file that `NVSHMEM_CONF_FILE`\n"
      "names must exist, and a line that is not `NAME=VALUE` is an error naming the file and line.\n\n"
      "Sizes take a K, M, G or T suffix (powers of 1024); booleans 1/0, yes/no, true/false, on/off.\n\n"
      "This file is written by `gshmem-info --markdown` from the one table of settings (`src/util/config.def`);\n"
      "the test `lint_settings_doc` fails when they differ.\n\n"
      "| Variable | Type | Default | Meaning |\n| --- | --- | --- | --- |\n";
  for (const ConfigEntry& e : describe_config(defaults, [](const char*) -> const char* { return nullptr; })) {
    if (e.category != ConfigCategory::Public) continue;
    std::string type = config_type_name(e.type);
    if (e.values[0]) {
      std::string v = e.values;
      std::string list;
      size_t start = 0;
      while (start <= v.size()) {
        size_t end = std::min(v.find('|', start), v.size());
        list += (list.empty() ? "" : ", ") + ("`" + v.substr(start, end - start) + "`");
        start = end + 1;
      }
      type += ": " + list;
    }
    md += "| `" + std::string(e.name) + "` | " + type + " | " +
          (e.default_value[0] ? "`" + std::string(e.default_value) + "`" : std::string()) + " | " + e.help + " |\n";
  }
  return md;
}

std::vector<std::pair<std::string, std::string>> unknown_gshmem_variables() {
  std::vector<std::string> known;
#define GSHMEM_CONFIG(field, name, type, def, cat, values, help) known.emplace_back(name);
#include "util/config.def"
#undef GSHMEM_CONFIG
  std::vector<std::pair<std::string, std::string>> unknown;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("GSHMEM_", 0) != 0) continue;
    std::string name = entry.substr(0, entry.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string best;
    size_t best_d = 1000;
    for (const std::string& k : known) {
      size_t d = edit_distance(name, k);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    unknown.emplace_back(name, best_d <= 3 ? best : "");
  }
  return unknown;
}

}  // namespace gshmem
