// SPDX-License-Identifier: Apache-2.0
// The only translation unit that includes CLI11. It maps flags onto the option structs
// of include/gpuplan/commands.hpp, runs the command, renders its Document, and turns
// every error into one stderr line and a documented exit status (see man/gpuplan.1).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <functional>
#include <iostream>
#include <optional>
#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuplan/cli.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/output.hpp"
#include "gpuplan/plan/plan.hpp"
#include "gpuplan/plan/report.hpp"
#include "gpuplan/settings.hpp"

namespace gpuplan {
namespace {


struct Globals {
  std::string format = "table";
  std::vector<std::string> catalogs;
  std::optional<std::string> get;  // --get KEY: print that one value of the JSON answer
};

// The value at a dotted key of an answer: a scalar as text, a list or table as JSON.
std::string got(const Value* v, const std::string& key) {
  if (key.empty()) fail(Exit::usage, "--get needs a key, e.g. --get gpus or --get layout.tp");
  if (!v) fail(Exit::usage, "--get '" + shown(key, 200) + "' matches nothing in the answer (--format json lists the keys)");
  // A text value is one line of what a terminal shows: no ESC, BEL, newline or bidi override.
  if (v->type() == Value::Type::string) return printable(scalar_text(*v)) + "\n";
  return (v->type() == Value::Type::object || v->type() == Value::Type::array) ? to_json(*v) : scalar_text(*v) + "\n";
}

// The last guard on every answer: a number that is not finite fails the command (exit 1) with
// its key, rather than printing inf or writing JSON null.
void check_finite(const Value& data) {
  if (const auto key = first_non_finite(data))
    fail(Exit::no_answer, fmt::format("the answer has no finite value for '{}': the inputs are outside what the model "
                                      "covers", *key));
}

// The columns of the terminal on stdout; 0 (no limit) when stdout is a pipe or a file, so that
// what scripts read never depends on a window.
std::size_t terminal_width() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const long n = std::strtol(c, nullptr, 10);
    if (n >= 20 && n <= 10000) return static_cast<std::size_t>(n);
  }
  return 0;
}

// Prints the answer and returns its exit status (1 where the request was not met).
int print(const Document& doc, const Globals& g) {
  check_finite(doc.data);
  std::string out;
  if (g.get) {
    const Value data = with_schema_version(doc.data);
    out = got(find_path(data, *g.get), *g.get);
  } else {
    out = render(doc, parse_format(g.format), terminal_width());
  }
  for (const auto& w : doc.warnings) std::cerr << "gpuplan: warning: " << shown(w, 2000) << "\n";
  write_stdout(out);
  if (!doc.failure.empty()) std::cerr << "gpuplan: error: " << shown(doc.failure, 2000) << "\n";
  return doc.exit_code;
}

Catalog load_catalog(const Globals& g) {
  Catalog c = Catalog::builtin();
  c.merge_chain(g.catalogs);
  return c;
}

void print_error(const std::string& message) {
  // Data errors already carry "file:line:col: error:", one per line; print them as compilers do.
  // Any other message is one line, its control characters escaped and its length capped.
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= message.size();) {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    lines.push_back(message.substr(start, end - start));
    start = end + 1;
  }
  while (lines.size() > 1 && lines.back().empty()) lines.pop_back();
  const bool located = std::all_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(": error: ") != std::string::npos || l.find(": warning: ") != std::string::npos;
  });
  if (!located) lines = {"gpuplan: error: " + message};
  for (const auto& l : lines) std::cerr << shown(l, 2000) << "\n";
}

// An unknown subcommand ("gpuplan trian") gets the closest name, before CLI11 reads further.
// The subcommand of `level` named `word` (none: nullptr), and in `names` every name it could have
// been, `skip` left out.
const CLI::App* subcommand_named(const CLI::App& level, const std::string& word, std::vector<std::string>& names,
                                 std::string_view skip = {}) {
  const CLI::App* found = nullptr;
  for (const CLI::App* sub : level.get_subcommands({})) {
    if (sub->get_name() == skip) continue;
    names.push_back(sub->get_name());
    if (sub->get_name() == word) found = sub;
  }
  return found;
}

