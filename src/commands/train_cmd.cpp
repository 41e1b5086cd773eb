// SPDX-License-Identifier: Apache-2.0
// `gpuplan train` and `gpuplan search`: the fastest layout, step time and time to train.
#include <chrono>
#include <cmath>
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/report/answer_fields.hpp"
#include "gpuplan/analysis/memory.hpp"
#include "gpuplan/analysis/train.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {

Value candidate_json(const Candidate& c, const StepModel& sm, int gpus) {
  return fields_object(ranked_layout_fields(), ranked(1, c, sm, gpus));
}

StepModel step_model(const Job& j) { return StepModel{j.model, j.params, j.device, j.step}; }

Table step_table(const Candidate& c, const Job& j, int gpus) {
  Table t;
  const Layout& l = c.layout;
  t.title = fmt::format("{} on {} x {}: tp {} pp {} dp {} cp {} ep {}, ZeRO-{}, recompute {}, micro-batch {}, global "
                        "batch {}, interleave {}, sequence parallel {}{}",
                        j.model.id, gpus, j.device.id, l.tp, l.pp, l.dp, l.cp, l.ep, l.zero, recompute_text(l),
                        l.micro_batch, l.global_batch, l.interleave, l.sequence_parallel ? "on" : "off",
                        l.offload ? ", offload " + offload_name(l.offload) : std::string());
  t.headers = {"step term", "time", "share"};
  t.right = {false, true, true};
  for (const auto& term : step_terms()) {
    const double v = term.of(c.time);
    t.add_row({std::string(term.label), format_duration(v), format_sig(100 * v / c.time.total.value()) + "%"});
  }
  t.add_row({"step", format_duration(c.time.total.value()), "100%"});
  return t;
}

}  // namespace

Document run_search(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  Job j = resolve(s, catalog);
  if (s.gpus <= 0) fail(Exit::usage, "search needs --gpus N");
  StepModel sm = step_model(j);
  const auto start = std::chrono::steady_clock::now();  // the command times the search, not the analysis
  SearchResult r = search_or_fail(sm, s.layout, s.gpus, s.target_batch_tokens(s.gpus), o.top);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Document doc;
  Value v = Value::object();
  v.set("model", j.model.id);
  v.set("gpu", j.device.id);
  v.set("gpus", s.gpus);
  v.set("evaluated", r.evaluated);
  v.set("valid", r.fitting);
  v.set("calibration", j.calibration ? Value(j.calibration_path) : Value());
  if (o.stats) {
    v.set("search_s", r.seconds);
    v.set("layouts_per_s", r.seconds > 0 ? static_cast<double>(r.evaluated) / r.seconds : 0);
  }
  Value results = Value::array();
  for (const auto& c : r.top) results.push(candidate_json(c, sm, s.gpus));
  v.set("results", results);
  v.set("warnings", warnings_json(j.warnings));
  doc.data = v;
  doc.warnings = j.warnings;
  const std::string title = fmt::format("{} on {} x {}: best {} of {} fitting layouts ({} evaluated)", j.model.id,
                                        s.gpus, j.device.id, r.top.size(), r.fitting, r.evaluated);
  std::vector<RankedLayout> rows;
  for (const auto& c : r.top) rows.push_back(ranked(static_cast<int>(rows.size()) + 1, c, sm, s.gpus));
  Table t = ranked_table(rows);
  t.title = title;
  doc.csv = ranked_csv(rows);
  doc.tables.push_back(t);
  if (o.stats)
    doc.lines.push_back(fmt::format("stats: {} layouts evaluated, {} fit, in {:.3f} s ({} layouts/s)", r.evaluated,
                                    r.fitting, r.seconds, format_si(static_cast<double>(r.evaluated) / std::max(r.seconds, 1e-9), "")));
  return doc;
}

