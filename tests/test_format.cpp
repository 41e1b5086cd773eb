// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include <array>
#include <span>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/report/answer_fields.hpp"
#include "gpuplan/report/table.hpp"

using namespace gpuplan;

TEST_CASE("three significant digits", "[format]") {
  CHECK(format_sig(989.4) == "989");
  CHECK(format_sig(3.351) == "3.35");
  CHECK(format_sig(0.01234) == "0.0123");
  CHECK(format_sig(9.996) == "10.0");
  CHECK(format_sig(0) == "0");
  CHECK(format_sig(123456) == "123456");
}

TEST_CASE("SI for rates and IEC for capacity", "[format]") {
  CHECK(format_si(3.35e12, "B/s") == "3.35 TB/s");
  CHECK(format_si(989.4e12, "FLOP/s") == "989 TFLOP/s");
  CHECK(format_si(700, "W") == "700 W");
  CHECK(format_si(0.05, "s") == "50.0 ms");
  CHECK(format_si(0.000398, "s") == "398 us");  // micro and nano in ASCII, not 0.000398 s
  CHECK(format_si(4.2e-9, "s") == "4.20 ns");
  // A bare count below one stays a number (0.208 GPU-hours, not "208 m").
  CHECK(format_si(0.208, "") == "0.208");
  CHECK(format_si(4.2e-5, "") == "4.20e-05");
  CHECK(format_si(1500, "") == "1.50 k");
  CHECK(format_iec(80e9) == "74.5 GiB");
  CHECK(format_iec(141e9) == "131 GiB");
  CHECK(format_iec(512) == "512 B");
  CHECK(format_usd(5.576e6) == "$5.58M");
  CHECK(format_usd(2.49) == "$2.49");
  CHECK(format_usd(717.91) == "$718");
  CHECK(format_usd(5295.99) == "$5.30k");
  CHECK(format_duration(36 * 3600) == "36.0 h");
}

TEST_CASE("tonnes print as kg t kt Mt and never as mt") {
  CHECK(format_tonnes(0.0178) == "17.8 kg");
  CHECK(format_tonnes(17.8) == "17.8 t");
  CHECK(format_tonnes(352000) == "352 kt");
  CHECK(format_tonnes(2.5e6) == "2.50 Mt");
  CHECK(format_tonnes(0) == "0 t");
}

TEST_CASE("exact numbers for machines", "[format]") {
  CHECK(format_exact(80000000000.0) == "80000000000");
  CHECK(format_exact(0.1) == "0.1");
  CHECK(format_exact(3.35e12) == "3350000000000");
  CHECK(format_exact(1e20) == "1e+20");
}

TEST_CASE("json keeps insertion order and escapes", "[format]") {
  Value v = Value::object();
  v.set("zeta", 1);
  v.set("alpha", "a\"b");
  Value arr = Value::array();
  arr.push(true);
  v.set("list", arr);
  CHECK(to_json(v) == "{\n  \"zeta\": 1,\n  \"alpha\": \"a\\\"b\",\n  \"list\": [\n    true\n  ]\n}\n");
  REQUIRE(find_path(v, "list.0") != nullptr);
  CHECK(find_path(v, "list.0")->as_bool());
  CHECK(find_path(v, "missing") == nullptr);
}

