// Settings of gshmem, parsed from the environment and the settings files through the table in config.def.
//
// Settings files (NVSHMEM 3.6): /etc/nvshmem.conf, then $HOME/.nvshmem.conf, then the file that
// NVSHMEM_CONF_FILE names, each of `NAME=VALUE` lines (blank lines and lines starting with '#' ignored; a
// '#' after a blank starts a comment; blanks around name and value trimmed). A later file's value wins over
// an earlier one's, and a file's value wins over the environment's, as in NVSHMEM. Missing files are skipped,
// but a file that NVSHMEM_CONF_FILE names must exist; a line that is not NAME=VALUE is an error naming it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "util/status.h"

namespace gshmem {

enum class ConfigType { Bool, Int, Size, Seconds, String, Enum, List };
// Secret: hidden, and its value is never described (a job's credentials).
enum class ConfigCategory { Public, Hidden, Secret };
const char* config_type_name(ConfigType type);  // "bool", "size", "choice", ...

// The parsed settings. Every member comes from one row of config.def.
struct Config {
#define GSHMEM_CONFIG_FIELD_Bool bool
#define GSHMEM_CONFIG_FIELD_Int int64_t
#define GSHMEM_CONFIG_FIELD_Size uint64_t
#define GSHMEM_CONFIG_FIELD_Seconds double
#define GSHMEM_CONFIG_FIELD_String std::string
#define GSHMEM_CONFIG_FIELD_Enum std::string
#define GSHMEM_CONFIG_FIELD_List std::vector<std::string>
#define GSHMEM_CONFIG(field, name, type, def, cat, values, help) GSHMEM_CONFIG_FIELD_##type field{};
#include "util/config.def"
#undef GSHMEM_CONFIG
};

// One row of the table, with the value found in the environment (if any).
struct ConfigEntry {
  const char* name;
  ConfigType type;
  const char* default_value;
  ConfigCategory category;
  const char* values;  // '|'-separated accepted values for Enum and List
  const char* help;
  bool is_set;          // the variable is set, in the environment or a settings file
  std::string current;  // the value in effect, formatted like the default
};

// Looks a variable up; returns nullptr when it is not set.
using EnvLookup = std::function<const char*(const char* name)>;

// Parses every setting. On error returns GSHMEM_ERROR_CONFIG and a message naming every malformed
// variable, its value and what is accepted; `out` then holds the defaults for those variables.
Status parse_config(const EnvLookup& lookup, Config* out, std::string* errors);

// Parses the settings files and the process environment (the only place that reads them).
Status parse_config_from_environment(Config* out, std::string* errors);

// The settings of `text` (a settings file's contents) into *values, `origin` ("/etc/nvshmem.conf") naming it
// in errors: false after appending a message for each malformed line.
bool parse_settings_text(const std::string& text, const std::string& origin, std::map<std::string, std::string>* values,
                         std::string* errors);
// The files' settings, later files over earlier ones: each of `paths` that exists (an empty path is skipped;
// `required` must exist). False after appending a message for a file that cannot be read or a malformed line.
bool read_settings_files(const std::vector<std::string>& paths, const std::string& required,
                         std::map<std::string, std::string>* values, std::string* errors);
// Looks a setting up in the files' values first, then in `env`.
EnvLookup with_settings_files(const std::map<std::string, std::string>& values, EnvLookup env);

// Every row of the table with the values in effect for `config` (as found through `lookup`).
std::vector<ConfigEntry> describe_config(const Config& config, const EnvLookup& lookup);
std::vector<ConfigEntry> describe_config_from_environment(const Config& config);

// The public settings in aligned columns (name, value in effect, "*" when set, help), under a
// heading: what NVSHMEM_INFO=1 prints.
void print_settings_table(FILE* out, const Config& config);

// The reference of every public setting, as a Markdown table (type and accepted values, default,
// help). docs/settings.md is this text, written by `gshmem-info --markdown`, so it cannot drift.
std::string settings_markdown();

// Variables in the environment that start with GSHMEM_ but are not in the table, each with the
// closest known name (for a "did you mean" warning).
std::vector<std::pair<std::string, std::string>> unknown_gshmem_variables();

// Value parsers, exposed for tests. Each returns false on malformed input.
bool parse_bool(const std::string& text, bool* out);
bool parse_size(const std::string& text, uint64_t* out);
bool parse_int(const std::string& text, int64_t* out);
bool parse_seconds(const std::string& text, double* out);

// "1.5 GiB"-style rendering of a byte count.
std::string format_size(uint64_t bytes);

}  // namespace gshmem