// The question a scenario asks of plan_training.
TrainQuestion train_question(const Job& j, const Scenario& s) {
  TrainQuestion q;
  q.model = step_model(j);
  q.layout = s.layout;
  q.gpus = s.gpus;
  q.deadline = seconds(s.deadline_s);
  // Deadline searches grow the cluster by scale-up domains (by nodes for rack-scale domains).
  q.unit = std::max(1, j.device.scale_up_domain > 64 ? j.device.devices_per_node : j.device.scale_up_domain);
  const TrainSettings& ts = j.step.train;
  if (ts.finetune != Finetune::none && s.tokens <= 0 && s.dataset_tokens <= 0)
    fail(Exit::usage, "fine-tuning needs its data: give --dataset-tokens N (and --epochs) or --tokens N");
  // A count and a deadline without tokens ask the inverse: what the count trains by then.
  q.tokens_from_deadline = s.tokens <= 0 && s.dataset_tokens <= 0 && s.gpus > 0 && s.deadline_s > 0;
  const double tokens = s.tokens > 0 ? s.tokens : s.dataset_tokens > 0 ? s.dataset_tokens * s.epochs : 20 * j.params.total;
  q.tokens = q.tokens_from_deadline ? 0 : tokens * s.tokens_scale;
  q.goodput = s.goodput;
  q.goodput_given = s.has("goodput");
  if (s.restart_s >= 0) q.restart = seconds(s.restart_s);
  q.async_checkpoint = s.async_checkpoint;
  q.batch_tokens = ts.finetune == Finetune::none ? s.batch_tokens : finetune_batch_tokens;
  q.batch_tokens_per_device = s.batch_tokens_per_device;
  StorageInput& si = q.storage;
  si.epochs = s.epochs;
  si.raw_bytes_per_token = s.bytes_per_token;
  si.token_bytes = j.model.vocab <= 65536 ? 2 : 4;
  // A checkpoint holds what trains, with its optimizer state: every weight, or the adapters alone.
  const double trained = adapters_only(ts) ? lora_params(j.model, j.model.layers, 1, ts.lora_rank) : j.params.total;
  si.checkpoint = bytes(trained * (ts.weight_bytes + optimizer_bytes_per_param(ts.optimizer)));
  si.checkpoint_every = seconds(s.checkpoint_every_s);
  si.system = j.facility.storage ? &*j.facility.storage : nullptr;
  si.units = s.storage_units;
  return q;
}

TrainRun train_run(const Catalog& catalog, const Scenario& s, const TrainAnswer* reuse) {
  if (s.gpus <= 0 && s.deadline_s <= 0) fail(Exit::usage, "train needs --gpus N or a deadline (--weeks or --days)");
  TrainRun r;
  r.job = resolve(s, catalog);
  r.question = train_question(r.job, s);
  r.answer = reuse ? *reuse : plan_training(r.question);
  if (r.answer.best.layout.offload) r.job.assumptions.push_back(r.job.host_note);
  r.question.storage.system = nullptr;  // it pointed into r.job, which moves with the return
  const Facility& fac = r.job.facility;
  r.settings = s.bill;
  r.cluster = cluster_of(fac, s.bill, r.answer.gpus, r.answer.storage.units);
  r.bill = facility_bill(fac, s.bill, r.cluster, RunFacts{r.answer.gpus, r.answer.wall, r.answer.comm_fraction,
                                                              r.answer.storage.capacity_needed.value()});
  for (const auto& w : {r.job.warnings, fac.all_warnings(), r.answer.warnings, r.cluster.warnings})
    r.warnings.insert(r.warnings.end(), w.begin(), w.end());
  // The default rates are Megatron's, whose element-wise kernels cost most at small widths; say
  // what a compiled trainer would do with the same layout where the device's GEMM depth is measured
  // and at the widths where compiled trainers were checked (nanochat's 1,280 and 2,048).
  const StepModel& sm = r.question.model;
  if (!s.has("framework") && !s.has("fused-kernels") && !sm.settings.train.fused_kernels &&
      sm.settings.eff.gemm_half_fused > 0 && r.answer.gpus > 0 && sm.model.hidden <= 2048) {
    StepModel fused = sm;
    fused.settings.train.fused_kernels = true;
    const double now = r.answer.best.time.total.value(), then = step_time(fused, r.answer.best.layout).total.value();
    if (then > 0 && now / then >= 1.15)
      r.warnings.push_back(fmt::format("these are Megatron's rates; a trainer that fuses its element-wise work (torch.compile, "
                                       "llm.c: --framework compiled) runs this layout {:.2g}x as fast on {}",
                                       now / then, r.job.device.id));
  }
  return r;
}

ScenarioFigures figures_of(const TrainRun& run) {
  ScenarioFigures f;
  f.cloud_usd = run.bill.cost.cloud;
  f.owned_usd = run.bill.cost.owned_tco;
  set_cluster_figures(f, run.cluster);
  f.gpus = run.answer.gpus;
  f.wall_clock_s = run.answer.wall.value();
  return f;
}

