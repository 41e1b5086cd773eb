// SPDX-License-Identifier: Apache-2.0
// A GGUF header reader written from the format's published specification (ggml docs/gguf.md):
// magic "GGUF", version, tensor count, metadata count, the metadata key-value pairs, then each
// tensor's name, dimensions, type and offset. Everything is little-endian. Only the header is
// read; every count and length is checked against the bytes that remain before anything is
// allocated for it, so a hostile file can neither crash the reader nor make it allocate much.
#include <cstring>
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "gpuplan/catalog/gguf.hpp"
#include "gpuplan/error.hpp"
#include "import_common.hpp"

namespace gpuplan {

namespace {
// Block sizes and bytes per block of the ggml tensor types (ggml/include/ggml.h for the ids,
// ggml/src/ggml-common.h for the block structs: Q4_K is 256 weights in 144 bytes, ...).
constexpr GgmlType types[] = {
    {0, "f32", 1, 4},        {1, "f16", 1, 2},          {2, "q4_0", 32, 18},     {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},     {7, "q5_1", 32, 24},       {8, "q8_0", 32, 34},     {9, "q8_1", 32, 36},
    {10, "q2_k", 256, 84},   {11, "q3_k", 256, 110},    {12, "q4_k", 256, 144},  {13, "q5_k", 256, 176},
    {14, "q6_k", 256, 210},  {15, "q8_k", 256, 292},    {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},  {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},  {23, "iq4_xs", 256, 136},  {24, "i8", 1, 1},        {25, "i16", 1, 2},
    {26, "i32", 1, 4},       {27, "i64", 1, 8},         {28, "f64", 1, 8},       {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},      {39, "mxfp4", 32, 17},     {40, "nvfp4", 64, 36}};

constexpr std::uint64_t max_entries = 100000;           // keys, tensors
constexpr std::uint64_t max_string = 4u << 20;          // one string
constexpr std::uint64_t max_dims = 8;                   // a tensor's dimensions (ggml has 4)

class Cursor {
public:
  Cursor(std::string_view b, const std::string& path) : b_(b), path_(path) {}
  [[noreturn]] void bad(const std::string& what) const {
    fail(Exit::data, fmt::format("{}: error: {} (at byte {}; not a GGUF file this reader understands)", shown(path_), what, at_));
  }
  void need(std::uint64_t n, const char* what) const {
    if (n > b_.size() - at_) bad(fmt::format("the header ends inside {}: the file is truncated", what));
  }
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_.data() + at_, sizeof(T));  // GGUF is little-endian, as every host this builds for
    at_ += sizeof(T);
    return v;
  }
  std::string string(const char* what) {
    const auto n = get<std::uint64_t>(what);
    if (n > max_string) bad(fmt::format("{} is {} bytes long, more than {}", what, n, max_string));
    need(n, what);
    std::string s(b_.substr(at_, n));
    at_ += n;
    return s;
  }
  void skip(std::uint64_t n, const char* what) {
    need(n, what);
    at_ += n;
  }

private:
  std::string_view b_;
  const std::string& path_;
  std::size_t at_ = 0;
};

// Bytes of one scalar of a metadata value type; 0 for a string, an array or an unknown type.
std::uint64_t scalar_bytes(std::uint32_t t) {
  switch (t) {
    case 0: case 1: case 7: return 1;
    case 2: case 3: return 2;
    case 4: case 5: case 6: return 4;
    case 10: case 11: case 12: return 8;
    default: return 0;
  }
}

GgufValue read_value(Cursor& c, std::uint32_t type, int depth) {
  GgufValue v;
  switch (type) {
    case 0: v.number = c.get<std::uint8_t>("a uint8"); break;
    case 1: v.number = c.get<std::int8_t>("an int8"); break;
    case 2: v.number = c.get<std::uint16_t>("a uint16"); break;
    case 3: v.number = c.get<std::int16_t>("an int16"); break;
    case 4: v.number = c.get<std::uint32_t>("a uint32"); break;
    case 5: v.number = c.get<std::int32_t>("an int32"); break;
    case 6: v.kind = GgufValue::Kind::real, v.number = c.get<float>("a float32"); break;
    case 7: v.kind = GgufValue::Kind::boolean, v.number = c.get<std::uint8_t>("a bool") != 0; break;
    case 8: v.kind = GgufValue::Kind::text, v.text = c.string("a string value"); break;
    case 10: v.number = static_cast<double>(c.get<std::uint64_t>("a uint64")); break;
    case 11: v.number = static_cast<double>(c.get<std::int64_t>("an int64")); break;
    case 12: v.kind = GgufValue::Kind::real, v.number = c.get<double>("a float64"); break;
    case 9: {
      if (depth > 2) c.bad("arrays nest more than 2 deep");
      v.kind = GgufValue::Kind::array;
      const auto elem = c.get<std::uint32_t>("an array's type");
      v.length = c.get<std::uint64_t>("an array's length");
      if (const std::uint64_t size = scalar_bytes(elem)) {
        if (v.length > (std::uint64_t(1) << 40) / size) c.bad(fmt::format("an array of {} elements", v.length));
        c.skip(v.length * size, "an array");  // skipped in place: nothing allocated by its length
      } else {
        for (std::uint64_t i = 0; i < v.length; ++i) read_value(c, elem, depth + 1);  // each bounded by the bytes left
      }
      break;
    }
    default: c.bad(fmt::format("metadata value type {} is not in the specification", type));
  }
  return v;
}
}  // namespace

