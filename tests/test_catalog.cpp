// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gpuplan/analysis/model.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/scenario.hpp"
#include "gpuplan/xdg.hpp"
#include "gpuplan/error.hpp"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
std::vector<Diagnostic> load(Catalog& c, const std::string& text) {
  std::vector<Diagnostic> d;
  c.merge_text(text, "user.toml", d);
  return d;
}
}  // namespace

TEST_CASE("built-in catalog loads with the required breadth", "[catalog]") {
  Catalog c = Catalog::builtin();
  CHECK(c.list("accelerators").size() >= 60);  // issue 17: 60 accelerators and 40 models
  CHECK(c.list("models").size() >= 40);
  CHECK(c.list("sites").size() >= 8);
  for (const char* kind : {"accelerators", "interconnects", "models", "prices", "servers", "sites", "storage"}) {
    for (const Record* r : c.list(kind)) {
      INFO(kind << " " << r->id);
      CHECK(!r->text("source").empty());
      if (std::string(kind) == "prices") CHECK(!r->text("as_of").empty());
    }
  }
  const Record& h100 = c.get("accelerators", "h100-sxm");
  // nvidia-smi's total for an H100 80GB HBM3: 81,559 MiB (modal-labs/modal-client PR #2797).
  CHECK(h100.number("memory_bytes") == 81559.0 * 1024 * 1024);
  CHECK(h100.number("memory_bw_bytes_per_s") == Approx(3.35e12));
  CHECK(h100.number("bf16_flops_per_s") == Approx(989.4e12));
  CHECK(h100.number("tdp_w") == 700);
  // Apple's stated GPU rates (Newsroom): M1 Max 10.4 TFLOP/s at 400 GB/s, M1 Ultra 21 at 800 GB/s.
  CHECK(c.get("accelerators", "m1-max").number("fp32_flops_per_s") == Approx(10.4e12));
  CHECK(c.get("accelerators", "m1-ultra").number("memory_bw_bytes_per_s") == Approx(800e9));
}

TEST_CASE("the compiled built-in catalog equals the catalog TOML files merged at run time", "[catalog]") {
  // The build compiles the TOML to arrays (gpuplan-catalog-gen); merging the same files here
  // through merge_text must give the same records, field for field, bit for bit, origin for origin.
  Catalog parsed;
  std::vector<Diagnostic> d;
  for (const char* f : {"accelerators", "apis", "interconnects", "models", "prices", "servers", "sites", "storage"}) {
    std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs/" + f + ".toml");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    parsed.merge_text(text.str(), std::string("built-in:") + f + ".toml", d);
  }
  REQUIRE(d.empty());
  const Catalog built = Catalog::builtin();
  int fields = 0;
  for (const auto& kind : catalog_kinds()) {
    const auto a = built.list(kind.kind), b = parsed.list(kind.kind);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(kind.kind << " " << b[i]->id);
      CHECK(a[i]->id == b[i]->id);
      CHECK(a[i]->kind == b[i]->kind);
      CHECK(a[i]->origins == b[i]->origins);
      REQUIRE(a[i]->fields.size() == b[i]->fields.size());
      for (std::size_t j = 0; j < a[i]->fields.size(); ++j) {
        const auto &x = a[i]->fields[j], &y = b[i]->fields[j];
        INFO(y.first);
        CHECK(x.first == y.first);
        CHECK(x.second.type == y.second.type);
        CHECK(x.second.text == y.second.text);
        CHECK(std::memcmp(&x.second.number, &y.second.number, sizeof(double)) == 0);
        CHECK(x.second.flag == y.second.flag);
        CHECK(x.second.origin == y.second.origin);
        ++fields;
      }
    }
  }
  CHECK(fields > 2000);
}

TEST_CASE("every accelerator's links resolve to interconnects", "[catalog]") {
  Catalog c = Catalog::builtin();
  for (const Record* r : c.list("accelerators")) {
    for (const char* f : {"scale_up", "scale_out", "host_link"}) {
      if (!r->has(f)) continue;
      INFO(r->id << " " << f << " = " << r->text(f));
      CHECK(c.find("interconnects", r->text(f)) != nullptr);
    }
  }
  for (const char* kind : {"prices", "servers"})
    for (const Record* r : c.list(kind)) {
      INFO(r->id);
      CHECK(c.find("accelerators", r->text("accelerator")) != nullptr);
    }
}

