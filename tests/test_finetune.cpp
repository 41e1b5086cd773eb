// SPDX-License-Identifier: Apache-2.0
// Fine-tuning: LoRA and QLoRA adapters over frozen base weights, full fine-tuning, tokens from a
// dataset, and what set the device count. Closed forms derived by hand from memory.cpp and
// step.cpp (Hu et al. 2021; Dettmers et al. 2023).
#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
#include "gpt_fixture.hpp"

#include "gpuplan/analysis/train.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

TEST_CASE("LoRA adapters are rank r on every attention and MLP matrix", "[finetune]") {
  // Per layer: q (h + h), k and v (h + h) each, the output projection (h + h), the MLP's two
  // matrices (h + 4h) each: 4 x 8192 + 2 x 20480 = 73,728 x r; 24 layers at r = 16.
  CHECK(lora_params(gpt(), 24, 1, 16) == 16.0 * 73728 * 24);
  CHECK(lora_params(gpt(), 24, 4, 16) == 16.0 * 73728 * 24 / 4);
}

TEST_CASE("adapter fine-tuning keeps no gradient or optimizer state for the frozen base", "[finetune][memory]") {
  const ModelArch m = gpt();
  const ParamCounts pc = count_params(m);
  TrainSettings st;
  st.seq_len = 2048;
  Layout l;
  l.zero = 0;
  const double p = pc.total, a = lora_params(m, 24, 1, 16);
  SECTION("LoRA: 2P of 16-bit base weights, 2 + 4 + 12 bytes per adapter parameter") {
    st.finetune = Finetune::lora;
    const MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(mb.weights.value() == Approx(2 * p + 2 * a).epsilon(1e-12));
    CHECK(mb.gradients.value() == Approx(4 * a).epsilon(1e-12));
    CHECK(mb.optimizer.value() == Approx(12 * a).epsilon(1e-12));
  }
  SECTION("QLoRA: 4.127 bits per base weight") {
    st.finetune = Finetune::qlora;
    const MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(mb.weights.value() == Approx(4.127 / 8 * p + 2 * a).epsilon(1e-12));
  }
  SECTION("full fine-tuning is the arithmetic of pre-training") {
    st.finetune = Finetune::full;
    TrainSettings pre = st;
    pre.finetune = Finetune::none;
    CHECK(training_memory(m, pc, st, l).total().value() == training_memory(m, pc, pre, l).total().value());
  }
}

TEST_CASE("adapter fine-tuning counts 4N FLOPs and reduces only the adapters' gradients", "[finetune][step]") {
  Catalog c = Catalog::builtin();
  const ModelArch m = gpt();
  StepModel full{m, count_params(m), resolve_device(c, "a100-80gb"), {}};
  full.settings.train.seq_len = 2048;
  StepModel lora = full;
  lora.settings.train.finetune = Finetune::lora;
  Layout l;
  l.dp = 8, l.zero = 1, l.global_batch = 64;
  const StepTime tf = step_time(full, l), tl = step_time(lora, l);
  const double attention = 6.0 * 24 * 2048 * 4096, n = full.params.active;  // causal, as flash attention runs it
  CHECK(tl.model_flops.value() / tf.model_flops.value() == Approx((4 * n + attention) / (6 * n + attention)).epsilon(1e-12));
  CHECK(tl.compute < tf.compute);        // no weight-gradient GEMMs
  CHECK(tl.compute > tf.compute * 0.5);  // the forward pass and the activations' gradients remain
  // 28.3M adapter gradients against 1.31B parameters: 2.2% of the bytes (less once overlap hides them).
  CHECK(tl.dp_comm.value() < 0.03 * tf.dp_comm.value());
}

TEST_CASE("a fine-tuning deadline names what set the device count", "[finetune][train]") {
  TrainQuestion q;
  q.model = step_model_of(job_of({{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"finetune", "full"}}));
  q.unit = 8;
  q.batch_tokens = finetune_batch_tokens;
  q.tokens = 100e6;
  // A month for 100M tokens: one node would do, but 70.6B x 18 bytes needs more than 8 x 80 GB.
  q.deadline = seconds(30 * 86400.0);
  q.layout.offload = offload_none;
  const TrainAnswer slow = plan_training(q);
  CHECK(slow.count_limit == "memory");
  CHECK(slow.gpus >= 16);
  // With the optimizer on the host (ZeRO-Offload) one DGX H100 holds it: 16 bytes a parameter
  // there, 70.6B x 16 / 8 = 141 GB of each device's 256 GiB share of its 2 TiB, where four
  // devices' 282 GB each would not fit; so memory still sets the count, now at one node.
  q.layout.offload.reset();
  const TrainAnswer offloaded = plan_training(q);
  CHECK(offloaded.count_limit == "memory");
  CHECK(offloaded.gpus == 8);
  CHECK(offloaded.best.layout.offload == offload_optimizer);
  q.layout.offload = offload_none;
  // An hour: the deadline needs many more devices than memory.
  q.deadline = seconds(3600.0);
  const TrainAnswer fast = plan_training(q);
  CHECK(fast.count_limit == "deadline");
  CHECK(fast.gpus > slow.gpus);
  // A fixed count is given.
  q.gpus = 64;
  CHECK(plan_training(q).count_limit == "given");
}
