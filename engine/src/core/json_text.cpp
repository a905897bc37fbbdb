// Request text in, response text out: the size- and depth-guarded parse of a request, and the
// response writer that gives exactly json::dump()'s text.
#include "ppb/core/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

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

namespace {

// What a key at the top two levels of a document names: the way to /model/layers or /layers.
enum class Key : char { other, model, layers };

Key key_named(std::string_view key, std::size_t depth) {
  if (depth == 1 && key == "model") return Key::model;
  if ((depth == 1 || depth == 2) && key == "layers") return Key::layers;
  return Key::other;
}

// The byte spans of the objects in the layer lists deferred, found by the pass over the text before
// the parse, in the order of the text.
struct LayerSpans {
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // [first byte, last byte]
  bool usable = true;  // false where a key on the way is escaped, which this pass does not decode
};

// Builds the document as json::parse does (nlohmann's own DOM builder underneath), except that each
// object in /model/layers (and with DeferLayers::any_layers, in /layers) is kept as its text (a JSON binary value,
// which no JSON text can hold) rather than built: the model reader reads a plain entry straight from that text
// (io/plain_entry.hpp) and has read_deferred() parse any other. A profiler's file of 100,000 layer entries built whole
// is about 1.2 million map nodes alive at once, and took 1.0-1.1 s to parse and read; checked here and read one entry
// at a time, 0.17-0.35 s (native, 15 MiB, keep_model).
class LayerDeferringParser {
 public:
  LayerDeferringParser(json& result, std::string_view text, const LayerSpans& layers, bool document_layers)
      : dom_(result), text_(text), layers_(layers), document_layers_(document_layers) {}

  bool null() { return skipping_ > 0 || dom_.null(); }
  bool boolean(bool value) { return skipping_ > 0 || dom_.boolean(value); }
  bool number_integer(json::number_integer_t value) { return skipping_ > 0 || dom_.number_integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return skipping_ > 0 || dom_.number_unsigned(value); }
  bool number_float(json::number_float_t value, const std::string& text) {
    return skipping_ > 0 || dom_.number_float(value, text);
  }
  bool string(std::string& value) { return skipping_ > 0 || dom_.string(value); }
  bool binary(json::binary_t& value) { return skipping_ > 0 || dom_.binary(value); }
  bool key(std::string& key) {
    if (skipping_ > 0) return true;
    frames_.back().key = key_named(key, frames_.size());
    return dom_.key(key);
  }
  bool start_object(std::size_t elements) {
    if (skipping_ > 0 || in_layers()) {
      ++skipping_;
      return true;
    }
    frames_.push_back({Key::other, false});
    return dom_.start_object(elements);
  }
  bool end_object() {
    if (skipping_ > 0) {
      if (--skipping_ == 0) return kept_as_text();
      return true;
    }
    frames_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t elements) {
    if (skipping_ > 0) {
      ++skipping_;
      return true;
    }
    frames_.push_back({Key::other, true});
    return dom_.start_array(elements);
  }
  bool end_array() {
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    frames_.pop_back();
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return dom_.parse_error(position, token, error);  // throws it
  }
  [[nodiscard]] bool all_kept() const { return next_ == layers_.spans.size(); }

