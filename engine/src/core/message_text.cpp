// Text of diagnostics: type names, numbers, and a user's text repeated only when it is plain.
#include "message_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ppb {

using nlohmann::json;

const char* type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

std::string number_text(double x) {
  if (std::isfinite(x) && std::fabs(x) < 1e15 && std::floor(x) == x) return std::to_string(static_cast<long long>(x));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  if (std::fabs(x) >= 1 && std::fabs(x) < 1e15) std::snprintf(buf, sizeof buf, "%.3f", x);
  std::string s = buf;
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string figure_text(double x) {
  if (!std::isfinite(x)) return "-";
  const double size = std::fabs(x);
  if (size >= 1e15) return number_text(x);
  if (size >= 1000) {
    const std::string digits = std::to_string(std::llround(size));
    std::string out = x < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  }
  if (size == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, size >= 100 ? "%.1f" : size >= 1 ? "%.2f" : "%.3g", x);
  std::string s = buf;
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

namespace {

// Longest text a message repeats: a field name or a value of a closed set is far shorter.
constexpr std::size_t kMaxQuoted = 64;

}  // namespace

// The code point of the well-formed UTF-8 sequence at `at` (advancing past it), or -1.
long next_code_point(std::string_view text, std::size_t& at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  const int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
  if (length == 0 || at + static_cast<std::size_t>(length) > text.size()) return -1;
  long cp = length == 1 ? lead : lead & (0x7f >> length);
  for (int k = 1; k < length; ++k) {
    const unsigned char c = byte(at + static_cast<std::size_t>(k));
    if ((c >> 6) != 0x2) return -1;
    cp = (cp << 6) | (c & 0x3f);
  }
  static constexpr long kLeast[] = {0, 0, 0x80, 0x800, 0x10000};  // shorter forms are overlong
  if (cp < kLeast[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  at += static_cast<std::size_t>(length);
  return cp;
}

// A character a message may repeat: printable ASCII without the characters of markup and quoting,
// or a printable non-ASCII character (names in Chinese, say), but no control character, no
// invisible one and none that reorders text around it.
bool plain_code_point(long cp) {
  if (cp < 0x80)
    return cp >= 0x20 && cp < 0x7f && cp != '<' && cp != '>' && cp != '&' && cp != '"' && cp != '\'' && cp != '`' &&
           cp != '\\';
  if (cp < 0xa0) return false;                                       // C1 controls
  if (cp >= 0x200b && cp <= 0x200f) return false;                    // zero-width characters and direction marks
  if (cp >= 0x2028 && cp <= 0x202e) return false;                    // line and paragraph separators, embeddings
  if (cp >= 0x2060 && cp <= 0x206f) return false;                    // invisible operators, isolates
  if (cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb)) return false;  // byte order mark, annotations
  return cp != 0xad && cp != 0x061c;                                 // soft hyphen, Arabic letter mark
}

// Text a message may repeat as it is, so a message shown as HTML or pasted into a shell or a
// terminal means what it says.
bool plain_text(std::string_view text) {
  if (text.size() > kMaxQuoted) return false;
  for (std::size_t at = 0; at < text.size();) {
    const long cp = next_code_point(text, at);
    if (cp < 0 || !plain_code_point(cp)) return false;
  }
  return true;
}

std::string quoted_input(std::string_view text) {
  std::string out;  // built by appending: GCC 12 warns on "literal" + string (-Wrestrict)
  if (plain_text(text)) {
    out += '"';
    out += text;
    out += '"';
  } else {
    out += "(a ";
    out += std::to_string(text.size());
    out += "-byte text, not repeated here)";
  }
  return out;
}

}  // namespace ppb