const GgmlType* ggml_type(std::uint32_t id) {
  for (const auto& t : types)
    if (t.id == id) return &t;
  return nullptr;
}

double GgufTensor::elements() const {
  double n = 1;
  for (auto d : dims) n *= static_cast<double>(d);
  return n;
}

double GgufTensor::bytes() const {
  const GgmlType* t = ggml_type(type);
  return t ? elements() / t->block * t->bytes : 0;
}

const GgufValue* GgufHeader::find(const std::string& key) const {
  for (const auto& [k, v] : kv)
    if (k == key) return &v;
  return nullptr;
}

double GgufHeader::weight_bytes() const {
  double b = 0;
  for (const auto& t : tensors) b += t.bytes();
  return b;
}

double GgufHeader::weight_elements() const {
  double n = 0;
  for (const auto& t : tensors) n += t.elements();
  return n;
}

GgufHeader parse_gguf(std::string_view bytes, const std::string& path) {
  Cursor c(bytes, path);
  if (bytes.size() < 4 || bytes.substr(0, 4) != "GGUF") c.bad("it does not start with the magic GGUF");
  c.skip(4, "the magic");
  GgufHeader h;
  h.version = c.get<std::uint32_t>("the version");
  if (h.version < 2 || h.version > 3) c.bad(fmt::format("version {} (this reader knows 2 and 3)", h.version));
  const auto tensors = c.get<std::uint64_t>("the tensor count");
  const auto keys = c.get<std::uint64_t>("the metadata count");
  if (tensors > max_entries || keys > max_entries)
    c.bad(fmt::format("{} tensors and {} metadata keys, more than {}", tensors, keys, max_entries));
  for (std::uint64_t i = 0; i < keys; ++i) {
    std::string key = c.string("a metadata key");
    const auto type = c.get<std::uint32_t>("a metadata type");
    h.kv.emplace_back(std::move(key), read_value(c, type, 0));
  }
  for (std::uint64_t i = 0; i < tensors; ++i) {
    GgufTensor t;
    t.name = c.string("a tensor name");
    const auto n = c.get<std::uint32_t>("a tensor's dimension count");
    if (n == 0 || n > max_dims) c.bad(fmt::format("tensor '{}' has {} dimensions", shown(t.name), n));
    for (std::uint32_t d = 0; d < n; ++d) t.dims.push_back(c.get<std::uint64_t>("a tensor dimension"));
    t.type = c.get<std::uint32_t>("a tensor type");
    if (!ggml_type(t.type)) c.bad(fmt::format("tensor '{}' has ggml type {}, which this reader does not know", shown(t.name), t.type));
    if (!(t.elements() < 1e15)) c.bad(fmt::format("tensor '{}' has more than 10^15 elements", shown(t.name)));
    c.get<std::uint64_t>("a tensor offset");
    h.tensors.push_back(std::move(t));
  }
  return h;
}

namespace {
// The GGUF file type's name (llama.cpp's llama_ftype), as --quant spells it; "gguf" for a mix
// without a name here. The weight bytes come from the tensors whatever the name.
std::string ftype_name(double t) {
  switch (static_cast<int>(t)) {
    case 0: return "fp32";
    case 1: return "fp16";
    case 2: return "q4_0";
    case 3: return "q4_1";
    case 7: return "q8_0";
    case 8: return "q5_0";
    case 9: return "q5_1";
    case 10: return "q2_k";
    case 12: return "q3_k_m";
    case 15: return "q4_k_m";
    case 17: return "q5_k_m";
    case 18: return "q6_k";
    case 19: return "iq2_xxs";
    case 23: return "iq3_xxs";
    case 24: return "iq1_s";
    case 25: return "iq4_nl";
    case 26: return "iq3_s";
    case 27: return "iq3_m";
    case 29: return "iq2_m";
    case 30: return "iq4_xs";
    case 31: return "iq1_m";
    case 32: return "bf16";
    default: return "gguf";
  }
}

}  // namespace