Document run_train(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  return train_document(train_run(catalog, s), s, o);
}

Document train_document(const TrainRun& run, const Scenario& s, const RunOptions& o) {
  const Job& j = run.job;
  const TrainQuestion& q = run.question;
  const TrainAnswer& ans = run.answer;
  const Candidate& best = ans.best;
  const int gpus = ans.gpus;
  const StorageResult& sr = ans.storage;
  const StorageInput& si = q.storage;
  const Facility& fac = j.facility;
  const BillView bill{fac, run.settings, run.cluster, run.bill};
  const std::vector<std::string>& warnings = run.warnings;

  Document doc;
  Value v = candidate_json(best, q.model, gpus);
  Value out = Value::object();
  out.set("model", j.model.id);
  out.set("gpu", j.device.id);
  for (const auto& [k, val] : v.members()) out.set(k, val);
  out.set("tokens", ans.tokens);
  const bool default_tokens = s.tokens <= 0 && s.dataset_tokens <= 0 && !q.tokens_from_deadline;
  out.set("tokens_default", default_tokens);
  out.set("seq_len", j.step.train.seq_len);
  out.set("mfu_convention", mfu_convention(j.step.train));
  out.set("attention", !j.step.train.flash_attention ? "eager" : j.step.train.flash2 ? "flash2" : "flash");
  // Whose GEMM rates these are: fused element-wise kernels (compiled trainers, where the device's
  // own GEMM depth is measured) or Megatron's.
  out.set("fused_kernels", fused_rates(j.step));
  out.set("precision", to_string(j.step.precision));
  out.set("low_precision_layers", !low_precision(j.step.precision) ? "none" : j.step.low_precision_mlp_only ? "mlp" : "all");
  out.set("high_precision_layers", low_precision(j.step.precision) ? j.step.high_precision_layers : 0);
  out.set("pipeline_schedule", to_string(j.step.train.schedule));
  out.set("goodput", ans.goodput);
  // How it was reached: derived from failures (its parts), or given.
  Value gp = Value::object();
  gp.set("origin", ans.reliability ? "derived" : "given");
  if (const auto& g = ans.reliability) {
    gp.set("mtbf_s", g->mtbf.value());
    gp.set("interruptions_per_hour", g->interruptions_per_hour);
    gp.set("checkpoint_interval_s", g->interval.value());
    gp.set("checkpoint_interval", g->optimal_interval ? "optimal (Young/Daly)" : "given");
    gp.set("checkpoint_share", g->checkpoint_share);
    gp.set("lost_work_share", g->lost_share);
    gp.set("restart_share", g->restart_share);
  }
  out.set("goodput_parts", gp);
  out.set("interruptions_expected",
          ans.reliability ? Value(ans.reliability->interruptions_per_hour * ans.wall.value() / 3600) : Value());
  out.set("wall_clock_s", ans.wall.value());
  out.set("wall_clock_days", ans.wall.value() / 86400);
  out.set("gpu_hours", ans.gpu_hours);
  if (s.deadline_s > 0) {
    out.set("deadline_s", s.deadline_s);
    out.set("meets_deadline", ans.meets_deadline);
    out.set("tokens_by_deadline", ans.tokens_by_deadline);
    out.set("gpus_for_deadline", ans.meets_deadline ? Value(gpus) : ans.gpus_for_deadline > 0 ? Value(ans.gpus_for_deadline) : Value());
  }
  if (s.start_day) {
    out.set("start_date", format_date(*s.start_day));
    out.set("end_date", format_date(*s.start_day + static_cast<long>(std::floor(ans.wall.value() / 86400))));
  }
  out.set("count_limit", ans.count_limit);
  out.set("finetune", to_string(j.step.train.finetune));
  out.set("evaluated", ans.evaluated);
  out.set("valid", ans.fitting);
  out.set("site", fac.site.id);
  out.set("power", fields_object(bill_power_fields(), bill));
  out.set("energy_mwh", run.bill.energy_mwh);
  out.set("co2_t", run.bill.co2_t);
  out.set("cost_usd", fields_object(bill_cost_fields(), bill));
  // The model-card convention (BLOOM, Llama 3): GPU-hours x board power, no host, no PUE.
  if (j.device.tdp.value() > 0) {
    const Joules e = run_energy(j.device.tdp * static_cast<double>(gpus), ans.wall);
    out.set("energy_gpu_tdp_mwh", to_kwh(e) / 1e3);
    out.set("co2_gpu_tdp_t", co2_tonnes(e, fac.site.gco2_per_kwh));
  } else {
    out.set("energy_gpu_tdp_mwh", Value());
    out.set("co2_gpu_tdp_t", Value());
  }
  Value sv = Value::object();
  sv.set("system", fac.storage ? Value(fac.storage->id) : Value());
  sv.set("dataset_bytes", sr.dataset_raw.value());
  sv.set("dataset_tokenized_bytes", sr.dataset_tokenized.value());
  sv.set("read_bytes_per_s", sr.read.value());
  sv.set("capacity_bytes", sr.capacity_needed.value());
  sv.set("units", fac.storage ? Value(sr.units) : Value());
  sv.set("units_bandwidth", fac.storage ? Value(sr.units_bandwidth) : Value());
  sv.set("units_capacity", fac.storage ? Value(sr.units_capacity) : Value());
  sv.set("checkpoint_bytes", si.checkpoint.value());
  sv.set("checkpoint_write_s", fac.storage ? Value(sr.checkpoint_write.value()) : Value());
  sv.set("checkpoint_overhead", sr.checkpoint_overhead);
  sv.set("idle_fraction", sr.idle_fraction);
  out.set("storage", sv);
  out.set("fabric", fields_object(bill_fabric_fields(), bill));
  std::vector<Assumption> assumptions = fac.assumptions;
  if (ans.reliability) {
    assumptions.push_back(Assumption{"interruptions per device-hour", failures_per_device_hour(), {}, "",
                                     "Llama 3 405B's 54-day snapshot: 419 unexpected interruptions on 16,384 H100s (Dubey et "
                                     "al. 2024, Table 5)"});
    assumptions.push_back(Assumption{"restart after an interruption", q.restart.value(), {}, "s",
                                     s.restart_s >= 0 ? "set: restart-time"
                                                      : "estimate: detection, rescheduling and start-up (no public figure "
                                                        "at scale), before the checkpoint is read back"});
    if (!fac.storage)
      assumptions.push_back(Assumption{"checkpoint bandwidth per device", llama3_storage_per_device, {}, "B/s",
                                       "estimate: no storage system given (--storage); the Llama 3 cluster's 2 TB/s "
                                       "sustained over its 16,384 GPUs"});
  } else {
    assumptions.push_back(Assumption{"goodput", s.goodput, {}, "", "set: goodput"});
  }
  assumptions.push_back(Assumption{"raw text per token", s.bytes_per_token, {}, "B",
                                   s.has("bytes-per-token") ? "set: bytes-per-token" : "default: ~4 characters per token (OpenAI tokenizer guide), estimate"});
  for (const auto& n : j.calibration_notes) assumptions.push_back(Assumption{"calibration", 0, n, "", j.calibration_path});
  out.set("calibration", j.calibration ? Value(j.calibration_path) : Value());
  out.set("assumptions", assumptions_json(assumptions));
  out.set("warnings", warnings_json(warnings));
  doc.data = out;
  doc.tables.push_back(step_table(best, j, gpus));
  Table sum;
  sum.headers = {"result", "value"};
  sum.right = {false, true};
  sum.add_row({"devices", std::to_string(gpus) + (ans.count_limit == "memory"     ? " (set by memory: fewer hold no layout)"
                                                   : ans.count_limit == "deadline" ? " (set by the deadline)"
                                                   : ans.count_limit == "unit"     ? " (one device is enough)"
                                                                                   : "")});
  sum.add_row({"tokens", format_si(ans.tokens, "") + (default_tokens          ? " (20 per parameter, Chinchilla)"
                                                      : q.tokens_from_deadline ? " (what the devices train by the deadline)"
                                                                               : "")});
  sum.add_row({"throughput", format_si(best.tokens_per_s, "tokens/s")});
  sum.add_row({"MFU (" + mfu_convention(j.step.train) + ")", format_sig(100 * ans.mfu) + "%"});
  sum.add_row({"HFU", format_sig(100 * ans.hfu) + "%"});
  sum.add_row({"memory per device", format_iec(best.memory.total().value()) + " of " + format_iec(j.device.usable_memory().value())});
  sum.add_row({"wall clock", format_duration(ans.wall.value()) + fmt::format(" ({:.1f} days, goodput {}%)", ans.wall.value() / 86400, format_sig(100 * ans.goodput))});
  if (s.start_day)
    sum.add_row({"dates", fmt::format("{} to {}", format_date(*s.start_day),
                                      format_date(*s.start_day + static_cast<long>(std::floor(ans.wall.value() / 86400))))});
  if (s.deadline_s > 0 && s.gpus > 0)
    sum.add_row({"deadline", fmt::format("{} {} ({} tokens fit in it)", ans.meets_deadline ? "met:" : "missed:",
                                         format_duration(s.deadline_s), format_si(ans.tokens_by_deadline, ""))});
  if (const auto& g = ans.reliability)
    sum.add_row({"interruptions", fmt::format("{} expected, one every {}; checkpoint every {}",
                                              format_sig(g->interruptions_per_hour * ans.wall.value() / 3600),
                                              format_duration(g->mtbf.value()), format_duration(g->interval.value()))});
  sum.add_row({"GPU-hours", format_si(ans.gpu_hours, "")});
  if (j.calibration) sum.add_row({"calibration", j.calibration_path});
  doc.tables.push_back(sum);
  Table bt = bill_table(bill);
  if (j.device.tdp.value() > 0)
    bt.add_row({"energy, GPUs at TDP only (model cards)",
                format_si(out.find("energy_gpu_tdp_mwh")->as_number() * 1e6, "Wh") + ", " +
                    format_tonnes(out.find("co2_gpu_tdp_t")->as_number()) + " CO2e"});
  bt.add_row({"dataset (raw / tokenised)", format_si(sr.dataset_raw.value(), "B") + " / " + format_si(sr.dataset_tokenized.value(), "B")});
  bt.add_row({"read rate to keep devices fed", format_si(sr.read.value(), "B/s")});
  std::string ckpt = format_si(si.checkpoint.value(), "B");
  if (fac.storage)
    ckpt += fmt::format(", written in {} to {} x {}", format_duration(sr.checkpoint_write.value()), sr.units, fac.storage->id);
  bt.add_row({"checkpoint", ckpt});
  if (s.checkpoint_every_s > 0)
    bt.add_row({"checkpoint overhead", fmt::format("{:.2f}% of wall clock (every {})", 100 * sr.checkpoint_overhead,
                                                   format_duration(s.checkpoint_every_s))});
  doc.tables.push_back(bt);
  doc.warnings = warnings;
  if (!ans.unmet.empty()) {
    doc.exit_code = static_cast<int>(Exit::no_answer);
    doc.failure = ans.unmet;
  }
  if (default_tokens) doc.lines.push_back("tokens default to 20 per parameter (Hoffmann et al. 2022, Chinchilla)");
  if (o.explain) {
    doc.lines.push_back(fmt::format("efficiency: GEMM up to {:.0f}% of peak, memory {:.0f}% of bandwidth ({})",
                                    100 * j.step.eff.gemm_max, 100 * j.step.eff.memory, j.step.eff.origin));
    if (fused_rates(j.step))
      doc.lines.push_back(fmt::format("fused kernels: a GEMM k deep runs at k / (k + {:.0f}) of the ceiling ({})",
                                      gemm_k_halves * j.step.eff.gemm_half_fused, j.step.eff.fused_origin));
    doc.lines.push_back("step = m x (forward + backward + recompute) + exposed TP/CP/EP/PP comm + bubble (p-1)/v "
                        "micro-batch slots + exposed data-parallel comm + optimizer");
    doc.lines.push_back("MFU counts " + mfu_convention(j.step.train) +
                        " FLOPs per token, N without the input embedding; HFU adds recomputed forward passes");
    if (const auto& g = ans.reliability)
      doc.lines.push_back(fmt::format(
          "goodput = 1 - checkpoint stalls c / (tau + c) ({:.2f}%) - work lost per interruption (tau + c) / 2M ({:.2f}%) - "
          "restarts and read-back (R + read) / M ({:.2f}%) = {:.2f}%, M = {} between interruptions, tau = {} ({})",
          100 * g->checkpoint_share, 100 * g->lost_share, 100 * g->restart_share, 100 * g->value,
          format_duration(g->mtbf.value()), format_duration(g->interval.value()),
          g->optimal_interval ? "Young/Daly: sqrt(2 c M) - c" : "given"));
    for (const auto& a : j.assumptions) doc.lines.push_back(a);
    for (const auto& a : assumptions)
      doc.lines.push_back(assumption_line(a));
  }
  return doc;
}

}  // namespace gpuplan