 private:
  // Inside the array at /model/layers: an object whose key is "model", an object whose key is
  // "layers", an array. Or, where asked, inside the array at /layers.
  [[nodiscard]] bool in_layers() const {
    if (document_layers_ && frames_.size() == 2 && !frames_[0].array && frames_[0].key == Key::layers &&
        frames_[1].array)
      return true;
    return frames_.size() == 3 && !frames_[0].array && frames_[0].key == Key::model && !frames_[1].array &&
           frames_[1].key == Key::layers && frames_[2].array;
  }
  bool kept_as_text() {
    if (next_ >= layers_.spans.size()) throw std::logic_error("a layer entry the pass over the text missed");
    const auto [first, last] = layers_.spans[next_++];
    json::binary_t text(std::vector<std::uint8_t>(text_.begin() + static_cast<std::ptrdiff_t>(first),
                                                  text_.begin() + static_cast<std::ptrdiff_t>(last) + 1));
    return dom_.binary(text);
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string_view text_;
  const LayerSpans& layers_;
  bool document_layers_;
  // Per open container: an array or not, and the key its current value sits under (other in an array).
  struct Frame {
    Key key;
    bool array;
  };
  std::vector<Frame> frames_;
  int skipping_ = 0;  // the depth inside a layer entry being kept as text
  std::size_t next_ = 0;
};

}  // namespace

std::optional<json> parse_json_text(std::string_view text, Diagnostics& d, DeferLayers defer) {
  if (static_cast<std::int64_t>(text.size()) > limits::max_input_bytes) {
    d.error("INPUT_TOO_LARGE", "",
            "the request has more than " + std::to_string(limits::max_input_bytes) + " bytes (64 MiB), the cap (" +
                std::to_string(text.size()) + " read); merge repeated layers with \"count\".");
    return std::nullopt;
  }
  // One pass over the text before the parser allocates anything: nesting depth and the number of
  // values (opening brackets and commas outside strings), and where asked, the spans of the objects
  // in /model/layers (and /layers). Syntax is left to the parser.
  int depth = 0;
  std::int64_t values = 1;
  bool in_string = false, escaped = false;
  // For the spans: per depth up to 4 (/model/layers/N), the container's bracket, whether a key comes
  // next, and the key its current value sits under.
  LayerSpans layers;
  layers.usable = defer != DeferLayers::none;
  const bool document_layers = defer == DeferLayers::any_layers;
  std::array<char, 5> bracket{};
  std::array<bool, 5> expect_key{};
  std::array<Key, 5> key{};
  bool string_is_key = false;
  std::size_t string_start = 0, entry_start = 0;
  int entry_depth = 0;  // the depth of the layer entry being passed over (4: /model/layers/N, 3: /layers/N), or 0
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"') {
        in_string = false;
        if (string_is_key && layers.usable) {
          const std::string_view name = text.substr(string_start + 1, i - string_start - 1);
          if (depth <= 2 && name.find('\\') != std::string_view::npos) layers.usable = false;
          key[static_cast<std::size_t>(depth)] = key_named(name, static_cast<std::size_t>(depth));
          expect_key[static_cast<std::size_t>(depth)] = false;
        }
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        string_start = i;
        string_is_key = depth >= 1 && depth <= 4 && expect_key[static_cast<std::size_t>(depth)];
        break;
      case '[':
      case '{':
        if (++depth > limits::max_json_depth) {
          d.error("JSON_TOO_DEEP", "",
                  "the request nests arrays and objects more than " + std::to_string(limits::max_json_depth) +
                      " levels deep (at byte " + std::to_string(i) + "), the cap; a request needs about 6.");
          return std::nullopt;
        }
        ++values;
        if (depth <= 4) {
          const auto at = static_cast<std::size_t>(depth);
          bracket[at] = c;
          expect_key[at] = c == '{';
          key[at] = Key::other;
          if (c == '{' && bracket[1] == '{' &&
              ((depth == 4 && key[1] == Key::model && bracket[2] == '{' && key[2] == Key::layers &&
                bracket[3] == '[') ||
               (document_layers && depth == 3 && key[1] == Key::layers && bracket[2] == '['))) {
            entry_start = i;
            entry_depth = depth;
          }
        }
        break;
      case ']':
      case '}':
        if (entry_depth > 0 && depth == entry_depth) {
          if (c == '}' && layers.usable) layers.spans.emplace_back(entry_start, i);
          entry_depth = 0;
        }
        if (depth > 0) --depth;
        break;
      case ',':
        ++values;
        if (depth >= 1 && depth <= 4 && bracket[static_cast<std::size_t>(depth)] == '{')
          expect_key[static_cast<std::size_t>(depth)] = true;
        break;
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
    if (!layers.usable) return json::parse(text.begin(), text.end());
    json document;
    LayerDeferringParser parser(document, text, layers, document_layers);
    json::sax_parse(text.begin(), text.end(), &parser);
    if (!parser.all_kept()) throw std::logic_error("a layer entry the parse did not meet");
    return document;
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

const json& read_deferred(const json& value, json& storage) {
  if (!value.is_binary()) return value;
  const auto& text = value.get_binary();
  storage = json::parse(text.begin(), text.end());
  return storage;
}

}  // namespace ppb
