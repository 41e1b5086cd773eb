// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>

#include "gpuplan/quantity.hpp"

using gpuplan::parse_quantity;
using gpuplan::QuantityError;
using Q = gpuplan::QuantityKind;
using Catch::Matchers::Contains;

TEST_CASE("counts take k M B T suffixes and exponents", "[quantity]") {
  CHECK(parse_quantity("70B", Q::count) == 70e9);
  CHECK(parse_quantity("1.5T", Q::count) == 1.5e12);
  CHECK(parse_quantity("405e9", Q::count) == 405e9);
  CHECK(parse_quantity("8k", Q::count) == 8000);
  CHECK(parse_quantity("8K", Q::count) == 8000);
  CHECK(parse_quantity("12", Q::count) == 12);
  CHECK(parse_quantity(" 7B ", Q::count) == 7e9);
}

TEST_CASE("bytes are SI or IEC as written", "[quantity]") {
  CHECK(parse_quantity("80GB", Q::bytes) == 80e9);
  CHECK(parse_quantity("80GiB", Q::bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("512", Q::bytes) == 512);
  CHECK(parse_quantity("1.5 TB", Q::bytes) == 1.5e12);
  CHECK(parse_quantity("64KiB", Q::bytes) == 65536);
}

TEST_CASE("rates in bytes and bits per second", "[quantity]") {
  CHECK(parse_quantity("3.35TB/s", Q::byte_rate) == Approx(3.35e12));
  CHECK(parse_quantity("900GB/s", Q::byte_rate) == 900e9);
  CHECK(parse_quantity("400Gb/s", Q::byte_rate) == 50e9);
  CHECK(parse_quantity("25Gbps", Q::byte_rate) == 3.125e9);
  CHECK(parse_quantity("989.4T", Q::flop_rate) == Approx(989.4e12));
  CHECK(parse_quantity("1.979PFLOPS", Q::flop_rate) == Approx(1.979e15));
  CHECK(parse_quantity("312 TFLOP/s", Q::flop_rate) == Approx(312e12));
}

TEST_CASE("power durations and money", "[quantity]") {
  CHECK(parse_quantity("700W", Q::power) == 700);
  CHECK(parse_quantity("10.2kW", Q::power) == Approx(10200));
  CHECK(parse_quantity("150MW", Q::power) == 150e6);
  CHECK(parse_quantity("90s", Q::duration) == 90);
  CHECK(parse_quantity("36h", Q::duration) == 36 * 3600);
  CHECK(parse_quantity("30d", Q::duration) == 30 * 86400);
  CHECK(parse_quantity("4w", Q::duration) == 4 * 7 * 86400);
  CHECK(parse_quantity("50ms", Q::duration) == Approx(0.05));
  CHECK(parse_quantity("$5.5M", Q::money) == 5.5e6);
  CHECK(parse_quantity("$2.49/h", Q::money_per_hour) == Approx(2.49 / 3600));
  CHECK(parse_quantity("2/h", Q::money_per_hour) == Approx(2.0 / 3600));
  CHECK(parse_quantity("0.08/kWh", Q::money_per_kwh) == Approx(0.08 / 3.6e6));
  CHECK(parse_quantity("$80/MWh", Q::money_per_kwh) == Approx(0.08 / 3.6e6));
  CHECK(parse_quantity("45%", Q::fraction) == Approx(0.45));
  CHECK(parse_quantity("0.45", Q::fraction) == Approx(0.45));
}

TEST_CASE("suffixes ignore case unless the case carries meaning", "[quantity]") {
  CHECK(parse_quantity("70b", Q::count) == 70e9);
  CHECK(parse_quantity("15t", Q::count) == 15e12);
  CHECK(parse_quantity("8K", Q::count) == 8000);
  CHECK(parse_quantity("4W", Q::duration) == 4 * 7 * 86400);
  CHECK(parse_quantity("1H", Q::duration) == 3600);
  CHECK(parse_quantity("80gib", Q::bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("10.2KW", Q::power) == Approx(10200));
  CHECK(parse_quantity("$1.2M", Q::money) == 1.2e6);
  CHECK(parse_quantity("$1.2m", Q::money) == 1.2e6);
  // Bytes and bits differ only by case: a rate written in neither is refused.
  CHECK(parse_quantity("400Gb/s", Q::byte_rate) == 50e9);
  CHECK(parse_quantity("400GB/s", Q::byte_rate) == 400e9);
  CHECK_THROWS_WITH(parse_quantity("400gb/s", Q::byte_rate), Contains("unknown unit"));
}

TEST_CASE("rejections name the text and what is accepted", "[quantity]") {
  CHECK_THROWS_WITH(parse_quantity("", Q::bytes), Contains("is empty") && Contains("80GB"));
  CHECK_THROWS_WITH(parse_quantity("-5GB", Q::bytes), Contains("'-5GB' is negative"));
  CHECK_THROWS_WITH(parse_quantity("nan", Q::count), Contains("not a number"));
  CHECK_THROWS_WITH(parse_quantity("inf", Q::count), Contains("not a number"));
  CHECK_THROWS_WITH(parse_quantity("1e999", Q::count), Contains("out of range"));
  CHECK_THROWS_WITH(parse_quantity("1e300T", Q::count), Contains("out of range"));
  CHECK_THROWS_WITH(parse_quantity("80GBx", Q::bytes), Contains("unknown unit"));
  CHECK_THROWS_WITH(parse_quantity("80XB", Q::bytes), Contains("unknown unit"));
  CHECK_THROWS_WITH(parse_quantity("12 parsecs", Q::duration), Contains("unknown unit"));
  CHECK_THROWS_WITH(parse_quantity("abc", Q::power), Contains("not a number"));
  CHECK_THROWS_WITH(parse_quantity("150%", Q::fraction), Contains("above 1"));
  CHECK_THROWS_WITH(parse_quantity("2.49", Q::money_per_hour), Contains("has no unit"));
  CHECK_THROWS_AS(parse_quantity("1,5T", Q::count), QuantityError);
}

TEST_CASE("a decimal prefix reads as one decimal number", "[quantity]") {
  // 32.8 x 1e9 in binary floating point is 32,799,999,999.999996; 32.8e9 is exactly 32.8 billion.
  CHECK(parse_quantity("32.8B", Q::count) == 32800000000.0);
  CHECK(parse_quantity("8.2B", Q::count) == 8200000000.0);
  CHECK(parse_quantity("3.35TB/s", Q::byte_rate) == 3.35e12);
  CHECK(parse_quantity("0.1k", Q::count) == 100.0);
  // A binary prefix and an exponent keep the product.
  CHECK(parse_quantity("1.5GiB", Q::bytes) == 1.5 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("1.5e3k", Q::count) == 1.5e3 * 1e3);
}
