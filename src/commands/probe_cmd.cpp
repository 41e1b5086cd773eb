// SPDX-License-Identifier: Apache-2.0
// `gpuplan probe`: measure this machine (the CUDA probe executable when a GPU is there, the
// built-in CPU probe otherwise), write a calibration file, or compare one with the catalog.
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuplan/records.hpp"
#include "gpuplan/calibration/calibration.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/report/fields.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/probe/cpu_probe.hpp"

namespace gpuplan {
namespace {

constexpr const char* cuda_probe_name = "gpuplan-probe-cuda";

// The CUDA probe $GPUPLAN_PROBE_CUDA names, else the one next to this executable, else on PATH;
// empty when none exists.
std::string find_cuda_probe() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* named = std::getenv("GPUPLAN_PROBE_CUDA"); named && *named) return named;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / cuda_probe_name;
    if (fs::exists(beside, ec)) return beside.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && fs::exists(fs::path(dir) / cuda_probe_name, ec)) return (fs::path(dir) / cuda_probe_name).string();
  }
  return {};
}

struct ChildResult {
  int status = -1;
  std::string out, err;
};

// What the CUDA probe may write (its calibration file is a few KiB) and how long it may run
// (a full run takes minutes; GPUPLAN_PROBE_TIMEOUT, in seconds, overrides it).
constexpr std::size_t max_probe_output = 1 << 20, max_probe_messages = 64 << 10;
double probe_timeout_s(bool quick) {
  if (const char* v = std::getenv("GPUPLAN_PROBE_TIMEOUT")) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && *end == '\0' && s > 0 && s <= 86400) return s;
  }
  return quick ? 300 : 1800;
}

// Runs the probe with its standard output and error on pipes (no temporary file to leave
// behind), reading both until it ends; a probe that writes too much or runs too long is killed
// and is an error. The child dies with this process (PR_SET_PDEATHSIG).
ChildResult run_child(const std::string& exe, bool quick) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) fail(Exit::software, fmt::format("cannot run {}: {}", exe, std::strerror(errno)));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    fail(Exit::software, fmt::format("cannot run {}: {}", exe, std::strerror(errno)));
  }
  const pid_t pid = ::fork();
  if (pid < 0) fail(Exit::software, fmt::format("cannot run {}: {}", exe, std::strerror(errno)));
  if (pid == 0) {
#ifndef __EMSCRIPTEN__  // the web build has no processes to fork (fork fails there first)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    if (quick) ::execl(exe.c_str(), exe.c_str(), "--quick", static_cast<char*>(nullptr));
    else ::execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]), ::close(err[1]);
  ChildResult r;
  std::string stopped;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(probe_timeout_s(quick));
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open = 2;
  std::array<char, 4096> buf{};
  while (open > 0 && stopped.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      stopped = fmt::format("did not finish in {:.0f} s", probe_timeout_s(quick));
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[k].fd, buf.data(), buf.size());
      if (n <= 0) {
        ::close(fds[k].fd);
        fds[k].fd = -1, --open;
        continue;
      }
      std::string& into = k == 0 ? r.out : r.err;
      into.append(buf.data(), static_cast<std::size_t>(n));
      if (into.size() > (k == 0 ? max_probe_output : max_probe_messages))
        stopped = fmt::format("wrote more than {} KiB to its {}", (k == 0 ? max_probe_output : max_probe_messages) >> 10,
                              k == 0 ? "output" : "messages");
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  if (!stopped.empty()) ::kill(pid, SIGKILL);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!stopped.empty()) fail(Exit::software, fmt::format("the CUDA probe {} {}; it was stopped", exe, stopped));
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (r.err.size() > 2000) r.err.resize(2000);
  while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == '\r')) r.err.pop_back();
  return r;
}

// Catalog id of a CUDA device name (as the driver reports it); the most specific match first.
std::string accelerator_for(const std::string& name) {
  struct Rule { std::vector<const char*> tokens; const char* id; };
  static const std::vector<Rule> rules{
      {{"GH200"}, "gh200"},        {{"GB200"}, "gb200"},        {{"GB300"}, "gb300"},
      {{"H200", "NVL"}, "h200-nvl"}, {{"H200"}, "h200"},         {{"H100", "NVL"}, "h100-nvl"},
      {{"H100", "PCIe"}, "h100-pcie"}, {{"H100"}, "h100-sxm"},    {{"H800"}, "h800"},
      {{"A100", "80GB", "PCIe"}, "a100-pcie-80gb"}, {{"A100", "PCIe"}, "a100-pcie-40gb"},
      {{"A100", "80GB"}, "a100-80gb"}, {{"A100"}, "a100-40gb"}, {{"B300"}, "b300"}, {{"B200"}, "b200"},
      {{"L40S"}, "l40s"},          {{"L4"}, "l4"},              {{"RTX 5090"}, "rtx-5090"},
      {{"RTX 4090"}, "rtx-4090"},  {{"RTX 3090"}, "rtx-3090"},  {{"V100", "PCIe"}, "v100-pcie"},
      {{"V100"}, "v100-sxm"}};
  for (const auto& r : rules) {
    bool all = true;
    for (const char* t : r.tokens) all = all && name.find(t) != std::string::npos;
    if (all) return r.id;
  }
  return {};
}

}  // namespace