TEST_CASE("model parameter counts match the stated counts within 1 percent", "[catalog][model]") {
  Catalog c = Catalog::builtin();
  for (const Record* r : c.list("models")) {
    ModelArch m = model_from_record(*r);
    ParamCounts p = count_params(m);
    INFO(r->id << " derived " << p.total << " stated " << m.stated_total);
    CHECK(std::abs(p.total / m.stated_total - 1) < 0.01);
    if (m.moe() && r->has("params_active")) {
      // Sources give active counts to two digits ("37B" covers 36.5B to 37.5B), so the
      // active check allows 2%. Some leave out the input embedding, a lookup rather than a
      // matrix product (OpenAI's gpt-oss card: 5.13B active of 5.71B with it).
      INFO("active derived " << p.active << " stated " << m.stated_active);
      const auto near = [&](double derived) { return std::abs(derived / m.stated_active - 1) < 0.02; };
      CHECK((near(p.active) || near(p.active - p.embedding)));
    }
  }
}

TEST_CASE("llama 2 7b counts to the parameter exactly", "[model]") {
  // 6,738,415,616 is the safetensors count of meta-llama/Llama-2-7b-hf.
  ModelArch m = model_from_record(Catalog::builtin().get("models", "llama-2-7b"));
  CHECK(count_params(m).total == 6738415616.0);
}

TEST_CASE("GPT-2 and TinyLlama count to the parameter exactly", "[model]") {
  // GPT-2: 50,257 x 768 embedding (tied) + 1,024 x 768 positions + 12 layers of 7,087,872 (4 h^2
  // attention and 8 h^2 MLP, their biases, two LayerNorms) + the final LayerNorm = 124,439,808.
  CHECK(count_params(model_from_record(Catalog::builtin().get("models", "gpt2-124m"))).total == 124439808.0);
  // TinyLlama: 2 x 32,000 x 2,048 (untied) + 22 layers of 44,044,288 (q and o 2,048^2, k and v
  // 2,048 x 256, SwiGLU 3 x 2,048 x 5,632, two RMSNorms) + the final norm = 1,100,048,384.
  CHECK(count_params(model_from_record(Catalog::builtin().get("models", "tinyllama-1.1b"))).total == 1100048384.0);
}

TEST_CASE("synthesised dense models land near the asked size", "[model]") {
  for (double n : {1e9, 7e9, 70e9, 405e9}) {
    ModelArch m = synthesize_dense(n);
    INFO(n << " -> " << m.name);
    CHECK(std::abs(count_params(m).total / n - 1) < 0.05);
    CHECK(m.hidden % m.heads == 0);
  }
  CHECK_THROWS_AS(synthesize_dense(0), Error);
}

TEST_CASE("user files override fields by id and add new records", "[catalog]") {
  Catalog c = Catalog::builtin();
  auto d = load(c, R"([accelerators.h100-sxm]
tdp_w = "650W"

[accelerators.my-quote]
name = "Quoted card"
vendor = "Acme"
family = "hopper"
memory_bytes = "96GB"
memory_bw_bytes_per_s = "4TB/s"
bf16_flops_per_s = "1000T"
tdp_w = 800
launch_year = 2025
source = "vendor quote 2026-11"
)");
  REQUIRE(d.empty());
  CHECK(c.get("accelerators", "h100-sxm").number("tdp_w") == 650);
  CHECK(c.get("accelerators", "h100-sxm").number("memory_bytes") == 81559.0 * 1024 * 1024);
  CHECK(c.get("accelerators", "my-quote").number("memory_bytes") == 96e9);
}

