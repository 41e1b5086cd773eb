// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every input of one question in one plain struct. A command-line flag and a plan-file key
// are the same setting with the same name (--tp 8 is tp = 8); both are declared once in the
// settings table (settings.hpp) and applied by its apply_setting.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/cost.hpp"
#include "gpuplan/analysis/facility.hpp"
#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/analysis/power.hpp"
#include "gpuplan/analysis/step.hpp"
#include "gpuplan/analysis/storage.hpp"
#include "gpuplan/calibration/calibration.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/records.hpp"
#include "gpuplan/settings.hpp"

namespace gpuplan {

class Catalog;

struct Scenario {
  std::string model;          // catalog id
  double params = 0;          // --params: synthesise a dense model
  std::optional<int> layers, hidden, heads, kv_heads, ffn, vocab;  // architecture overrides
  std::string gpu = "h100-sxm";
  int gpus = 0;               // fixed device count (train, search)
  std::optional<double> power_cap;  // W per device; unset: TDP or the catalog's default limit
  LayoutConstraints layout;
  int seq_len = 0;            // 0: the model's default (min(max_context, 4096)) for training
  std::string precision = "bf16";
  std::string optimizer = "adam";
  int grad_bytes = 4;
  std::optional<double> reserve_bytes;
  double tokens = 0;          // training tokens; 0: 20 per parameter (Chinchilla)
  double deadline_s = 0;      // --weeks / --days
  std::optional<double> gpu_memory;  // --gpu-memory: the device's capacity for a variant
  std::optional<long> start_day;  // --start: the run's first day, as days since 1970-01-01
  double goodput = 0.9;       // share of wall-clock doing useful steps (Llama 3: >90%)
  // The step model's own knobs (overlaps, attention kernels), set as given: a setting of the
  // step model touches the settings table and the analysis alone. resolve() fills the rest.
  StepSettings step;
  double batch_tokens = 4.0 * 1024 * 1024;  // target global batch when none is given, at least...
  double batch_tokens_per_device = 1024;    // ...this many tokens per device (target_batch_tokens)
  // The batch the search aims at: 4M tokens (GPT-3's 3.2M, Llama 2's 4M), or 1,024 tokens per
  // device on large clusters (Llama 3 405B ramped to 16M tokens on 16,384 H100).
  double target_batch_tokens(int devices) const { return std::max(batch_tokens, batch_tokens_per_device * devices); }
  std::string mode = "train";  // memory: train or infer
  std::string quant = "bf16";
  int context = 0;            // inference context (tokens)
  int batch = 1;              // inference sequences
  int ubatch = 512;           // llama.cpp's micro-batch (-ub)
  // Serving and local inference.
  std::string runtime;        // empty: llama.cpp for GGUF, Apple and CPU; else vllm
  std::string kv_dtype = "fp16";
  long prompt_tokens = 0, output_tokens = 0;  // 0: defaults
  double rate = 0;            // requests per second
  long users = 0;
  std::string draft;          // speculative decoding's draft model id; empty: a drafting head
  int spec_tokens = 0;        // tokens the draft proposes a step; 0: no speculation
  double spec_accept = -1;    // chance each proposal is accepted; negative: not given
  double think_s = -1;        // seconds between a user's requests, after a reply; negative: not given
  double requests_per_day = 0;  // requests each user makes a day (a workload); 0: not given
  std::string apis;             // infer: API price ids to compare, comma-separated; empty: those offering the model
  double ttft_s = 0, tpot_s = 0;  // latency targets (0: none)
  int top = 0;                    // infer: list this many deployments tried (0: none)
  bool quants = false;            // infer: a table of every format of the runtime's ladder
  bool dp_attention = false;      // infer: expert parallelism with data-parallel attention
  double length_low = 1;          // infer: request lengths uniform from this share of nominal to it
  std::string trace;              // infer: a CSV of requests to replay; empty: none
  bool frontier = false;          // infer: the throughput-interactivity curve over deployments and concurrency
  int disagg = 0;                 // infer: disaggregated prefill and decode (1 force, -1 forbid, 0 compare)
  long prefix_tokens = 0;         // infer: a prompt prefix shared across requests (prefix caching)
  double prefix_hit = -1;         // infer: the chance a request finds that prefix cached; negative: not given
  long prefix_count = 1;          // infer: distinct prefixes requests draw on (1: one shared)
  std::string kv_offload;         // infer: KV offload tier, "host" or a drive (nvme, a storage id); empty: none
  std::optional<double> kv_offload_bytes;  // infer: the tier's size per device; unset: the tier's default
  std::optional<double> mem_fraction;  // a serving runtime's memory share; unset: its default
  int max_seqs = 0;                    // sequences a replica runs at once; 0: the runtime's default
  std::string serving_scenario;   // offline, server or interactive (MLPerf's); empty: as the flags say
  bool strict = false;
  std::string host;           // host CPU for offloaded layers; empty: by device
  std::string calibration;    // calibration file; empty: the default location when present
  // Multipliers for sensitivity studies (plan files vary them): GEMM and memory efficiency,
  // every price, PUE, the token budget, the average power draw.
  double efficiency_scale = 1, price_scale = 1, pue_scale = 1, tokens_scale = 1, power_scale = 1;
  // The bill: site, power, prices, storage.
  std::string site = "us-average";
  std::optional<double> pue;
  double power_fraction = default_power_fraction;
  // The bill's own knobs (buy, years, utilisation, staff, oversubscription), set as given: like
  // `step`, a setting of the bill touches the settings table and the analysis alone.
  FacilitySettings bill;
  std::string cloud;          // provider; empty: the cheapest quote
  bool committed = false;
  std::optional<double> price;  // USD per device-second (--price '$2/h')
  std::optional<double> capex;  // USD per device (--capex '$40000')
  std::optional<double> facility_cost;  // USD per kW-month
  std::string storage;        // storage system id; empty: needs only
  long storage_units = 0;
  double checkpoint_every_s = 0;
  double restart_s = -1;          // train: detection, rescheduling and start-up after an interruption; negative: default
  bool async_checkpoint = false;  // train: checkpoints stall only for the copy to host memory
  double epochs = 1;
  double dataset_tokens = 0;  // fine-tuning: tokens = dataset_tokens x epochs (0: --tokens or the default)
  double bytes_per_token = default_raw_bytes_per_token;
  std::string scale_out;            // scale-out fabric id; empty: the accelerator's
  std::optional<double> rack_power;  // W per rack; unset: the site's
  int rack_units = 0;                // U per rack; 0: the site's
  std::vector<std::string> notes;  // how settings were interpreted, for --explain
  std::vector<std::string> given;  // settings applied, in order (origins of assumptions)
  bool has(const std::string& name) const;
};

struct Job {
  ModelArch model;
  ParamCounts params;
  Device device;
  StepSettings step;
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings;  // about the inputs (a sequence beyond the model's context)
  std::string host_note;              // the host that takes offloaded training state (empty: none)
  Facility facility;
  std::optional<Calibration> calibration;
  std::string calibration_path;
  std::vector<std::string> calibration_notes;
};

// The accelerator of a question, under --power-cap when it is given.
Device resolve_scenario_device(const Scenario& s, const Catalog& catalog);
// Resolves ids through the catalog and builds the model and settings.
Job resolve(const Scenario& s, const Catalog& catalog);
// Loads --calibration (or the default file for the accelerator, when it exists), refuses one
// measured on another device, and applies it to the job's efficiencies.
void resolve_calibration(const Scenario& s, Job& j);
// $XDG_CONFIG_HOME/gpuplan/calibration/ID.toml (or ~/.config/...).
std::string default_calibration_path(const std::string& accelerator);

// Inference settings of a job: runtime, quantisation, compute type, KV type, context.
InferSettings resolve_infer(const Scenario& s, const Job& j);
// The catalog's server record for an accelerator id, if it has one.
const Record* server_record(const Catalog& catalog, const std::string& accelerator);
// The host whose memory takes offloaded layers: --host, else the device itself (CPU, Apple
// unified memory), a desktop CPU for GDDR cards, a server CPU otherwise (with the memory of the
// accelerator's server record where it states one).
Device resolve_host(const Scenario& s, const Catalog& catalog, const Device& d);
// Prefix caching's KV offload tier (--kv-offload, --kv-offload-size) into the settings: its size
// per device and read bandwidth (host memory over the device's host link, shared by a node's
// devices; a local drive, one a device), and the assumption stating them (none without a tier).
// Throws Error(usage) for a tier that does not exist or cannot be used.
std::optional<Assumption> resolve_kv_offload(const Scenario& s, const Catalog& catalog, const Device& d, const Device& host,
                                             InferSettings& is);

// The facility part alone (gpuplan power needs no model).
Facility resolve_facility(const Scenario& s, const Catalog& catalog, const Device& device);

}  // namespace gpuplan