std::string run_probe(const Catalog& catalog, const ProbeOptionsCli& o, std::vector<std::string>& warnings) {
  if (o.device != "auto" && o.device != "cpu" && o.device != "cuda")
    fail(Exit::usage, fmt::format("--device '{}' is not known; expected auto, cpu or cuda", o.device));
  Calibration c;
  bool done = false;
  if (o.device != "cpu") {
    const std::string exe = find_cuda_probe();
    if (exe.empty()) {
      if (o.device == "cuda")
        fail(Exit::no_device, fmt::format("no CUDA probe: {} is not next to gpuplan or on PATH (gpuplan was built without "
                                          "the CUDA toolkit; rebuild with it, or use --device cpu)",
                                          cuda_probe_name));
    } else {
      ChildResult r = run_child(exe, o.quick);
      if (r.status == 0) {
        c = parse_calibration(r.out, cuda_probe_name);
        done = true;
      } else if (o.device == "cuda" || r.status != static_cast<int>(Exit::no_device)) {
        std::string msg = r.err.empty() ? fmt::format("{} exited with status {}", cuda_probe_name, r.status) : r.err;
        const std::string prefix = std::string(cuda_probe_name) + ": error: ";
        if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
        fail(r.status == static_cast<int>(Exit::no_device) ? Exit::no_device : Exit::software, msg);
      }
    }
  }
  if (done) {
    c.tool = std::string(version_string()) + " via " + c.tool;
    c.accelerator = o.as.empty() ? accelerator_for(c.device_name) : o.as;
    if (c.accelerator.empty())
      fail(Exit::usage, fmt::format("'{}' matches no catalog accelerator; name one with --as ID (gpuplan catalog list "
                                    "accelerators)",
                                    c.device_name));
    finish_calibration(c, resolve_device(catalog, c.accelerator));
  } else {
    const Device d = resolve_device(catalog, o.as.empty() ? "cpu-desktop" : o.as);
    c = probe_cpu(ProbeOptions{o.quick, d.id, version_string()}, d);
  }
  if (c.gemm_curve && !c.gemm_curve->fallback.empty()) warnings.push_back("GEMM curve: " + c.gemm_curve->fallback);
  return to_toml(c);
}

namespace {

using C = const Comparison&;
std::string shown(C x, double v) { return x.measured->unit != "s" ? format_si(v, x.measured->unit) : format_duration(v); }
// clang-format off
const std::array<Field<Comparison>, 7> comparison_table{{
    {"metric", [](C x) { return Value(x.measured->metric); }, "metric", nullptr, false},
    {"measured", [](C x) { return Value(x.measured->value); }, "measured",
     [](C x) { return x.measured->status.rfind("unsupported", 0) == 0 ? std::string("-") : shown(x, x.measured->value); }},
    {"unit", [](C x) { return Value(x.measured->unit); }},
    {"catalog", [](C x) { return x.reference > 0 ? Value(x.reference) : Value(); }, "catalog",
     [](C x) { return x.reference > 0 ? shown(x, x.reference) : std::string("-"); }},
    {"catalog_figure", [](C x) { return Value(x.reference_name); }},
    {"ratio", [](C x) { return x.ratio ? Value(*x.ratio) : Value(); }, "ratio",
     [](C x) { return x.ratio ? format_sig(*x.ratio) : std::string("-"); }},
    {"status", [](C x) { return Value(x.measured->status); }, "status", nullptr, false},
}};
// clang-format on

Value curve_json(const Calibration& c) {
  Value cv = Value::object();
  cv.set("dtype", c.gemm_dtype);
  cv.set("max", c.gemm_curve->max);
  cv.set("half", c.gemm_curve->half);
  cv.set("rms", c.gemm_curve->rms);
  cv.set("fallback", c.gemm_curve->fallback);
  return cv;
}

}  // namespace

Document run_probe_compare(const Catalog& catalog, const std::string& path) {
  Calibration c = load_calibration(path);
  const Device d = resolve_device(catalog, c.accelerator);
  finish_calibration(c, d);
  const std::vector<Comparison> rows = compare_with_catalog(c, d);
  const std::span<const Field<Comparison>> fields(comparison_table);
  Document doc;
  Table t = fields_columns(fields, std::span<const Comparison>(rows));
  t.title = fmt::format("{}: measured on {} ({}) against catalog {}", path, c.device_name, c.created, d.id);
  doc.tables.push_back(t);
  Value measurements = Value::array();
  for (const auto& x : rows) measurements.push(fields_object(fields, x));
  Value& v = doc.data = Value::object();
  v.set("file", path);
  v.set("accelerator", d.id);
  v.set("device_name", c.device_name);
  v.set("kind", c.kind);
  v.set("measurements", measurements);
  if (c.gemm_curve) {
    v.set("gemm_curve", curve_json(c));
    if (!c.gemm_curve->fallback.empty()) doc.warnings.push_back("GEMM curve: " + c.gemm_curve->fallback);
    doc.lines.push_back(fmt::format("GEMM curve ({}): efficiency of an n^3 GEMM = {:.3f} x n / (n + 2.5 x {:.0f}) x T / (T + 50), "
                                    "T = n^2 / 128^2 tiles, fitted to {} sizes, rms {:.1f}%",
                                    c.gemm_dtype, c.gemm_curve->max, c.gemm_curve->half, c.gemm_curve->points,
                                    100 * c.gemm_curve->rms));
  }
  return doc;
}

}  // namespace gpuplan
