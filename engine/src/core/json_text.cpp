// Request text in, response text out: the size- and depth-guarded parse of a request, and the
// response writer that gives exactly json::dump()'s text.
#include "ppb/core/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "ppb/core/limits.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// Bytes of a parser message that are safe to echo: printable ASCII only (the message may quote
// the offending input, which can be anything), at most `cap` of them.
std::string printable(const std::string& text, std::size_t cap) {
  std::string out;
  for (char c : text) {
    if (out.size() >= cap) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    out += u >= 0x20 && u < 0x7f ? c : '?';
  }
  return out;
}

// The text json::dump() gives (compact, UTF-8 kept, invalid UTF-8 an error), written straight into
// one string. nlohmann's serializer goes through a virtual call per piece of output and decodes every
// byte of every string; compiled to WebAssembly that made it 2.5 times slower than natively, a fifth
// of a small estimate's time under node. Numbers use the serializer's own formatting function;
// strings with anything but printable ASCII, and any kind of value a response does not hold, still
// go through dump().
void write_string(const std::string& text, std::string& out) {
  const bool plain =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) {
    out += json(text).dump();
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

void write_json(const json& value, std::string& out) {
  std::array<char, 64> digits{};  // as the serializer's number buffer
  switch (value.type()) {
    case json::value_t::null: out += "null"; return;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case json::value_t::number_integer:
      out.append(digits.data(),
                 std::to_chars(digits.data(), digits.data() + digits.size(), value.get<std::int64_t>()).ptr);
      return;
    case json::value_t::number_unsigned:
      out.append(digits.data(),
                 std::to_chars(digits.data(), digits.data() + digits.size(), value.get<std::uint64_t>()).ptr);
      return;
    case json::value_t::number_float: {
      const double x = value.get<double>();
      if (!std::isfinite(x))
        out += "null";
      else
        out.append(digits.data(), nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), x));
      return;
    }
    case json::value_t::string: write_string(value.get_ref<const std::string&>(), out); return;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& element : value.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        write_json(element, out);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, element] : value.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        write_string(key, out);
        out += ':';
        write_json(element, out);
      }
      out += '}';
      return;
    }
    case json::value_t::binary:
    case json::value_t::discarded: break;
  }
  out += value.dump();
}

}  // namespace

std::string json_text(const json& value) {
  std::string out;
  write_json(value, out);
  return out;
}

std::optional<json> parse_json_text(std::string_view text, Diagnostics& d) {
  if (static_cast<std::int64_t>(text.size()) > limits::max_input_bytes) {
    d.error("INPUT_TOO_LARGE", "",
            "the request has more than " + std::to_string(limits::max_input_bytes) + " bytes (64 MiB), the cap (" +
                std::to_string(text.size()) + " read); merge repeated layers with \"count\".");
    return std::nullopt;
  }
  // One pass over the text before the parser allocates anything: nesting depth and the number of
  // values (opening brackets and commas outside strings). Syntax is left to the parser.
  int depth = 0;
  std::int64_t values = 1;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limits::max_json_depth) {
          d.error("JSON_TOO_DEEP", "",
                  "the request nests arrays and objects more than " + std::to_string(limits::max_json_depth) +
                      " levels deep (at byte " + std::to_string(i) + "), the cap; a request needs about 6.");
          return std::nullopt;
        }
        ++values;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      case ',': ++values; break;
      default: break;
    }
    if (values > limits::max_json_values) {
      d.error("JSON_TOO_MANY_VALUES", "",
              "the request holds more than " + std::to_string(limits::max_json_values) + " JSON values (at byte " +
                  std::to_string(i) + "), the cap; merge repeated layers with \"count\".");
      return std::nullopt;
    }
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const std::string what = e.what();
    const std::size_t colon = what.find(':');
    const std::string reason = colon == std::string::npos ? what : what.substr(std::min(colon + 2, what.size()));
    d.error("JSON_SYNTAX", "",
            "the request is not valid JSON (byte " + std::to_string(e.byte) + "): " + printable(reason, 300));
    return std::nullopt;
  } catch (const json::out_of_range& e) {  // a number beyond double's range, such as 1e400
    const std::string what = e.what();
    const std::size_t quote = what.find('\'');
    d.error("JSON_NUMBER_RANGE", "",
            "the request holds a number too large to represent: " +
                printable(quote == std::string::npos ? what : what.substr(quote), 100) +
                "; numbers must stay within about 1.8e308 (and within each field's cap).");
    return std::nullopt;
  }
}

}  // namespace ppb
