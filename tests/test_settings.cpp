// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <set>

#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"
#include "gpuplan/settings.hpp"

using namespace gpuplan;
using Catch::Matchers::Contains;

TEST_CASE("every setting is declared once with help a default a command and a setter", "[settings]") {
  std::set<std::string_view> names;
  for (const Setting& s : settings_table()) {
    INFO(s.name);
    CHECK(names.insert(s.name).second);
    CHECK(!s.help.empty());
    CHECK(!s.fallback.empty());
    CHECK(s.commands != 0);
    CHECK(s.apply != nullptr);
    if (s.type == SettingType::integer || s.type == SettingType::number) CHECK(s.min <= s.max);
    if (s.type == SettingType::choice) CHECK(!s.choices.empty());
  }
  CHECK(names.size() >= 70);
}

TEST_CASE("each numeric setting takes both ends of its range and refuses beyond them", "[settings]") {
  for (const Setting& s : settings_table()) {
    if (s.type != SettingType::integer && s.type != SettingType::number) continue;
    if (s.plain > 0 || s.kind == QuantityKind::money_per_hour) continue;  // written in their own unit: below
    INFO(s.name);
    Scenario sc;
    const auto text = [](double v) { return fmt::format("{}", v); };
    if (!s.above_min) CHECK_NOTHROW(apply_setting(sc, std::string(s.name), text(s.min)));
    CHECK_NOTHROW(apply_setting(sc, std::string(s.name), text(s.max)));
    CHECK_THROWS_AS(apply_setting(sc, std::string(s.name), text(s.max * 2 + 1)), Error);
    CHECK_THROWS_AS(apply_setting(sc, std::string(s.name), "1e308"), Error);
  }
}

TEST_CASE("a plain number is read in the setting's own unit and a suffixed one as written", "[settings]") {
  Scenario s;
  apply_setting(s, "weeks", "4");
  CHECK(s.deadline_s == 4 * 7 * 86400.0);
  apply_setting(s, "weeks", "28d");
  CHECK(s.deadline_s == 28 * 86400.0);
  apply_setting(s, "days", "4w");
  CHECK(s.deadline_s == 28 * 86400.0);
  apply_setting(s, "price", "2.5");
  CHECK(*s.price == Approx(2.5 / 3600));
  apply_setting(s, "price", "$2.5/h");
  CHECK(*s.price == Approx(2.5 / 3600));
  apply_setting(s, "years", "5");
  CHECK(s.bill.years == Approx(5));
  apply_setting(s, "years", "78w");
  CHECK(s.bill.years == Approx(78.0 * 7 / 365));
  apply_setting(s, "ttft", "200ms");
  CHECK(s.ttft_s == Approx(0.2));
  apply_setting(s, "params", "70b");
  CHECK(s.params == 70e9);
  apply_setting(s, "gpus", "8k");
  CHECK(s.gpus == 8000);
}

TEST_CASE("values outside the table are refused with the range in words", "[settings]") {
  Scenario s;
  CHECK_THROWS_WITH(apply_setting(s, "tp", "0"), Contains("--tp '0' must be a whole number from 1 to 1024"));
  CHECK_THROWS_WITH(apply_setting(s, "tp", "2.5"), Contains("whole number"));
  CHECK_THROWS_WITH(apply_setting(s, "weeks", "600"), Contains("from 1h to 520 weeks"));
  CHECK_THROWS_WITH(apply_setting(s, "checkpoint-every", "5s"), Contains("from 1min to 1y"));
  CHECK_THROWS_WITH(apply_setting(s, "recompute", "some"), Contains("expected none, selective or full"));
  CHECK_THROWS_WITH(apply_setting(s, "sequence-parallel", "maybe"), Contains("must be true or false"));
  CHECK_THROWS_WITH(apply_setting(s, "micro-bach", "2"), Contains("did you mean micro-batch?"));
  CHECK_THROWS_WITH(apply_setting(s, "site", "a\nb"), !Contains("\n"));
  CHECK_THROWS_AS(apply_setting(s, "site", "bad\xff"), Error);
  CHECK(s.given.empty());  // nothing refused counts as given
  apply_setting(s, "sequence-parallel", "false");
  CHECK(s.layout.sequence_parallel == false);
  CHECK(s.has("sequence-parallel"));
  apply_setting(s, "calibration", "C:\\xfiles");  // a literal backslash-x is text, not an escape
  CHECK(s.calibration == "C:\\xfiles");
}

TEST_CASE("conflicting settings are named together", "[settings]") {
  CHECK(conflict_among({"tp", "weeks", "days"}) == "give --weeks or --days, not both");
  CHECK(conflict_among({"params", "model"}) == "give --model or --params, not both");
  CHECK(conflict_among({"weeks", "tp"}).empty());
}

