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
#include "gpuplan/output.hpp"
#include "gpuplan/plan/plan.hpp"
#include "gpuplan/plan/report.hpp"

namespace gpuplan {
namespace {


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
  app.set_version_flag("--version", version_string());
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
  // Groups: m model, g devices, l layout and training precision, t training run, b the bill
  // (site, power, prices, storage), i inference. Each command takes the groups it uses.
  auto add_settings = [&](CLI::App* sub, std::string_view groups) {
    struct Flag { const char* groups; const char* name; const char* help; };
    static const Flag flags[] = {
        {"m", "model", "Model id from the catalog (gpuplan catalog list models)"},
        {"m", "params", "Parameter count (e.g. 70B): synthesises a Llama-like dense model"},
        {"m", "layers", "Override the model's layer count"}, {"m", "hidden", "Override the hidden width"},
        {"m", "heads", "Override the attention heads"}, {"m", "kv-heads", "Override the key/value heads"},
        {"m", "ffn", "Override the MLP width"}, {"m", "vocab", "Override the vocabulary"},
        {"g", "gpu", "Accelerator id (default h100-sxm)"}, {"g", "gpus", "Number of devices"},
        {"li", "tp", "Tensor-parallel degree"}, {"l", "pp", "Pipeline-parallel degree"}, {"l", "dp", "Data-parallel degree"},
        {"l", "cp", "Context-parallel degree"}, {"l", "ep", "Expert-parallel degree"}, {"l", "zero", "ZeRO stage 0-3"},
        {"l", "recompute", "none, selective or full"}, {"l", "micro-batch", "Sequences per micro-batch"},
        {"l", "global-batch", "Sequences per step"}, {"l", "interleave", "Virtual pipeline stages per device"},
        {"l", "sequence-parallel", "true or false"}, {"l", "seq-len", "Sequence length in tokens"},
        {"l", "precision", "bf16, fp16, fp8, tf32 or fp32"}, {"l", "optimizer", "adam, adam8bit or sgd"},
        {"l", "grad-dtype", "fp32 (Megatron) or bf16/fp16"},
        {"l", "tp-overlap", "Share of tensor-parallel comm hidden behind GEMMs (default 0; NeMo userbuffers ~1)"},
        {"l", "ep-overlap", "Share of expert all-to-all hidden behind compute (default 0; DeepSeek DualPipe ~1)"}, {"l", "reserve", "Framework reserve per device (default 1GiB)"},
        {"t", "tokens", "Training tokens (default 20 per parameter)"}, {"t", "weeks", "Deadline in weeks"},
        {"t", "days", "Deadline in days"}, {"t", "goodput", "Share of wall-clock doing useful steps (default 0.9)"},
        {"i", "mode", "memory: train or infer"}, {"i", "quant", "Inference weights: bf16, fp8, int8, int4, q4_k_m, ..."},
        {"i", "context", "Inference context in tokens"}, {"i", "batch", "Inference sequences"},
        {"s", "runtime", "llama.cpp, ollama or vllm (default: llama.cpp for GGUF, Apple and CPU)"},
        {"s", "kv-dtype", "KV cache type: fp16, bf16, fp8, q8_0 or q4_0 (default fp16)"},
        {"s", "prompt-tokens", "Prompt tokens per request (default 1000)"},
        {"s", "output-tokens", "Output tokens per request (default 300)"},
        {"s", "rate", "Requests per second to serve (needs --ttft and/or --tpot)"},
        {"s", "users", "Concurrent users (with --think-time; default targets MLPerf's 2 s / 200 ms)"},
        {"s", "think-time", "Time a user takes between replies (default 60s)"},
        {"s", "ttft", "Time-to-first-token target, e.g. 1s"}, {"s", "tpot", "Time-per-output-token target, e.g. 50ms"},
        {"s", "strict", "Context beyond the model's maximum is an error, not a warning"},
        {"s", "host", "Host CPU id for offloaded layers (default cpu-desktop for GDDR cards, cpu-server otherwise)"},
        {"lts", "calibration", "Calibration file from 'gpuplan probe' (default: $XDG_CONFIG_HOME/gpuplan/calibration/GPU.toml when present)"},
        {"b", "site", "Site id: PUE, electricity price, grid carbon, rack budget (default us-average)"},
        {"b", "pue", "Override the site's PUE (1 to 3)"},
        {"b", "power-fraction", "Average draw as a share of node nameplate (default 0.76)"},
        {"b", "buy", "Owned cost is the headline"}, {"b", "years", "Amortisation life (default 4)"},
        {"b", "utilisation", "Share of an owned cluster's life doing paid work (default 1)"},
        {"b", "cloud", "Cloud provider for the price (aws, gcp, azure, coreweave, lambda, ...)"},
        {"b", "committed", "Use a committed (1y, 3y or capacity-block) cloud price"},
        {"b", "price", "Cloud price per device-hour, e.g. '$2/h' (overrides the catalog)"},
        {"b", "capex", "Purchase price per device, e.g. '$30000' (overrides the catalog)"},
        {"b", "staff", "Staff cost per year of an owned cluster"},
        {"b", "facility-cost", "Facility cost, USD per kW of IT per month"},
        {"b", "storage", "Storage system id (gpuplan catalog list storage)"},
        {"b", "storage-units", "Fix the number of storage units (default: what the run needs)"},
        {"b", "checkpoint-every", "Checkpoint interval, e.g. 1h: its write time is taken from goodput"},
        {"b", "epochs", "Passes over the dataset (default 1)"},
        {"b", "bytes-per-token", "Raw text bytes per token (default 4)"},
        {"b", "oversubscription", "Fat-tree oversubscription (default 1, non-blocking)"},
        {"lts", "efficiency-scale", "Multiply GEMM and memory efficiency (sensitivity; default 1)"},
        {"b", "price-scale", "Multiply every price (sensitivity; default 1)"},
        {"b", "pue-scale", "Multiply the PUE, never below 1 (sensitivity; default 1)"},
        {"t", "tokens-scale", "Multiply the token budget (sensitivity; default 1)"},
        {"b", "power-scale", "Multiply the average power draw (sensitivity; default 1)"}};
    for (const auto& f : flags) {
      if (std::string_view(f.groups).find_first_of(groups) == std::string_view::npos) continue;
      std::string name = f.name;
      if (name == "buy" || name == "committed" || name == "strict") {  // switches on the command line, booleans in plan files
        sub->add_flag_callback("--" + name, [&settings, name] { settings.emplace_back(name, "true"); }, f.help);
        continue;
      }
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
  add_settings(memory, "mgli");
  memory->add_flag("--min-gpus", run_opts.min_gpus, "Find the fewest devices (and a layout) that fit");
  memory->callback([&] { action = [&] { apply_all(); print(run_memory(load_catalog(g), scenario, run_opts), g); return 0; }; });
  auto* train = app.add_subcommand("train", "Fastest layout, step time and time to train");
  add_settings(train, "mgltb");
  train->callback([&] { action = [&] { apply_all(); print(run_train(load_catalog(g), scenario, run_opts), g); return 0; }; });
  auto* search = app.add_subcommand("search", "Rank every layout on --gpus devices");
  add_settings(search, "mglt");
  search->add_option("--top", run_opts.top, "How many layouts to list (default 10)")->check(CLI::Range(1, 10000));
  search->add_flag("--stats", run_opts.stats, "Report layouts evaluated and the evaluation rate");
  search->callback([&] { action = [&] { apply_all(); print(run_search(load_catalog(g), scenario, run_opts), g); return 0; }; });

  auto* infer = app.add_subcommand("infer", "Serve a model or run it locally: fit, offload, speed, devices for a load, cost per token");
  add_settings(infer, "mgisb");
  infer->callback([&] { action = [&] { apply_all(); print(run_infer(load_catalog(g), scenario, run_opts), g); return 0; }; });
  ProbeOptionsCli probe_opts;
  std::string probe_out, probe_compare;
  bool probe_force = false;
  auto* probe = app.add_subcommand("probe", "Measure this machine (CUDA GPU, else CPU) and write a calibration file");
  probe->add_option("--device", probe_opts.device, "auto (CUDA if a GPU is there, else the CPU), cpu or cuda")->capture_default_str();
  probe->add_flag("--quick", probe_opts.quick, "Fewer sizes and samples: under a minute");
  probe->add_option("-o,--output", probe_out, "Write the calibration file here (atomically) instead of stdout");
  probe->add_flag("--force", probe_force, "Replace an existing output file");
  probe->add_option("--as", probe_opts.as, "Catalog accelerator id the file calibrates (default: from the device name; cpu-desktop for a CPU)");
  probe->add_option("--compare", probe_compare, "Compare a calibration file with the catalog's figures instead of measuring");
  add_globals(probe);
  probe->callback([&] {
    action = [&] {
      const Catalog cat = load_catalog(g);
      if (!probe_compare.empty()) {
        print(run_probe_compare(cat, probe_compare), g);
        return 0;
      }
      if (!probe_out.empty()) check_output(probe_out, probe_force);  // before measuring for a minute
      const std::string toml = run_probe(cat, probe_opts);
      if (probe_out.empty()) std::fwrite(toml.data(), 1, toml.size(), stdout);
      else write_file_atomic(probe_out, toml, probe_force);
      return 0;
    };
  });
  std::string plan_file, plan_out, plan_get_path;
  bool plan_force = false, plan_init = false;
  auto* plan = app.add_subcommand("plan", "Evaluate a TOML plan file: scenarios, sweeps, constraints, sensitivity, reports");
  plan->add_option("file", plan_file, "The plan file (gpuplan plan --init writes a template)");
  plan->add_flag("--init", plan_init, "Print a commented template plan");
  plan->add_option("-o,--output", plan_out, "Write the report here (atomically) instead of stdout");
  plan->add_flag("--force", plan_force, "Replace an existing output file");
  plan->add_option("--get", plan_get_path, "Print one value, e.g. scenarios.h100-owned.cost_usd.owned_tco");
  plan->add_option("--format", g.format, "Output format: table, json, csv, markdown or html")->capture_default_str();
  plan->add_option("--catalog", g.catalogs, "Extra catalog file or directory (repeatable; overrides by id)");
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
        const PlanRun run = run_plan(load_catalog(g), plan_file);
        rc = run.all_pass ? 0 : static_cast<int>(Exit::constraints);
        if (!plan_get_path.empty()) {
          const Value* v = plan_get(run.report, plan_get_path);
          if (!v) fail(Exit::usage, "--get '" + plan_get_path + "' matches nothing in the report (try --format json to see the keys)");
          out = (v->type() == Value::Type::object || v->type() == Value::Type::array) ? to_json(*v) + "\n" : scalar_text(*v) + "\n";
        } else {
          out = render_plan(run, g.format);
        }
      }
      if (plan_out.empty()) std::fwrite(out.data(), 1, out.size(), stdout);
      else write_file_atomic(plan_out, out, plan_force);
      return rc;
    };
  });
  auto* power = app.add_subcommand("power", "Size a facility: nodes, racks, fabric, IT and facility power, energy and cost per year");
  add_settings(power, "gb");
  power->callback([&] { action = [&] { apply_all(); print(run_power(load_catalog(g), scenario, run_opts), g); return 0; }; });

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
      std::cout << version_string() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      // CLI11's own codes are 100+; every parse problem is a usage error (2).
      std::string msg = e.what();
      if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
      print_error(msg + " (see 'gpuplan --help')");
      return static_cast<int>(Exit::usage);
    }
    if (g.format != "html" || !plan->parsed()) parse_format(g.format);  // reject a bad --format before doing any work
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