void check_command_names(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  for (int i = 1; i < argc && level; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return;
    std::vector<std::string> names;
    const CLI::App* next = subcommand_named(*level, word, names);
    if (names.empty()) return;  // a positional argument of the command
    if (!next)
      fail(Exit::usage, fmt::format("unknown command '{}'{} (see 'gpuplan{} --help')", shown(word), did_you_mean(word, names, ""),
                                    level == &app ? "" : " " + level->get_name()));
    level = next;
  }
}

// What the parsed subcommand did not take: a flag of another command, a misspelt flag, a stray word.
void check_extras(const CLI::App& app) {
  const CLI::App* cmd = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : cmd->get_subcommands())
      if (sub->parsed()) cmd = sub, deeper = true;
  }
  const std::vector<std::string> extra = cmd->remaining();
  if (extra.empty()) return;
  std::string path = cmd->get_name();
  if (cmd->get_parent() && cmd->get_parent() != &app) path = cmd->get_parent()->get_name() + " " + path;
  const std::string& word = extra.front();
  if (word.rfind("--", 0) != 0)
    fail(Exit::usage, fmt::format("unexpected argument '{}' for {} (see 'gpuplan {} --help')", shown(word), path, path));
  std::string name = word.substr(2);
  name = name.substr(0, name.find('='));
  if (const Setting* s = find_setting(name))
    fail(Exit::usage, fmt::format("--{} does not apply to {}: it is a setting of {} (see 'gpuplan {} --help')", name, path,
                                  command_names(s->commands), path));
  std::vector<std::string> flags;
  for (const CLI::Option* o : cmd->get_options())
    for (const auto& l : o->get_lnames()) flags.push_back(l);
  fail(Exit::usage, fmt::format("unknown flag '{}' for {}{}", shown(word), path, did_you_mean(name, flags, "--")));
}

// Flags whose values are catalog ids, and the kind the ids come from (every completion script).
constexpr std::pair<std::string_view, std::string_view> id_flags[] = {
    {"model", "models"}, {"gpu", "accelerators"},    {"host", "accelerators"},
    {"site", "sites"},   {"scale-out", "interconnects"}, {"storage", "storage"}, {"api", "apis"}};

// The fixed words a flag takes, space-separated: its setting's choices, or the output formats;
// empty when it has none.
std::string fixed_words(std::string_view flag) {
  if (flag == "format") return "table json csv markdown html";
  const Setting* st = find_setting(flag);
  if (!st || st->type != SettingType::choice) return {};
  std::string words(st->choices);
  std::replace(words.begin(), words.end(), '|', ' ');
  return words;
}

// A bash completion script read off the parsed command tree itself (subcommands and each one's
// flags), with the settings table's choices and catalog ids looked up as the user types.
std::string bash_completion(const CLI::App& app) {
  const auto names = [](const CLI::App& a) {
    std::string out;
    for (const CLI::App* sub : a.get_subcommands({})) out += (out.empty() ? "" : " ") + sub->get_name();
    return out;
  };
  const auto flags = [](const CLI::App& a) {
    std::string out;
    for (const CLI::Option* o : a.get_options())
      for (const auto& l : o->get_lnames()) out += (out.empty() ? "--" : " --") + l;
    return out;
  };
  std::string s =
      "# bash completion for gpuplan, generated by 'gpuplan completions bash'.\n"
      "_gpuplan_ids() { gpuplan catalog list \"$1\" --format csv 2>/dev/null | tail -n +2 | cut -d, -f1; }\n"
      "_gpuplan() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"${COMP_WORDS[1]}\" words=\"\"\n"
      "  case \"$prev\" in\n";
  for (const auto& [flag, kind] : id_flags) s += fmt::format("    --{}) words=$(_gpuplan_ids {}) ;;\n", flag, kind);
  s += fmt::format("    --format) words=\"{}\" ;;\n", fixed_words("format"));
  for (const Setting& st : settings_table())
    if (st.type == SettingType::choice) s += fmt::format("    --{}) words=\"{}\" ;;\n", st.name, fixed_words(st.name));
  s += "  esac\n";
  std::string parents, cases;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_subcommands({}).empty()) {
      cases += fmt::format("      \"{}\") words=\"{}\" ;;\n", sub->get_name(), flags(*sub));
      continue;
    }
    parents += (parents.empty() ? "" : "|") + sub->get_name();
    cases += fmt::format("      \"{}\") words=\"{}\" ;;\n", sub->get_name(), names(*sub));
    for (const CLI::App* inner : sub->get_subcommands({}))
      cases += fmt::format("      \"{} {}\") words=\"{}\" ;;\n", sub->get_name(), inner->get_name(), flags(*inner));
  }
  s += fmt::format("  case \"$cmd\" in {}) [ \"$COMP_CWORD\" -gt 2 ] && cmd=\"$cmd ${{COMP_WORDS[2]}}\" ;; esac\n",
                   parents.empty() ? "''" : parents);
  s += fmt::format("  if [ -z \"$words\" ] && [ \"$COMP_CWORD\" -eq 1 ]; then\n    words=\"{}\"\n", names(app));
  s += "  elif [ -z \"$words\" ]; then\n    case \"$cmd\" in\n" + cases +
       "    esac\n"
       "  fi\n"
       "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
       "}\n"
       "complete -o default -F _gpuplan gpuplan\n";
  return s;
}