TEST_CASE("catalog errors carry file line and column", "[catalog]") {
  Catalog c = Catalog::builtin();
  SECTION("syntax") {
    auto d = load(c, "[accelerators.x]\nname = \n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].where == "user.toml:2:8");
  }
  SECTION("wrong type") {
    auto d = load(c, "[accelerators.h100-sxm]\ntdp_w = true\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].text() == "user.toml:2:9: error: 'tdp_w' must be a number or a quantity string, not a boolean");
  }
  SECTION("unknown key with a suggestion") {
    auto d = load(c, "[accelerators.h100-sxm]\nmemory_byte = \"80GB\"\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].where == "user.toml:2:1");
    CHECK_THAT(d[0].message, Contains("did you mean 'memory_bytes'"));
  }
  SECTION("missing required field") {
    auto d = load(c, "[sites.mine]\nname = \"x\"\nsource = \"y\"\npue = 1.2\ngrid_gco2_per_kwh = 300\n");
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0].message, Contains("missing required key 'usd_per_kwh'"));
  }
  SECTION("absurd and negative values") {
    auto d = load(c, "[sites.hyperscale]\npue = 0.8\n[accelerators.h100-sxm]\nmemory_bytes = \"-80GB\"\n");
    REQUIRE(d.size() == 2);  // kinds are checked in name order: accelerators first
    CHECK(d[0].where == "user.toml:4:16");
    CHECK_THAT(d[0].message, Contains("negative"));
    CHECK(d[1].where == "user.toml:2:7");
    CHECK_THAT(d[1].message, Contains("outside the sane range"));
  }
  SECTION("unit slip: 80 bytes of memory") {
    auto d = load(c, "[accelerators.h100-sxm]\nmemory_bytes = 80\n");
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0].message, Contains("sane range"));
  }
  SECTION("duplicate id") {
    auto d = load(c, "[models.x]\nname = \"a\"\n[models.x]\nname = \"b\"\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].where == "user.toml:3:1");
  }
  SECTION("sparse figure where dense is expected") {
    auto d = load(c, "[accelerators.h100-sxm]\nbf16_flops_per_s = \"1978.8T\"\n");
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0].message, Contains("sparse"));
  }
  SECTION("unknown kind and bad id") {
    auto d = load(c, "[accelerator.x]\nname = \"a\"\n[models.Bad_Id]\nname = \"b\"\n");
    REQUIRE(d.size() == 2);
    CHECK_THAT(d[0].message, Contains("did you mean accelerators?"));
    CHECK_THAT(d[1].message, Contains("lower-case"));
  }
  SECTION("bad choice") {
    auto d = load(c, "[models.llama-2-7b]\nactivation = \"relu\"\n");
    REQUIRE(d.size() == 1);
    CHECK_THAT(d[0].message, Contains("expected one of gelu|swiglu|geglu"));
  }
}

TEST_CASE("unknown ids suggest the nearest", "[catalog]") {
  Catalog c = Catalog::builtin();
  CHECK_THROWS_WITH(c.get("accelerators", "h100"), Contains("did you mean h100-"));
  CHECK_THROWS_WITH(c.get("accelerators", "h100-smx"), Contains("did you mean h100-sxm?"));
  // Ids are family, version and size tokens: the three closest by family and shared tokens,
  // not by spelling (llama-2-7b is nearer to llama-3-405b letter by letter).
  CHECK_THROWS_WITH(c.get("models", "llama-3-405b"), Contains("did you mean llama-3.1-405b, llama-3-70b or llama-3-8b?"));
  CHECK_THROWS_WITH(c.get("models", "qwen3-8b-instruct"), Contains("did you mean qwen3-8b, "));
  CHECK_THROWS_WITH(c.get("models", "qwen-2.5-7b"), Contains("did you mean qwen2.5-7b?"));
  // A variant the catalog lacks and no near spelling: its siblings by a shared whole token, the
  // generation (m3) before the tier (pro).
  CHECK_THROWS_WITH(c.get("accelerators", "m4-ultra"), Contains("did you mean apple-m4, apple-m4-max or apple-m4-pro?"));
  // The one id a word begins comes before a one-letter slip: the 16 GB RTX 5060 Ti, then the 5070 Ti.
  CHECK_THROWS_WITH(c.get("accelerators", "rtx-5060-ti"), Contains("did you mean rtx-5060-ti-16gb or rtx-5070-ti?"));
  CHECK_THROWS_WITH(c.get("accelerators", "zzz"), !Contains("did you mean"));
}