ImportedFields import_gguf_header(std::string_view bytes, const std::string& path) {
  const GgufHeader h = parse_gguf(bytes, path);
  ImportedFields f;
  const auto text = [&](const std::string& k) { const GgufValue* v = h.find(k); return v && v->kind == GgufValue::Kind::text ? v->text : std::string(); };
  const auto number = [&](const std::string& k) -> std::optional<double> {
    const GgufValue* v = h.find(k);
    if (!v) return std::nullopt;
    if (v->kind == GgufValue::Kind::array || v->kind == GgufValue::Kind::text || !(v->number >= 0))
      import_error(path, k, "is not a count of zero or more");
    return v->number;
  };
  const std::string arch = text("general.architecture");
  if (arch.empty()) import_error(path, "general.architecture", "is missing");
  const auto need = [&](const std::string& k) {
    const auto v = number(arch + "." + k);
    if (!v || *v <= 0) import_error(path, arch + "." + k, "is missing (or zero); the model's shape needs it");
    return *v;
  };
  f.family = arch;
  const double layers = need("block_count"), hidden = need("embedding_length"), heads = need("attention.head_count");
  f.set("layers", layers);
  f.set("hidden", hidden);
  f.set("heads", heads);
  f.set("kv_heads", number(arch + ".attention.head_count_kv").value_or(heads));
  if (auto k = number(arch + ".attention.key_length"); k && *k > 0 && *k * heads != hidden && !number(arch + ".attention.kv_lora_rank"))
    f.set("head_dim", *k);
  f.set("ffn", need("feed_forward_length"));
  const auto context = number(arch + ".context_length");
  f.set("max_context", context.value_or(4096));
  // The vocabulary: the tokenizer's token list, else the token embedding's rows.
  double vocab = 0;
  if (const GgufValue* t = h.find("tokenizer.ggml.tokens"); t && t->kind == GgufValue::Kind::array) vocab = static_cast<double>(t->length);
  bool output = false;
  for (const auto& t : h.tensors) {
    if (t.name == "token_embd.weight" && vocab <= 0 && t.dims.size() == 2) vocab = static_cast<double>(t.dims[1]);
    output |= t.name == "output.weight";
  }
  if (vocab <= 0) import_error(path, "tokenizer.ggml.tokens", "is missing, and no token_embd.weight gives the vocabulary");
  f.set("vocab", vocab);
  const bool plain = arch == "gpt2" || arch == "bloom" || arch == "falcon" || arch == "starcoder" || arch == "gptneox" || arch == "phi2";
  f.set_text("activation", plain ? "gelu" : arch.rfind("gemma", 0) == 0 ? "geglu" : "swiglu");
  f.set_text("norm", h.find(arch + ".attention.layer_norm_rms_epsilon") ? "rmsnorm" : "layernorm");
  f.set_flag("tied_embeddings", !output);
  if (auto e = number(arch + ".expert_count"); e && *e > 1) {
    f.set("experts", *e);
    f.set("active_experts", need("expert_used_count"));
    if (auto w = number(arch + ".expert_feed_forward_length"); w && *w > 0) f.set("expert_ffn", *w);
    if (auto s = number(arch + ".expert_shared_count"); s && *s > 0) f.set("shared_experts", *s);
    if (auto d = number(arch + ".leading_dense_block_count"); d && *d > 0) f.set("dense_layers", *d);
  }
  if (auto r = number(arch + ".attention.kv_lora_rank"); r && *r > 0) {
    f.set("kv_lora_rank", *r);
    if (auto q = number(arch + ".attention.q_lora_rank"); q && *q > 0) f.set("q_lora_rank", *q);
    const double rope = need("rope.dimension_count");
    f.set("qk_rope_dim", rope);
    f.set("qk_nope_dim", need("attention.key_length") - rope);
    f.set("v_head_dim", need("attention.value_length"));
  }
  // Gemma 3's one global layer in six is the pattern llama.cpp's loader sets for it.
  if (auto w = number(arch + ".attention.sliding_window"); w && *w > 0) {
    f.set("sliding_window", *w);
    f.set("sliding_layers", sliding_layers_of(arch, layers, 6));
  }
  if (!context) f.caveats.push_back("the header gives no context length: 4,096 assumed");
  if (h.find(arch + ".ssm.state_size") || h.find(arch + ".ssm.d_state"))
    f.caveats.push_back("its state-space (Mamba) layers are planned as attention layers");
  // The file's own weights: their exact count and bytes, from the tensors' types and shapes.
  const double elements = h.weight_elements(), weight_bytes = h.weight_bytes();
  if (!(elements > 0)) import_error(path, "tensors", "hold no weights (a GGUF model lists its tensors in its header)");
  f.set("params_total", elements);
  f.set_text("native_quant", ftype_name(number("general.file_type").value_or(-1)));
  f.set("native_bits_per_weight", 8 * weight_bytes / elements);
  return f;
}


}  // namespace gpuplan
