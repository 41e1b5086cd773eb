// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/error.hpp"

#include <cctype>
#include <cmath>

#include <algorithm>
#include <fmt/format.h>

namespace gpuplan {

// Levenshtein distance with adjacent transpositions counted as one edit (optimal string
// alignment): "modle" is one edit from "model", as it is from "mode".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string in_words(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

namespace {
// The tokens of an id: "llama-3.1-8b" -> llama, 3, 1, 8b.
std::vector<std::string> id_tokens(const std::string& id) {
  std::vector<std::string> out(1);
  for (char c : id) {
    if (c == '-' || c == '.' || c == '_' || c == ' ') {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}
}  // namespace

namespace {
// Ids, keys and flags are short: a word longer than this has no near spelling worth a search
// (a 4 MB unknown key spent 7 s in edit distances).
constexpr std::size_t max_suggestible = 256;
}  // namespace

std::string suggest(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > max_suggestible) return {};
  // Ids are made of tokens (family, version, size): the candidate sharing the most of the
  // word's tokens, when it shares all but one and at least two ("llama-3-8b" -> llama-3.1-8b,
  // not the closer spelling llama-2-7b). Ties go to the nearer spelling.
  const std::vector<std::string> wt = id_tokens(word);
  if (wt.size() >= 2) {
    std::string best;
    std::size_t best_shared = 0, best_d = 0;
    for (const auto& c : candidates) {
      const std::vector<std::string> ct = id_tokens(c);
      std::size_t shared = 0;
      for (const auto& t : wt)
        shared += std::any_of(ct.begin(), ct.end(), [&](const std::string& x) { return same_ignoring_case(x, t); });
      const std::size_t d = edit_distance(word, c);
      if (shared > best_shared || (shared == best_shared && shared > 0 && d < best_d)) best = c, best_shared = shared, best_d = d;
    }
    if (best_shared >= 2 && best_shared + 1 >= wt.size() && best != word) return best;
  }
  // Several candidates that start with the word ("h100" -> h100-sxm, h100-pcie, h100-nvl): name
  // them all (up to four) rather than guess one.
  if (word.size() >= 3) {
    std::vector<std::string> prefixed;
    for (const auto& c : candidates)
      if (c.rfind(word, 0) == 0 && c != word) prefixed.push_back(c);
    if (prefixed.size() >= 2 && prefixed.size() <= 4) {
      return in_words(prefixed);
    }
  }
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    // A candidate that starts with the word ("h100" -> "h100-sxm") is a good guess too.
    if (c.rfind(word, 0) == 0 && word.size() >= 3) d = std::min<std::size_t>(d, 1);
    // On a tie, the candidate of the word's own length: a swap or a slip of one letter is a
    // likelier typo than a letter too many ("modle" -> model, not mode).
    if (d < best_d || (d == best_d && !best.empty() && c.size() == word.size() && best.size() != word.size())) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string suggest_ids(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > max_suggestible) return {};
  // A prefix of several ids names them ("a100" -> a100-40gb, a100-80gb, ...: not a10); a slip
  // of one letter has one answer ("h100-smx" -> h100-sxm).
  std::vector<std::string> prefixed;
  if (word.size() >= 3) {
    for (const auto& c : candidates)
      if (c.size() > word.size() && same_ignoring_case(std::string_view(c).substr(0, word.size()), word)) prefixed.push_back(c);
    if (prefixed.size() >= 2) {
      if (prefixed.size() > 4) prefixed.resize(4);
      return in_words(prefixed);
    }
  }
  // The one id the word begins, then the slips of one letter: "rtx-5060-ti" is the start of
  // rtx-5060-ti-16gb before it is a slip for rtx-5070-ti.
  std::vector<std::string> near = prefixed;
  for (const auto& c : candidates)
    if (edit_distance(word, c) <= 1 && c != word && std::find(near.begin(), near.end(), c) == near.end()) near.push_back(c);
  if (near.size() == 1) return near.front();
  if (!prefixed.empty() && near.size() <= 4) return in_words(near);
  // Otherwise the three closest by family (the leading letters: "qwen" of qwen-2.5-7b and
  // qwen2.5-7b), counted twice, and shared tokens (version, size); ties to the nearer spelling.
  const auto family = [](const std::string& id) {
    std::string f;
    for (char c : id) {
      if (!std::isalpha(static_cast<unsigned char>(c))) break;
      f += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return f;
  };
  const std::vector<std::string> wt = id_tokens(word);
  const std::string wf = family(word);
  struct Scored {
    std::size_t score, distance;
    const std::string* id;
  };
  std::vector<Scored> ranked;
  for (const auto& c : candidates) {
    if (c == word) continue;
    const std::vector<std::string> ct = id_tokens(c);
    std::size_t score = !wf.empty() && family(c) == wf ? 2 : 0;
    // A token shares with one it starts or is started by, from three letters on: h1000 is
    // a slip for h100 before it is one for h200.
    const auto shares = [](const std::string& a, const std::string& b) {
      const std::size_t n = std::min(a.size(), b.size());
      return same_ignoring_case(a, b) || (n >= 3 && same_ignoring_case(std::string_view(a).substr(0, n), std::string_view(b).substr(0, n)));
    };
    for (const auto& t : wt)
      score += std::any_of(ct.begin(), ct.end(), [&](const std::string& x) { return shares(x, t); });
    if (score >= 2) ranked.push_back(Scored{score, edit_distance(word, c), &c});
  }
  if (ranked.empty()) {
    if (std::string spelled = suggest(word, candidates); !spelled.empty()) return spelled;
    // No near spelling: the ids that share a whole token of two letters or more with the word
    // ("m3-pro" -> apple-m3-max, apple-m3-ultra or apple-m2-pro), so that a variant the catalog
    // lacks still points at its siblings.
    for (const auto& c : candidates) {
      const std::vector<std::string> ct = id_tokens(c);
      std::size_t shared = 0;
      // A token with a digit (a generation, a size) says more than a word (pro, max).
      for (const auto& t : wt)
        if (t.size() >= 2 && std::any_of(ct.begin(), ct.end(), [&](const std::string& x) { return same_ignoring_case(x, t); }))
          shared += std::any_of(t.begin(), t.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }) ? 2 : 1;
      if (shared > 0) ranked.push_back(Scored{shared, edit_distance(word, c), &c});
    }
    if (ranked.empty()) return {};
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score > b.score : a.distance < b.distance;
  });
  std::vector<std::string> top;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) top.push_back(*ranked[i].id);
  return in_words(top);
}

}  // namespace gpuplan

