// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of settings. Each setting is declared once, in src/settings.cpp: its name (the
// flag without dashes and the plan-file key), value type and unit, accepted range, default,
// help, the commands that take it, and how it lands in a Scenario. The command line's flags,
// plan-file keys, --help, `gpuplan settings`, shell completions and "did you mean" all come
// from it; the man page is checked against it by a test.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/quantity.hpp"

namespace gpuplan {

struct Scenario;

// The commands that take settings, as bits.
enum Command : unsigned {
  cmd_memory = 1u << 0,
  cmd_train = 1u << 1,
  cmd_search = 1u << 2,
  cmd_infer = 1u << 3,
  cmd_power = 1u << 4,
};
// "train" -> cmd_train; 0 for a name that takes no settings.
unsigned command_bit(std::string_view name);
// The names of the commands in a mask, in table order: "memory, train and search".
std::string command_names(unsigned mask);

enum class SettingType { integer, number, choice, text, boolean };

// A parsed value handed to a setting's apply function: the number in SI units (integer and
// number), the text (choice and text) or the switch (boolean).
struct SettingValue {
  double number = 0;
  std::string text;
  bool on = false;
  int integer() const { return static_cast<int>(number); }
};

struct Setting {
  std::string_view name;
  SettingType type = SettingType::text;
  QuantityKind kind = QuantityKind::real;  // integer: always count
  // A number written without a unit means this many SI units ("--weeks 4", "--price 2.5" per
  // hour); 0: the kind's own reading. The range is shown in `unit` when this is set.
  double plain = 0;
  double min = 0, max = 0;   // accepted range in SI units
  bool above_min = false;    // min itself is refused ("more than 0")
  std::string_view choices;  // choice: "none|selective|full"
  unsigned commands = 0;
  std::string_view unit;     // unit of a plain number, for help ("weeks", "USD/h")
  std::string_view fallback; // the default, in words
  std::string_view help;
  void (*apply)(Scenario&, const SettingValue&) = nullptr;
  std::string_view accepts;  // text: what it takes, in words, where not a catalog id or a file of one
};

// Every setting, in the order --help and the man page list them.
std::span<const Setting> settings_table();
// The setting named so, or nullptr.
const Setting* find_setting(std::string_view name);
// Names of every setting (all commands), for "did you mean".
std::vector<std::string> setting_names();
// The accepted range or values, in words: "1 to 1024", "more than 0 and at most 520 weeks",
// "none, selective or full".
std::string accepted(const Setting& s);

// Pairs of settings that cannot be given together ("weeks" and "days").
struct Conflict {
  std::string_view a, b;
};
// The conflict among the names given, as "give --weeks or --days, not both"; empty when none.
std::string conflict_among(const std::vector<std::string>& names);

// Parses, range-checks and applies one setting by name ("tp", "micro-batch"). Throws
// Error(usage) naming the setting, the value and what is accepted.
void apply_setting(Scenario& s, const std::string& name, const std::string& value);

// Sets what --framework NAME implies for every setting not given on its own (tp-overlap,
// dp-overlap, ZeRO, attention, cross-entropy fusion, gradient width), with a note saying so.
void apply_framework(Scenario& s, const std::string& name);

// The unknown name `word` among `candidates`, as "; did you mean --tp?" (empty without a guess).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, std::string_view prefix);

}  // namespace gpuplan
