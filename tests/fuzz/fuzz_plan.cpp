// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: plan files end to end: parse, evaluate every scenario (under a small work
// budget so that one input stays fast), check constraints, and render every format. Any text
// either gives a report or a gpuplan::Error with a documented exit status; JSON output must be
// valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog builtin = gpuplan::Catalog::builtin();
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuplan::PlanLimits limits;
  limits.max_searches = 200;
  gpuplan::PlanRun run;
  try {
    run = gpuplan::run_plan_text(builtin, text, "fuzz.toml", limits);
  } catch (const gpuplan::Error& e) {
    const int code = static_cast<int>(e.code());
    if (code == 0 || code >= 128 || e.code() == gpuplan::Exit::software) std::abort();
    return 0;
  }
  for (const char* format : {"table", "markdown", "csv", "json", "html"}) {
    const std::string out = gpuplan::render_plan(run, format);
    if (!gpuplan::valid_utf8(out)) std::abort();
  }
  return 0;
}
