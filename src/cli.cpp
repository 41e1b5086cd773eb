// The only translation unit that includes CLI11. It maps flags onto the option structs
// of include/gpuplan/commands.hpp, runs the command, renders its Document, and turns
// every error into one stderr line and a documented exit status (see man/gpuplan.1).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <functional>
#include <iostream>

#include "gpuplan/cli.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan {
namespace {

constexpr const char* version_text = "gpuplan 0.1.0";

struct Globals {
  std::string format = "table";
  std::vector<std::string> catalogs;
};

void print(const Document& doc, const Globals& g) {
  std::string out = render(doc, parse_format(g.format));
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

Catalog load_catalog(const Globals& g) {
  Catalog c = Catalog::builtin();
  c.merge_chain(g.catalogs);
  return c;
}

void print_error(const std::string& message) {
  // Data errors already carry "file:line:col: error:"; print them as compilers do.
  std::size_t start = 0;
  while (start < message.size()) {
    std::size_t end = message.find('\n', start);
    std::string line = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.find(": error: ") != std::string::npos) std::cerr << line << "\n";
    else std::cerr << "gpuplan: error: " << line << "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"gpuplan: plan AI compute (devices, parallel layout, time, memory, power and cost)", "gpuplan"};
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  Globals g;
  auto add_globals = [&](CLI::App* sub) {
    sub->add_option("--format", g.format, "Output format: table, json, csv or markdown")->capture_default_str();
    sub->add_option("--catalog", g.catalogs, "Extra catalog file or directory (repeatable; overrides by id)");
  };
  std::function<int()> action;

  // ---- catalog
  auto* catalog = app.add_subcommand("catalog", "List, show and check the hardware and model catalogs");
  catalog->require_subcommand(1);
  CatalogListOptions list_opts;
  auto* list = catalog->add_subcommand("list", "List the records of one kind");
  list->add_option("kind", list_opts.kind,
                   "accelerators, interconnects, models, prices, servers, sites or storage")->required();
  add_globals(list);
  list->callback([&] { action = [&] { print(run_catalog_list(load_catalog(g), list_opts), g); return 0; }; });

  CatalogShowOptions show_opts;
  auto* show = catalog->add_subcommand("show", "Show one record with every field and its source");
  show->add_option("id", show_opts.id, "Record id, e.g. h100-sxm")->required();
  show->add_option("--kind", show_opts.kind, "Restrict the lookup to one kind");
  add_globals(show);
  show->callback([&] { action = [&] { print(run_catalog_show(load_catalog(g), show_opts), g); return 0; }; });

  std::vector<std::string> check_files;
  auto* check = catalog->add_subcommand("check", "Validate catalog files (exit 65 when invalid)");
  check->add_option("files", check_files, "TOML files or directories")->required();
  add_globals(check);
  check->callback([&] {
    action = [&] {
      bool ok = true;
      Document doc = run_catalog_check(check_files, ok);
      for (const auto& l : doc.lines) std::cerr << l << "\n";
      doc.lines.clear();
      print(doc, g);
      return ok ? 0 : static_cast<int>(Exit::data);
    };
  });

  auto* paths = catalog->add_subcommand("paths", "Where catalogs are read from, lowest priority first");
  add_globals(paths);
  paths->callback([&] { action = [&] { print(run_catalog_paths(g.catalogs), g); return 0; }; });

  // ---- memory, train, search: the same settings as plan files, through apply_setting
  Scenario scenario;
  RunOptions run_opts;
  std::vector<std::pair<std::string, std::string>> settings;
  auto add_settings = [&](CLI::App* sub, bool training) {
    struct Flag { const char* name; const char* help; };
    static const Flag flags[] = {
        {"model", "Model id from the catalog (gpuplan catalog list models)"},
        {"params", "Parameter count (e.g. 70B): synthesises a Llama-like dense model"},
        {"layers", "Override the model's layer count"}, {"hidden", "Override the hidden width"},
        {"heads", "Override the attention heads"}, {"kv-heads", "Override the key/value heads"},
        {"ffn", "Override the MLP width"}, {"vocab", "Override the vocabulary"},
        {"gpu", "Accelerator id (default h100-sxm)"}, {"gpus", "Number of devices"},
        {"tp", "Tensor-parallel degree"}, {"pp", "Pipeline-parallel degree"}, {"dp", "Data-parallel degree"},
        {"cp", "Context-parallel degree"}, {"ep", "Expert-parallel degree"}, {"zero", "ZeRO stage 0-3"},
        {"recompute", "none, selective or full"}, {"micro-batch", "Sequences per micro-batch"},
        {"global-batch", "Sequences per step"}, {"interleave", "Virtual pipeline stages per device"},
        {"sequence-parallel", "true or false"}, {"seq-len", "Sequence length in tokens"},
        {"precision", "bf16, fp16, fp8, tf32 or fp32"}, {"optimizer", "adam, adam8bit or sgd"},
        {"grad-dtype", "fp32 (Megatron) or bf16/fp16"}, {"reserve", "Framework reserve per device (default 1GiB)"},
        {"tokens", "Training tokens (default 20 per parameter)"}, {"weeks", "Deadline in weeks"},
        {"days", "Deadline in days"}, {"goodput", "Share of wall-clock doing useful steps (default 0.9)"},
        {"mode", "memory: train or infer"}, {"quant", "Inference weights: bf16, fp8, int8, int4, q4_k_m, ..."},
        {"context", "Inference context in tokens"}, {"batch", "Inference sequences"}};
    for (const auto& f : flags) {
      std::string name = f.name;
      if (!training && (name == "tokens" || name == "weeks" || name == "days" || name == "goodput")) continue;
      sub->add_option_function<std::string>("--" + name,
                                            [&settings, name](const std::string& v) { settings.emplace_back(name, v); },
                                            f.help);
    }
    sub->add_flag("--explain", run_opts.explain, "Show each term with its formula and assumptions");
    add_globals(sub);
  };
  auto apply_all = [&] {
    for (const auto& [k, v] : settings) apply_setting(scenario, k, v);
  };
  auto* memory = app.add_subcommand("memory", "Memory per device for a model and layout, or the fewest devices");
  add_settings(memory, false);
  memory->add_flag("--min-gpus", run_opts.min_gpus, "Find the fewest devices (and a layout) that fit");
  memory->callback([&] { action = [&] { apply_all(); print(run_memory(load_catalog(g), scenario, run_opts), g); return 0; }; });
  auto* train = app.add_subcommand("train", "Fastest layout, step time and time to train");
  add_settings(train, true);
  train->callback([&] { action = [&] { apply_all(); print(run_train(load_catalog(g), scenario, run_opts), g); return 0; }; });
  auto* search = app.add_subcommand("search", "Rank every layout on --gpus devices");
  add_settings(search, true);
  search->add_option("--top", run_opts.top, "How many layouts to list (default 10)")->check(CLI::Range(1, 10000));
  search->add_flag("--stats", run_opts.stats, "Report layouts evaluated and the evaluation rate");
  search->callback([&] { action = [&] { apply_all(); print(run_search(load_catalog(g), scenario, run_opts), g); return 0; }; });

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      std::cout << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      std::cout << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion&) {
      std::cout << version_text << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      // CLI11's own codes are 100+; every parse problem is a usage error (2).
      std::string msg = e.what();
      if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
      print_error(msg + " (see 'gpuplan --help')");
      return static_cast<int>(Exit::usage);
    }
    parse_format(g.format);  // reject a bad --format before doing any work
    return action ? action() : 0;
  } catch (const Error& e) {
    print_error(e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return static_cast<int>(Exit::software);
  }
}

}  // namespace gpuplan