// zsh runs the bash script through its bash-completion emulation (bashcompinit).
std::string zsh_completion(const CLI::App& app) {
  return "#compdef gpuplan\n"
         "# zsh completion for gpuplan, generated by 'gpuplan completions zsh': the bash completion,\n"
         "# loaded through zsh's bashcompinit.\n"
         "autoload -U +X bashcompinit && bashcompinit\n" +
         bash_completion(app);
}

// fish: one `complete` line per subcommand and per flag of each, from the same CLI11 tree.
std::string fish_completion(const CLI::App& app) {
  const auto quoted = [](std::string_view text) {
    std::string o = "'";
    for (char c : text) o += c == '\'' ? std::string("\\'") : c == '\\' ? std::string("\\\\") : std::string(1, c);
    return o + "'";
  };
  std::string s =
      "# fish completion for gpuplan, generated by 'gpuplan completions fish'.\n"
      "function __gpuplan_ids\n"
      "    gpuplan catalog list $argv[1] --format csv 2>/dev/null | tail -n +2 | cut -d, -f1\n"
      "end\n"
      "complete -c gpuplan -f\n";
  std::string top;
  for (const CLI::App* sub : app.get_subcommands({})) top += (top.empty() ? "" : " ") + sub->get_name();
  const auto flags_of = [&](const CLI::App& a, const std::string& when) {
    for (const CLI::Option* o : a.get_options()) {
      for (const auto& l : o->get_lnames()) {
        std::string line = fmt::format("complete -c gpuplan -n {} -l {}", quoted(when), l);
        if (o->get_items_expected_min() > 0) {
          line += " -r";
          for (const auto& [flag, kind] : id_flags)
            if (flag == l) line += fmt::format(" -a '(__gpuplan_ids {})'", kind);
        }
        if (const std::string words = fixed_words(l); !words.empty()) line += " -a " + quoted(words);
        // The help up to its parenthesis: "Accelerator id (gpuplan catalog list ...)" -> "Accelerator id".
        s += line + " -d " + quoted(o->get_description().substr(0, o->get_description().find(" ("))) + "\n";
      }
    }
  };
  for (const CLI::App* sub : app.get_subcommands({})) {
    s += fmt::format("complete -c gpuplan -n {} -a {} -d {}\n", quoted("not __fish_seen_subcommand_from " + top),
                     sub->get_name(), quoted(sub->get_description()));
    std::string inner;
    for (const CLI::App* in : sub->get_subcommands({})) inner += (inner.empty() ? "" : " ") + in->get_name();
    if (inner.empty()) {
      flags_of(*sub, "__fish_seen_subcommand_from " + sub->get_name());
      continue;
    }
    for (const CLI::App* in : sub->get_subcommands({})) {
      s += fmt::format("complete -c gpuplan -n {} -a {} -d {}\n",
                       quoted("__fish_seen_subcommand_from " + sub->get_name() + "; and not __fish_seen_subcommand_from " + inner),
                       in->get_name(), quoted(in->get_description()));
      flags_of(*in, "__fish_seen_subcommand_from " + sub->get_name() + "; and __fish_seen_subcommand_from " + in->get_name());
    }
  }
  return s;
}

void print_version() { write_stdout(std::string(version_string()) + "\n"); }