TEST_CASE("catalog ids are case-insensitive", "[catalog]") {
  Catalog c = Catalog::builtin();
  CHECK(c.get("accelerators", "H100-SXM").id == "h100-sxm");
  CHECK(c.get("models", "Llama-3.1-8B").id == "llama-3.1-8b");
  CHECK(c.find("accelerators", "H100-SXMX") == nullptr);
}

TEST_CASE("US state sites carry their eGRID2022 subregion carbon intensity", "[catalog]") {
  // EPA eGRID2022 subregion CO2 total output emission rates in lb/MWh; 1 lb/MWh = 0.45359237 g/kWh.
  const Catalog c = Catalog::builtin();
  const std::pair<const char*, double> egrid[] = {{"us-virginia", 622.987},  {"us-texas", 771.083},
                                                  {"us-oregon", 602.088},    {"us-washington", 602.088},
                                                  {"us-california", 497.443}, {"us-georgia", 893.29}};
  for (const auto& [site, lb_per_mwh] : egrid) {
    INFO(site);
    CHECK(c.get("sites", site).number("grid_gco2_per_kwh") == Catch::Detail::Approx(lb_per_mwh * 0.45359237).epsilon(0.001));
  }
}

TEST_CASE("catalog records are found by their aliases in any case", "[catalog]") {
  Catalog c = Catalog::builtin();
  CHECK(c.get("models", "llama3.1:8b").id == "llama-3.1-8b");  // Ollama's tag
  CHECK(c.get("models", "Qwen3:30B").id == "qwen3-30b-a3b");
  CHECK(c.get("accelerators", "m3-max").id == "apple-m3-max");
  CHECK(c.get("accelerators", "Trillium").id == "tpu-v6e");
  // An alias is a whole name, not a prefix or a substring of the list.
  CHECK(c.find("models", "llama3.1:") == nullptr);
  CHECK(c.find("models", "llama3.1:8b, llama3.1") == nullptr);
  // A user file can give a record names of its own.
  std::vector<Diagnostic> d;
  c.merge_text("[accelerators.h100-sxm]\naliases = \"lab-box, LB\"\n", "user.toml", d);
  CHECK(d.empty());
  CHECK(c.get("accelerators", "lb").id == "h100-sxm");
}

TEST_CASE("XDG base directories ignore relative and empty values and default under HOME", "[xdg]") {
  // Base Directory Specification 0.8: a relative path in these variables is invalid and ignored.
  auto keep = [](const char* name) {
    const char* v = std::getenv(name);
    return std::pair<std::string, bool>(v ? v : "", v != nullptr);
  };
  const auto home = keep("HOME"), config = keep("XDG_CONFIG_HOME"), data = keep("XDG_DATA_HOME"), dirs = keep("XDG_DATA_DIRS");
  setenv("HOME", "/home/u", 1);
  setenv("XDG_CONFIG_HOME", "relative/config", 1);
  setenv("XDG_DATA_HOME", "", 1);
  setenv("XDG_DATA_DIRS", "/opt/share::rel:/usr/share", 1);
  CHECK(xdg_config_home() == "/home/u/.config");
  CHECK(xdg_data_home() == "/home/u/.local/share");
  CHECK(xdg_data_dirs() == std::vector<std::string>{"/opt/share", "/usr/share"});
  CHECK(default_calibration_path("h100-sxm") == "/home/u/.config/gpuplan/calibration/h100-sxm.toml");
  setenv("XDG_CONFIG_HOME", "/etc/u", 1);
  unsetenv("XDG_DATA_DIRS");
  CHECK(xdg_config_home() == "/etc/u");
  CHECK(xdg_data_dirs() == std::vector<std::string>{"/usr/local/share", "/usr/share"});
  CHECK(split_path_list("a::b:") == std::vector<std::string>{"a", "b"});
  CHECK(split_path_list(nullptr).empty());
  for (const auto& [name, v] : {std::pair{"HOME", home}, {"XDG_CONFIG_HOME", config}, {"XDG_DATA_HOME", data},
                                {"XDG_DATA_DIRS", dirs}}) {
    if (v.second) setenv(name, v.first.c_str(), 1);
    else unsetenv(name);
  }
}
