#include "gpuplan/analysis/serving.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

Operating operate(const InferModel& im, int batch, double prompt, double output, double load_share) {
  Operating o;
  o.batch = batch;
  // Under load a serving runtime prefills several prompts per step (chunked prefill); each
  // request pays its share of that step. llama.cpp serves one prompt at a time.
  const int together = im.settings.runtime == Runtime::vllm
                           ? std::max(1, std::min(batch, static_cast<int>(serving_prefill_tokens / std::max(1.0, prompt))))
                           : 1;
  o.prefill_s = prefill_time(im, static_cast<long>(prompt), together).value() / together;
  o.step_s = decode_step_time(im, batch, prompt + output / 2).value();
  o.capacity_rps = batch / (output * o.step_s + batch * o.prefill_s);
  const double rho = std::min(0.95, load_share * o.capacity_rps * o.prefill_s);
  o.tpot_s = o.step_s / (1 - rho);
  o.ttft_s = o.prefill_s * together + o.tpot_s;  // the whole prefill step, then the first decode
  return o;
}

bool meets_targets(const Operating& o, double ttft, double tpot) {
  return (ttft <= 0 || o.ttft_s <= ttft) && (tpot <= 0 || o.tpot_s <= tpot);
}

std::optional<Operating> best_batch(const InferModel& im, int max_batch, double prompt, double output, double ttft, double tpot) {
  std::optional<Operating> best;
  for (int b = 1; b <= std::min(max_batch, max_batch_tried); ++b) {
    Operating o = operate(im, b, prompt, output, 1.0);
    if (meets_targets(o, ttft, tpot) && (!best || o.capacity_rps > best->capacity_rps)) best = o;
  }
  return best;
}

int choose_tp(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& base, int gpus) {
  const int limit = std::min(gpus, std::max(1, d.devices_per_node));
  int tp = 1;
  for (int t = 1; t <= limit; t *= 2) {
    if (m.heads % t) break;
    tp = t;
    InferSettings s = base;
    s.tp = t;
    s.batch = 1;
    if (inference_memory(m, pc, d, s).fits()) return t;
  }
  return tp;
}


int replicas_for(double rate, double capacity_rps, int tp) {
  // A replica with no capacity cannot serve any rate (checked before dividing by it).
  const double need = capacity_rps > 0 ? std::ceil(rate / capacity_rps - 1e-9) : HUGE_VAL;
  if (!(need * tp <= static_cast<double>(max_serving_devices)))
    fail(Exit::no_answer, fmt::format("serving {:.3g} requests/s at {:.3g} per replica of {} device{} needs more than {} devices",
                                      rate, capacity_rps, tp, tp == 1 ? "" : "s", max_serving_devices));
  return std::max(1, static_cast<int>(need));  // at most max_serving_devices: no overflow
}

}  // namespace gpuplan