TEST_CASE("commands are named from their bits", "[settings]") {
  CHECK(command_bit("infer") == cmd_infer);
  CHECK(command_bit("plan") == 0);
  CHECK(command_names(cmd_train | cmd_infer | cmd_power) == "train, infer or power");
  CHECK(find_setting("epochs")->commands == cmd_train);
  CHECK(!(find_setting("mode")->commands & cmd_infer));
}

TEST_CASE("values in messages are escaped and cut", "[settings]") {
  CHECK(shown("plain") == "plain");
  CHECK(shown("a\nb\x1b[31m") == "a\\x0ab\\x1b[31m");
  CHECK(shown("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 kept
  CHECK(shown("bad\xff") == "bad\\xff");
  CHECK(shown(std::string(500, 'x'), 80).size() == 83);
}

TEST_CASE("a framework sets its defaults where the flags have not", "[settings]") {
  using namespace gpuplan;
  Scenario fsdp;
  apply_setting(fsdp, "framework", "fsdp");
  CHECK(fsdp.layout.zero == 3);
  CHECK(fsdp.step.dp_overlap == 0.5);  // prefetched, yet sharing the SMs with compute
  CHECK((fsdp.step.train.flash_attention && fsdp.step.train.flash2));  // PyTorch SDPA's FA2
  CHECK(fsdp.step.train.fp32_shards);  // FSDP's fp32 shards are the master weights
  Scenario eager;
  apply_setting(eager, "attention", "eager");  // given first: the framework keeps it
  apply_setting(eager, "framework", "torchtitan");
  CHECK_FALSE((eager.step.train.flash_attention || eager.step.train.flash2));
  Scenario maxtext;
  apply_setting(maxtext, "framework", "maxtext");
  CHECK((maxtext.layout.zero == 3 && maxtext.step.dp_overlap == 1));
  CHECK_FALSE(maxtext.step.train.fp32_shards);
  CHECK(fsdp.step.tp_overlap == 0);
  Scenario nemo;
  apply_setting(nemo, "tp-overlap", "0.5");  // given first: the framework keeps it
  apply_setting(nemo, "framework", "nemo");
  CHECK(nemo.step.tp_overlap == 0.5);
  CHECK(nemo.step.dp_overlap == 1);
  CHECK_FALSE(nemo.layout.zero);
  Scenario later;
  apply_setting(later, "framework", "torchtitan");
  apply_setting(later, "zero", "1");  // given after: it wins
  CHECK(later.layout.zero == 1);
  Scenario megatron;
  apply_setting(megatron, "framework", "megatron");
  CHECK(megatron.step.dp_overlap == 0);
  CHECK_FALSE(megatron.step.train.flash2);  // Transformer Engine's fused attention
  // The cross-entropy: fused under NeMo's and MaxText's defaults, PyTorch's unfused path in the
  // others, and an explicit flag given first is kept.
  CHECK((nemo.step.train.fused_loss && maxtext.step.train.fused_loss));
  CHECK_FALSE((megatron.step.train.fused_loss || fsdp.step.train.fused_loss));
  Scenario unfused;
  apply_setting(unfused, "fused-loss", "off");
  apply_setting(unfused, "framework", "nemo");
  CHECK_FALSE(unfused.step.train.fused_loss);
  // compiled: fused element-wise kernels and DDP's half-hidden gradient all-reduce; the flag given
  // first is kept, and no other framework fuses.
  Scenario compiled;
  apply_setting(compiled, "framework", "compiled");
  CHECK(compiled.step.train.fused_kernels);
  CHECK(compiled.step.dp_overlap == 0.5);
  CHECK_FALSE((compiled.step.train.fused_loss || compiled.step.train.flash2 || compiled.layout.zero));
  CHECK_FALSE((nemo.step.train.fused_kernels || fsdp.step.train.fused_kernels || megatron.step.train.fused_kernels));
  Scenario unfused_kernels;
  apply_setting(unfused_kernels, "fused-kernels", "off");
  apply_setting(unfused_kernels, "framework", "compiled");
  CHECK_FALSE(unfused_kernels.step.train.fused_kernels);
  // Megatron-Bridge's performance recipes reduce gradients in 16 bits; the others keep fp32.
  CHECK(nemo.grad_bytes == 2);
  CHECK((megatron.grad_bytes == 4 && fsdp.grad_bytes == 4));
  Scenario fp32;
  apply_setting(fp32, "grad-dtype", "fp32");
  apply_setting(fp32, "framework", "nemo");
  CHECK(fp32.grad_bytes == 4);
  CHECK_THROWS_AS(apply_setting(megatron, "framework", "jax"), Error);
}
