// SPDX-License-Identifier: Apache-2.0
#pragma once
// One error type for everything the user can get wrong. It carries the exit status
// documented in the man page; the command line catches it in one place and prints
// "gpuplan: error: <message>" to stderr.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

enum class Exit : int {
  ok = 0,
  no_answer = 1,    // the question has no answer (nothing fits, deadline impossible)
  usage = 2,        // bad flag or flag value
  constraints = 3,  // a plan's scenario failed its constraints
  data = 65,        // invalid data in a catalog, plan or calibration file
  no_input = 66,    // a file cannot be read
  no_device = 69,   // the probe found no device
  software = 70,    // internal error
  cant_create = 73, // an output cannot be written
};

class Error : public std::runtime_error {
public:
  Error(Exit code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Exit code() const { return code_; }

private:
  Exit code_;
};

[[noreturn]] inline void fail(Exit code, const std::string& message) { throw Error(code, message); }

// A value quoted in a message: control characters and bytes that are not UTF-8 escaped as
// \xNN, cut to `max` bytes with "..." so that one error stays one readable line.
std::string shown(std::string_view text, std::size_t max = 80);

// The length of the well-formed UTF-8 sequence at text[i] (1 to 4, RFC 3629 with no overlong
// forms, surrogates or code points above U+10FFFF), or 0 when the byte there starts none.
std::size_t utf8_sequence(std::string_view text, std::size_t i);
bool valid_utf8(std::string_view text);
// The text with each byte that starts no well-formed sequence replaced by U+FFFD.
std::string well_formed_utf8(std::string_view text);
// Text for a terminal or a document line: ill-formed bytes become U+FFFD and control
// characters (newlines, ESC) become spaces, so that a cell stays one cell and one line.
std::string printable(std::string_view text);
// The same for a data field that may span lines (a CSV cell): tab, LF and CR are kept.
std::string printable_lines(std::string_view text);

// A whole count (devices, racks, switches, storage units) from a double: rounded up when
// `up`, else down. Error(no_answer) "WHAT would be V, more than MAX" when not finite or above
// max, so that no float-to-integer conversion is undefined.
long checked_count(double v, std::string_view what, bool up = true, double max = 1e15);

// "a", "a or b", "a, b or c".
std::string in_words(const std::vector<std::string>& items);

// "did you mean" for ids and keys: the closest candidate within a small edit distance.
std::string suggest(const std::string& word, const std::vector<std::string>& candidates);
// "did you mean" for catalog ids: the one id a slip of a letter away, else the three closest by
// family and shared tokens (version, size): "llama-3-405b" -> llama-3.1-405b, llama-3-8b or
// llama-3-70b.
std::string suggest_ids(const std::string& word, const std::vector<std::string>& candidates);
std::size_t edit_distance(const std::string& a, const std::string& b);
// "H100-SXM" and "h100-sxm"; "70B" and "70b" (ASCII letters).
bool same_ignoring_case(std::string_view a, std::string_view b);

}  // namespace gpuplan