// The command line parsed and run; errors reach cli_main, which reports them.
int run_cli(int argc, char** argv) {
  // `gpuplan --version` alone answers before the parser is built: building it (every command's
  // settings) is most of what the version costs.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    print_version();
    return 0;
  }
  CLI::App app{"gpuplan: plan AI compute (devices, parallel layout, time, memory, power and cost)", "gpuplan"};
  app.set_version_flag("-V,--version", version_string());
  app.require_subcommand(1);
  Globals g;
  // The options every command takes. --get's example is a key the command's own JSON has.
  auto add_globals = [&](CLI::App* sub, std::string_view get_example = "id") {
    sub->add_option("--format", g.format, "Output format: table, json, csv or markdown (default table)")->type_name("WORD");
    sub->add_option("--catalog", g.catalogs, "Extra catalog file or directory (repeatable; overrides by id)")
        ->type_name("PATH");
    sub->add_option("--get", g.get,
                    fmt::format("Print one value of the JSON answer by its dotted key, e.g. {}", get_example))
        ->type_name("KEY");
  };
  std::function<int()> action;

  // ---- catalog
  auto* catalog = app.add_subcommand("catalog", "List, show and check the hardware and model catalogs");
  catalog->require_subcommand(1);
  CatalogListOptions list_opts;
  auto* list = catalog->add_subcommand("list", "List the records of one kind");
  list->add_option("kind", list_opts.kind,
                   "accelerators, apis, interconnects, models, prices, servers, sites or storage (none: the kinds, with "
                   "their counts)")
      ->type_name("WORD");
  add_globals(list, "0.id");
  list->callback([&] { action = [&] { print(run_catalog_list(load_catalog(g), list_opts), g); return 0; }; });

  CatalogShowOptions show_opts;
  auto* show = catalog->add_subcommand("show", "Show one record with every field and its source");
  show->add_option("id", show_opts.id, "Record id, e.g. h100-sxm")->required()->type_name("ID");
  show->add_option("--kind", show_opts.kind, "Restrict the lookup to one kind")->type_name("WORD");
  add_globals(show);
  show->callback([&] { action = [&] { print(run_catalog_show(load_catalog(g), show_opts), g); return 0; }; });

  std::vector<std::string> check_files;
  auto* check = catalog->add_subcommand("check", "Validate catalog files (exit 65 when invalid)");
  check->add_option("files", check_files, "TOML files or directories")->required()->type_name("PATH");
  add_globals(check, "0.valid");
  check->callback([&] {
    action = [&] {
      bool ok = true;
      Document doc = run_catalog_check(check_files, ok);
      for (const auto& l : doc.lines) std::cerr << shown(l, 2000) << "\n";
      doc.lines.clear();
      print(doc, g);
      return ok ? 0 : static_cast<int>(Exit::data);
    };
  });

  std::string import_path;
  auto* import = catalog->add_subcommand(
      "import", "Print the catalog record a config.json (or a directory holding one), a .gguf file or a .toml record gives");
  import->add_option("path", import_path, "config.json, a model directory, a .gguf file or a catalog .toml file")
      ->required()
      ->type_name("PATH");
  import->callback([&] { action = [&] { write_stdout(run_catalog_import(import_path)); return 0; }; });

  auto* paths = catalog->add_subcommand("paths", "Where catalogs are read from, lowest priority first");
  add_globals(paths, "0.path");
  paths->callback([&] { action = [&] { print(run_catalog_paths(g.catalogs), g); return 0; }; });

  // ---- memory, train, search, infer, power: the settings table's flags, each command only
  // those it takes; values go through apply_setting as plan-file keys do.
  Scenario scenario;
  RunOptions run_opts;
  std::vector<std::pair<std::string, std::string>> settings;
  // --help groups the settings as the table orders them (and the man page describes them): the
  // setting each group starts at, and its heading.
  static constexpr std::pair<std::string_view, std::string_view> groups[] = {
      {"model", "Model"},
      {"gpu", "Devices"},
      {"tp", "Layout and precision"},
      {"tokens", "Training run"},
      {"calibration", "Calibration"},
      {"mode", "Inference"},
      {"host", "Host memory"},
      {"site", "Bill: site, power and prices"},
      {"storage", "Storage, checkpoints and data"}};
  // A one-shot command builds its own settings alone: the other commands' hundred-odd options
  // each would cost more than the answer (help, completions and plans build them all).
  const std::string_view invoked = argc > 1 ? std::string_view(argv[1]) : std::string_view();
  const bool one_command = command_bit(invoked) != 0;
  auto add_settings = [&](CLI::App* sub, unsigned command) {
    if (one_command && sub->get_name() != invoked) return;
    std::string group = "Settings";
    for (const Setting& st : settings_table()) {
      for (const auto& [first, heading] : groups)
        if (st.name == first) group = heading;
      if (!(st.commands & command)) continue;
      const std::string name(st.name);
      if (st.type == SettingType::boolean) {
        // A switch takes no value: its help says how to turn it off, not "true or false".
        const std::string help = st.fallback == "off" ? fmt::format("{} (default off)", st.help)
                                                      : fmt::format("{} (default {}; --no-{} turns it off)", st.help,
                                                                    st.fallback, name);
        sub->add_flag_callback("--" + name, [&settings, name] { settings.emplace_back(name, "true"); }, help)->group(group);
        sub->add_flag_callback("--no-" + name, [&settings, name] { settings.emplace_back(name, "false"); })->group("");
        continue;
      }
      const std::string help = fmt::format("{} (default {}; {})", st.help, st.fallback, accepted(st));
      sub->add_option_function<std::string>("--" + name, [&settings, name](const std::string& v) { settings.emplace_back(name, v); },
                                            help)
          ->type_name(st.type == SettingType::text     ? (st.accepts.find("file") != std::string_view::npos ? "PATH"
                                                            : st.accepts.find("commas") != std::string_view::npos ? "ID,..."
                                                                                                                 : "ID")
                      : st.type == SettingType::choice ? "WORD"
                                                       : "N")
          ->group(group);
    }
    sub->add_flag("--explain", run_opts.explain, "Show each term with its formula and assumptions");
    add_globals(sub, command == cmd_memory   ? "total_bytes or fits"
                     : command == cmd_train  ? "layout.tp or gpu_hours"
                     : command == cmd_search ? "results.0.step_time_s"
                     : command == cmd_infer  ? "throughput_tokens_per_s or tpot_s"
                                             : "power.racks or power.it_kw");
  };
  auto apply_all = [&] {
    std::vector<std::string> names;
    for (const auto& kv : settings) names.push_back(kv.first);
    if (auto c = conflict_among(names); !c.empty()) fail(Exit::usage, c);
    for (const auto& [k, v] : settings) apply_setting(scenario, k, v);
  };
  auto* memory = app.add_subcommand("memory", "Memory per device for a model and layout, or the fewest devices");
  add_settings(memory, cmd_memory);
  memory->add_flag("--min-gpus", run_opts.min_gpus, "Find the fewest devices (and a layout) that fit");
  memory->callback([&] { action = [&] { apply_all(); return print(run_memory(load_catalog(g), scenario, run_opts), g); }; });
  auto* train = app.add_subcommand("train", "Fastest layout, step time and time to train");
  add_settings(train, cmd_train);
  train->callback([&] { action = [&] { apply_all(); return print(run_train(load_catalog(g), scenario, run_opts), g); }; });
  auto* search = app.add_subcommand("search", "Rank every layout on --gpus devices");
  add_settings(search, cmd_search);
  search->add_option("--top", run_opts.top, "How many layouts to list (default 10; 1 to 10000)")
      ->check(CLI::Range(1, 10000).description(""))
      ->type_name("N");
  search->add_flag("--stats", run_opts.stats, "Report layouts evaluated and the evaluation rate");
  search->callback([&] { action = [&] { apply_all(); return print(run_search(load_catalog(g), scenario, run_opts), g); }; });

  auto* infer = app.add_subcommand("infer", "Serve a model or run it locally: fit, offload, speed, devices for a load, cost per token");
  add_settings(infer, cmd_infer);
  infer->callback([&] {
    action = [&] {
      apply_all();
      return print(run_infer(load_catalog(g), scenario, run_opts), g);
    };
  });
  ProbeOptionsCli probe_opts;
  std::string probe_out, probe_compare;
  bool probe_force = false;
  auto* probe = app.add_subcommand("probe", "Measure this machine (CUDA GPU, else CPU) and write a calibration file");
  probe->add_option("--device", probe_opts.device, "auto (CUDA if a GPU is there, else the CPU), cpu or cuda (default auto)")
      ->type_name("WORD");
  probe->add_flag("--quick", probe_opts.quick, "Fewer sizes and samples: under a minute");
  probe->add_option("-o,--output", probe_out, "Write the calibration file here (atomically) instead of stdout")
      ->type_name("PATH");
  probe->add_flag("--force", probe_force, "Replace an existing output file");
  probe->add_option("--as", probe_opts.as, "Catalog accelerator id the file calibrates (default: from the device name; cpu-desktop for a CPU)")
      ->type_name("ID");
  probe->add_option("--compare", probe_compare, "Compare a calibration file with the catalog's figures instead of measuring")
      ->type_name("PATH");
  add_globals(probe);
  probe->callback([&] {
    action = [&] {
      const Catalog cat = load_catalog(g);
      if (!probe_compare.empty()) {
        if (probe_out.empty()) return print(run_probe_compare(cat, probe_compare), g);
        check_output(probe_out, probe_force);
        const Document doc = run_probe_compare(cat, probe_compare);
        check_finite(doc.data);
        for (const auto& w : doc.warnings) std::cerr << "gpuplan: warning: " << shown(w, 2000) << "\n";
        write_file_atomic(probe_out, render(doc, parse_format(g.format)), probe_force);
        return doc.exit_code;
      }
      if (!probe_out.empty()) check_output(probe_out, probe_force);  // before measuring for a minute
      std::vector<std::string> warnings;
      const std::string toml = run_probe(cat, probe_opts, warnings);
      for (const auto& w : warnings) std::cerr << "gpuplan: warning: " << shown(w, 2000) << "\n";
      if (probe_out.empty()) write_stdout(toml);
      else write_file_atomic(probe_out, toml, probe_force);
      return 0;
    };
  });
  std::string plan_file, plan_out, plan_get_path;
  bool plan_force = false, plan_init = false;
  long plan_max_searches = default_plan_searches;
  auto* plan = app.add_subcommand("plan", "Evaluate a TOML plan file: scenarios, sweeps, constraints, sensitivity, reports");
  plan->add_option("file", plan_file, "The plan file (gpuplan plan --init writes a template)")->type_name("PATH");
  plan->add_flag("--init", plan_init, "Print a commented template plan");
  plan->add_option("-o,--output", plan_out, "Write the report here (atomically) instead of stdout")->type_name("PATH");
  plan->add_flag("--force", plan_force, "Replace an existing output file");
  plan->add_option("--get", plan_get_path, "Print one value, e.g. scenarios.h100-owned.cost_usd.owned_tco")->type_name("KEY");
  plan->add_option("--format", g.format, "Output format: table, json, csv, markdown or html (default table)")->type_name("WORD");
  plan->add_option("--catalog", g.catalogs, "Extra catalog file or directory (repeatable; overrides by id)")->type_name("PATH");
  plan->add_option("--max-searches", plan_max_searches,
                   fmt::format("Refuse a plan needing more layout searches than this (default {}; 1 to {})",
                               default_plan_searches, max_plan_searches))
      ->check(CLI::Range(1L, max_plan_searches).description(""))
      ->type_name("N");
  plan->callback([&] {
    action = [&] {
      if (!plan_out.empty()) check_output(plan_out, plan_force);  // before evaluating every scenario
      std::string out;
      int rc = 0;
      if (plan_init) {
        if (!plan_file.empty()) fail(Exit::usage, "give --init or a plan file, not both");
        out = plan_template();
      } else {
        if (plan_file.empty()) fail(Exit::usage, "plan needs a plan file (or --init for a template)");
        if (g.format != "html") parse_format(g.format);
        PlanLimits limits;
        limits.max_searches = plan_max_searches;
        limits.note = [](const std::string& line) { std::cerr << "gpuplan: note: " << line << "\n" << std::flush; };
        const PlanRun run = run_plan(load_catalog(g), plan_file, limits);
        check_finite(run.report);
        rc = run.all_pass ? 0 : static_cast<int>(Exit::constraints);
        if (!plan_get_path.empty()) {
          out = got(plan_get(run.report, plan_get_path), plan_get_path);
        } else {
          out = render_plan(run, g.format, terminal_width());
        }
      }
      if (plan_out.empty()) write_stdout(out);
      else write_file_atomic(plan_out, out, plan_force);
      return rc;
    };
  });
  auto* power = app.add_subcommand("power", "Size a facility: nodes, racks, fabric, IT and facility power, energy and cost per year");
  add_settings(power, cmd_power);
  power->callback([&] { action = [&] { apply_all(); print(run_power(load_catalog(g), scenario, run_opts), g); return 0; }; });

  std::string settings_command;
  auto* settings_cmd = app.add_subcommand("settings", "List every setting: type, accepted values, default, commands (for scripts)");
  settings_cmd->add_option("--command", settings_command, "Only the settings one command takes (memory, train, search, infer, power)")
      ->type_name("WORD");
  bool settings_man = false;
  settings_cmd->add_flag("--man", settings_man, "Print the table as the man page gpuplan-settings(7), in roff");
  add_globals(settings_cmd, "settings.0.name");
  settings_cmd->callback([&] {
    action = [&] {
      unsigned mask = ~0u;
      if (!settings_command.empty()) {
        mask = command_bit(settings_command);
        if (!mask)
          fail(Exit::usage, fmt::format("--command '{}' takes no settings; expected memory, train, search, infer or power",
                                        shown(settings_command)));
      }
      if (settings_man && (!settings_command.empty() || g.format != "table" || g.get))
        fail(Exit::usage, "--man prints the whole table as a man page: give it without --command, --format or --get");
      if (settings_man) write_stdout(settings_man_page());
      else print(run_settings(mask), g);
      return 0;
    };
  });

  std::string shell;
  auto* completions = app.add_subcommand("completions", "Print a shell completion script (bash, zsh or fish)");
  completions->add_option("shell", shell, "bash, zsh or fish")->required()->type_name("WORD");
  completions->callback([&] {
    action = [&] {
      if (shell == "bash") write_stdout(bash_completion(app));
      else if (shell == "zsh") write_stdout(zsh_completion(app));
      else if (shell == "fish") write_stdout(fish_completion(app));
      else fail(Exit::usage, fmt::format("completions for '{}' are not available; expected bash, zsh or fish", shown(shell)));
      return 0;
    };
  });

  // Every subcommand keeps what it does not know, so that the error can name the closest flag.
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->allow_extras();
    for (CLI::App* inner : sub->get_subcommands({})) inner->allow_extras();
  }

  // ---- help CMD [SUB]: the command's --help.
  std::vector<std::string> help_path;
  auto* help = app.add_subcommand("help", "Show a command's help: gpuplan help train, gpuplan help catalog list");
  help->add_option("command", help_path, "The command, and its subcommand")->type_name("WORD");
  help->callback([&] {
    action = [&] {
      const CLI::App* at = &app;
      std::string parents;  // "gpuplan catalog" above list: the usage line --help prints
      for (const auto& word : help_path) {
        std::vector<std::string> names;
        const CLI::App* next = subcommand_named(*at, word, names, "help");
        if (!next)
          fail(Exit::usage, fmt::format("no command '{}' to show help for{} (see 'gpuplan{} --help')", shown(word),
                                        did_you_mean(word, names, ""), at == &app ? "" : " " + at->get_name()));
        parents += (parents.empty() ? "" : " ") + at->get_name();
        at = next;
      }
      // Alone, the tool's own help (app.help() would give the help command's, the one parsed).
      write_stdout(at == &app ? app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal)
                              : at->help(parents));
      return 0;
    };
  });

  check_command_names(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    write_stdout(app.help());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    write_stdout(app.help("", CLI::AppFormatMode::All));
    return 0;
  } catch (const CLI::CallForVersion&) {
    print_version();
    return 0;
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes are 100+; every parse problem is a usage error (2).
    std::string msg = e.what();
    if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
    // A switch given a value it cannot read ("--fused-loss=maybe"): say which values it takes.
    constexpr std::string_view prefix = "could not convert: ";
    if (const auto eq = msg.find(" = "); e.get_name() == "ConversionError" && msg.rfind(prefix, 0) == 0 &&
                                         msg.compare(prefix.size(), 2, "--") == 0 && eq != std::string::npos) {
      const std::string flag = msg.substr(prefix.size(), eq - prefix.size());
      msg = fmt::format("{} is a switch: '{}' is not on or off; give {}, --no-{} or {}=true|false", flag,
                        msg.substr(eq + 3), flag, flag.substr(2), flag);
    }
    print_error(msg + " (see 'gpuplan --help')");
    return static_cast<int>(Exit::usage);
  }
  check_extras(app);
  if (g.format != "html" || !plan->parsed()) parse_format(g.format);  // reject a bad --format before doing any work
  return action ? action() : 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const Error& e) {
    print_error(e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return static_cast<int>(Exit::software);
  }
}

}  // namespace gpuplan
