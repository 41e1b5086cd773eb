// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one place gpuplan hands text to toml++ (catalogs, plans, calibration files). Private to
// src/: toml++ is not part of the public headers.
#include <string>
#include <string_view>
#if defined(TOML_HEADER_ONLY) && TOML_HEADER_ONLY && !defined(TOML_ASSERT)
// Compiled from its headers (the sanitizer build), toml++ keeps the behaviour of the library
// we ship against: Debian's libtomlplusplus3 is built by g++ with NDEBUG, so its internal
// assertions are compiled out and TOML_ASSERT_ASSUME is a no-op (g++ 12 has no
// __builtin_assume). What follows a broken invariant is still checked by ASan and UBSan; the
// pre-check in toml_parse.cpp refuses every input found so far to reach one.
#define TOML_ASSERT(expr) static_cast<void>(0)
#endif
#include <toml++/toml.h>

namespace gpuplan {

// "path:line:col" of a region of a parsed document.
std::string toml_where(const toml::source_region& r, const std::string& path);

struct TomlSyntax {
  std::string where;    // path:line:col
  std::string message;  // what is wrong there
};

// Parses text, refusing first what toml++ 3.3.0 mishandles: a character outside ASCII in
// a key or between values (undefined behaviour in its whitespace table: `é = 1`), a table
// header that does not start with a key (an assertion: `[=]`) and a brace closing an array
// (an assertion: `a = [1, }`). All are invalid TOML 1.0 anyway. Throws TomlSyntax.
toml::table parse_toml(std::string_view text, const std::string& path);

}  // namespace gpuplan