TEST_CASE("tables align numbers right and csv quotes", "[format]") {
  Table t;
  t.headers = {"id", "value"};
  t.right = {false, true};
  t.add_row({"a", "1"});
  t.add_row({"long-id", "1000"});
  CHECK(render_text(t) == "id       value\n-------  -----\na            1\nlong-id   1000\n");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

// --- Field tables (report/fields.hpp, report/answer_fields.hpp) ---

namespace {
struct Pair {
  double a;
  std::string b;
};
const std::array<gpuplan::Field<Pair>, 3> pair_fields{{
    {"x.a_s", [](const Pair& p) { return gpuplan::Value(p.a); }, "a", [](const Pair& p) { return std::to_string(static_cast<int>(p.a)) + " s"; }},
    {"x.b", [](const Pair& p) { return gpuplan::Value(p.b); }},
    {"", nullptr, "b upper", [](const Pair& p) { return p.b + "!"; }, false},
}};
}  // namespace

TEST_CASE("A field table gives nested JSON, keyed CSV rows and headed columns from one list") {
  const std::vector<Pair> rows{{2, "two"}, {3, "three"}};
  const std::span<const gpuplan::Field<Pair>> f(pair_fields);
  const gpuplan::Value v = gpuplan::fields_object(f, rows[0]);
  CHECK(gpuplan::to_json(v) == "{\n  \"x\": {\n    \"a_s\": 2,\n    \"b\": \"two\"\n  }\n}\n");
  const gpuplan::Table csv = gpuplan::fields_csv(f, std::span<const Pair>(rows));
  CHECK(gpuplan::render_csv(csv) == "x.a_s,x.b\n2,two\n3,three\n");
  const gpuplan::Table t = gpuplan::fields_columns(f, std::span<const Pair>(rows));
  CHECK(t.headers == std::vector<std::string>{"a", "b upper"});
  CHECK(t.right == std::vector<bool>{true, false});
  CHECK(t.rows[1] == std::vector<std::string>{"3 s", "three!"});
}

TEST_CASE("set_dotted nests keys in order and replaces a scalar that stood in the way") {
  gpuplan::Value v = gpuplan::Value::object();
  gpuplan::set_dotted(v, "a", 1);
  gpuplan::set_dotted(v, "b.c", 2);
  gpuplan::set_dotted(v, "b.d", 3);
  gpuplan::set_dotted(v, "a.e", 4);
  CHECK(gpuplan::scalar_text(*gpuplan::find_path(v, "b.c")) == "2");
  CHECK(gpuplan::scalar_text(*gpuplan::find_path(v, "b.d")) == "3");
  CHECK(gpuplan::scalar_text(*gpuplan::find_path(v, "a.e")) == "4");
  CHECK(v.members().size() == 2);
}

TEST_CASE("The step and memory terms sum to the totals they break down") {
  gpuplan::StepTime t;
  using gpuplan::seconds;
  t.compute = seconds(1), t.tp_comm = seconds(2), t.pp_comm = seconds(4), t.dp_comm = seconds(8), t.cp_comm = seconds(16);
  t.ep_comm = seconds(32), t.bubble = seconds(64), t.optimizer = seconds(128), t.offload = seconds(256);
  double sum = 0;
  for (const auto& term : gpuplan::step_terms()) sum += term.of(t);
  CHECK(sum == 511);  // every term once: 2^9 - 1
  gpuplan::MemoryBreakdown m;
  m.weights = gpuplan::bytes(1), m.gradients = gpuplan::bytes(2), m.optimizer = gpuplan::bytes(4);
  m.activations = gpuplan::bytes(8), m.buffers = gpuplan::bytes(16), m.reserve = gpuplan::bytes(32);
  sum = 0;
  for (const auto& term : gpuplan::memory_terms()) sum += term.of(m);
  CHECK(sum == m.total().value());
  CHECK(sum == 63);
}

TEST_CASE("A ranked layout keeps the JSON keys of train and search and a CSV row per layout") {
  gpuplan::Candidate c;
  c.layout.tp = 4, c.layout.pp = 2, c.layout.dp = 8;
  c.time.compute = gpuplan::seconds(3), c.time.total = gpuplan::seconds(4);
  c.tokens_per_s = 1000;
  c.memory.weights = gpuplan::bytes(10.4);
  const std::vector<gpuplan::RankedLayout> rows{{1, 64, &c, 0.5, 0.6, 80e9}, {2, 64, &c, 0.25, 0.3, 80e9}};
  const gpuplan::Value v = gpuplan::fields_object(gpuplan::ranked_layout_fields(), rows[0]);
  CHECK(gpuplan::number_at(v, "layout.tp") == 4);
  CHECK(gpuplan::number_at(v, "step_time_s") == 4);
  CHECK(gpuplan::number_at(v, "step_breakdown_s.compute_s") == 3);
  CHECK(gpuplan::number_at(v, "memory_breakdown_bytes.weights") == 10);  // bytes are whole
  CHECK(gpuplan::number_at(v, "mfu") == 0.5);
  CHECK(v.find("rank") == nullptr);  // the rank is the table's, not the answer's
  const gpuplan::Table csv = gpuplan::ranked_csv(rows);
  REQUIRE(csv.rows.size() == 2);
  CHECK(csv.headers.front() == "rank");
  CHECK(csv.rows[1].front() == "2");
  CHECK(csv.headers.size() == csv.rows[0].size());
  const gpuplan::Table t = gpuplan::ranked_table(rows);
  CHECK(t.headers.front() == "rank");
  CHECK(t.headers[1] == "tp");
  CHECK(t.headers.size() == t.rows[0].size());
  CHECK(t.rows[0][1] == "4");
}

TEST_CASE("A table wraps its text columns at spaces to fit a terminal and keeps figures whole") {
  gpuplan::Table t;
  t.headers = {"name", "size"};
  t.right = {false, true};
  t.add_row({"alpha beta gamma delta", "10.5 GiB"});
  t.add_row({"x", "1 B"});
  // Full width when there is no terminal: one line per row.
  CHECK(gpuplan::render_text(t) ==
        "name                        size\n"
        "----------------------  --------\n"
        "alpha beta gamma delta  10.5 GiB\n"
        "x                            1 B\n");
  // 24 columns: the name column gives up 8 (24 - 2 - 8 = 14 left), wrapping at a space.
  CHECK(gpuplan::render_text(t, 24) ==
        "name                size\n"
        "--------------  --------\n"
        "alpha beta      10.5 GiB\n"
        "gamma delta\n"
        "x                    1 B\n");
  // Never below the longest word or the heading: a row too wide for the terminal stays whole.
  CHECK(gpuplan::render_text(t, 5).find("gamma") != std::string::npos);
  for (std::size_t w : {std::size_t{1}, std::size_t{5}, std::size_t{12}, std::size_t{24}, std::size_t{40}}) CHECK(gpuplan::render_text(t, w).find("10.5 GiB") != std::string::npos);
}

TEST_CASE("A long value in a figures column wraps before the label column does") {
  // A bill: labels left, values right. At 44 columns the value column (43 wide) gives way first,
  // to 26, wrapping its long phrase at spaces, right-aligned; the label and the figure stay whole.
  gpuplan::Table t;
  t.headers = {"bill", "value"};
  t.right = {false, true};
  t.add_row({"scale-out fabric", "1024 NICs of ib-ndr, 48 switches in 2 tiers"});
  t.add_row({"owned: per year", "$13.1M / $52.4M"});
  CHECK(gpuplan::render_text(t, 44) ==
        "bill                                   value\n"
        "----------------  --------------------------\n"
        "scale-out fabric     1024 NICs of ib-ndr, 48\n"
        "                         switches in 2 tiers\n"
        "owned: per year              $13.1M / $52.4M\n");
}

TEST_CASE("The label column keeps its width while the values can wrap") {
  // 50 columns: the label (31 wide) stays whole, the value column (28 wide) gives way to 17 and
  // wraps its phrase, right-aligned; its figure (15) stays whole. Before, the label broke after "4".
  gpuplan::Table t;
  t.headers = {"bill", "value"};
  t.right = {false, true};
  t.add_row({"cloud: per year over 4 years at", "$2.24M / $8.95M"});
  t.add_row({"cloud cost", "$117k (lambda at $3.99/hour)"});
  CHECK(gpuplan::render_text(t, 50) ==
        "bill                                         value\n"
        "-------------------------------  -----------------\n"
        "cloud: per year over 4 years at    $2.24M / $8.95M\n"
        "cloud cost                        $117k (lambda at\n"
        "                                       $3.99/hour)\n");
}

TEST_CASE("calendar dates as days since 1970 and back") {
  CHECK(parse_date("1970-01-01") == 0);
  CHECK(parse_date("1970-03-01") == 31 + 28);
  // 2000 is a leap year (divisible by 400): 30 years of 365 days and 7 leap days (1972 to 1996).
  CHECK(parse_date("2000-01-01") == 30 * 365 + 7);
  CHECK(parse_date("2000-03-01") - parse_date("2000-02-28") == 2);
  // 2100 is not (divisible by 100, not by 400).
  CHECK(parse_date("2100-03-01") - parse_date("2100-02-28") == 1);
  for (const char* d : {"1970-01-01", "2024-02-29", "2026-12-31", "2027-01-04", "9999-12-31"}) CHECK(format_date(parse_date(d)) == d);
  CHECK(format_date(parse_date("2027-01-04") + 30) == "2027-02-03");
  for (const char* bad : {"2027-02-29", "2027-13-01", "2027-00-10", "27-01-04", "2027-1-4", "2027/01/04", "+027-01-04", "1969-12-31", ""})
    CHECK_THROWS_AS(parse_date(bad), Error);
}

TEST_CASE("CSV fields that a spreadsheet would run as formulas are neutralised") {
  // OWASP, CSV injection: a cell starting with =, +, -, @, tab or CR gets a leading apostrophe.
  CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("+cmd") == "'+cmd");
  CHECK(csv_field("-") == "'-");
  // Numbers stay numbers.
  CHECK(csv_field("-0.5") == "-0.5");
  CHECK(csv_field("+3") == "+3");
  CHECK(csv_field("1e-3") == "1e-3");
  CHECK(csv_field("H100") == "H100");
}

TEST_CASE("text shown on a terminal carries no C1 control or bidi override") {
  // U+0085 (C1 NEL), U+202E (right-to-left override), U+2066 (left-to-right isolate).
  CHECK(printable("a\xC2\x85" "b") == "a b");
  CHECK(printable("x\xE2\x80\xAEy") == "x y");
  CHECK(printable("x\xE2\x81\xA6y") == "x y");
  CHECK(printable("\x1b[31mred\x07") == " [31mred ");
  // Ordinary non-ASCII text is kept: an em dash, U+2014, is E2 80 94.
  CHECK(printable("a\xE2\x80\x94" "b") == "a\xE2\x80\x94" "b");
  CHECK(shown("x\xE2\x80\xAEy") == "x\\xe2\\x80\\xaey");
}