namespace gpuplan {

namespace {
// The bytes of a C1 control (U+0080 to U+009F: C2 80 to C2 9F) or a bidirectional override or
// isolate (U+202A to U+202E, U+2066 to U+2069: E2 80 AA-AE, E2 81 A6-A9) starting at i, else 0:
// characters a terminal acts on rather than shows (Trojan Source, CVE-2021-42574).
std::size_t terminal_control(std::string_view t, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < t.size() ? static_cast<unsigned char>(t[i + k]) : 0u; };
  if (b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F) return 2;
  if (b(0) == 0xE2 && b(1) == 0x80 && b(2) >= 0xAA && b(2) <= 0xAE) return 3;
  if (b(0) == 0xE2 && b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9) return 3;
  return 0;
}
}  // namespace

std::string shown(std::string_view text, std::size_t max) {
  std::string out;
  const auto hex = [&](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      hex(c), ++i;
      continue;
    }
    // A UTF-8 sequence is copied whole when it is well formed and shows as itself; any other
    // byte, and a C1 control or bidirectional override, is escaped.
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0 || terminal_control(text, i)) {
      for (std::size_t k = 0; k < std::max<std::size_t>(len, 1); ++k) hex(static_cast<unsigned char>(text[i + k]));
      i += std::max<std::size_t>(len, 1);
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

long checked_count(double v, std::string_view what, bool up, double max) {
  const double whole = up ? std::ceil(v - 1e-9) : std::floor(v + 1e-9);
  if (!(whole <= max))  // also NaN
    fail(Exit::no_answer, fmt::format("{} would be {}, more than the {:.0e} this tool plans for", what,
                                      std::isfinite(v) ? fmt::format("{:.3g}", v) : std::string("unbounded"), max));
  return whole < 0 ? 0 : static_cast<long>(whole);
}

std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  // Lead byte: its length and the range of its first continuation byte (Unicode 15, table 3-7).
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) len = 2;
  else if (c == 0xe0) len = 3, lo = 0xa0;
  else if (c == 0xed) len = 3, hi = 0x9f;
  else if (c >= 0xe1 && c <= 0xef) len = 3;
  else if (c == 0xf0) len = 4, lo = 0x90;
  else if (c == 0xf4) len = 4, hi = 0x8f;
  else if (c >= 0xf1 && c <= 0xf3) len = 4;
  if (len == 0 || i + len > text.size()) return 0;
  if (at(1) < lo || at(1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (at(k) < 0x80 || at(k) > 0xbf) return 0;
  return len;
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string well_formed_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0) out += "\xef\xbf\xbd", ++i;
    else out.append(text.substr(i, len)), i += len;
  }
  return out;
}


namespace {
std::string without_controls(std::string_view text, std::string_view keep) {
  const std::string in = well_formed_utf8(text);
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (const std::size_t n = terminal_control(in, i)) {
      out += ' ', i += n;
    } else {
      out += (c < 0x20 || c == 0x7f) && keep.find(in[i]) == std::string_view::npos ? ' ' : in[i];
      ++i;
    }
  }
  return out;
}
}  // namespace

std::string printable(std::string_view text) { return without_controls(text, {}); }
std::string printable_lines(std::string_view text) { return without_controls(text, "\t\n\r"); }

}  // namespace gpuplan
