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

namespace {

// Longest text a message repeats: a field name or a value of a closed set is far shorter.
constexpr std::size_t kMaxQuoted = 64;

}  // namespace

// Printable ASCII without the characters of markup and quoting, so a message shown as HTML or
// pasted into a shell or a terminal means what it says.
bool plain_text(std::string_view text) {
  return text.size() <= kMaxQuoted && std::all_of(text.begin(), text.end(), [](char c) {
           const auto u = static_cast<unsigned char>(c);
           return u >= 0x20 && u < 0x7f && c != '<' && c != '>' && c != '&' && c != '"' && c != '\'' && c != '`' &&
                  c != '\\';
         });
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
