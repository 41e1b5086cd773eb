#include <catch2/catch.hpp>

#include "gpuplan/format.hpp"
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
