// The one reader of request JSON fields: typed reads with ranges, and unknown-field warnings that
// never repeat a hostile name.
#include "field_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ppb {

using nlohmann::json;

namespace {

std::string str(std::int64_t n) { return std::to_string(n); }

// NEGATIVE only where no negative value is allowed at all; any other value below the minimum is
// OUT_OF_RANGE (0 for a count of at least 1, -2 for a coefficient above -1).
const char* below_code(double x, double min) { return x < 0 && min >= 0 ? "NEGATIVE" : "OUT_OF_RANGE"; }

std::string below_message(const std::string& what, double x, double min, bool exclusive) {
  return what + " is " + number_text(x) + "; it must be " + (exclusive ? "above " : "at least ") + number_text(min) +
         ".";
}

std::string over_message(const std::string& what, double x, double max, const char* code) {
  return what + " is " + number_text(x) +
         (std::string_view(code) == "OUT_OF_RANGE" ? "; it must be at most " : ", above the cap of ") +
         number_text(max) + ".";
}

}  // namespace

std::optional<double> read_number(const json& value, const std::string& path, const std::string& what,
                                  const NumberRange& range, Diagnostics& d) {
  if (!value.is_number()) {
    d.error("TYPE_MISMATCH", path, what + " must be a number, not " + type_name(value) + ".");
    return std::nullopt;
  }
  const double x = value.get<double>();
  if (!std::isfinite(x)) {
    d.error("NOT_FINITE", path, what + " must be a finite number.");
    return std::nullopt;
  }
  if (x < range.min || (range.min_exclusive && x == range.min)) {
    d.error(below_code(x, range.min), path, below_message(what, x, range.min, range.min_exclusive));
    return std::nullopt;
  }
  if (x > range.max) {
    d.error(range.over_code, path, over_message(what, x, range.max, range.over_code));
    return std::nullopt;
  }
  return x;
}

std::optional<std::int64_t> read_integer(const json& value, const std::string& path, const std::string& what,
                                         const IntegerRange& range, Diagnostics& d) {
  if (!value.is_number()) {
    d.error("TYPE_MISMATCH", path, what + " must be a whole number, not " + type_name(value) + ".");
    return std::nullopt;
  }
  const double x = value.get<double>();
  if (!std::isfinite(x) || std::floor(x) != x) {
    d.error("NOT_INTEGER", path, what + " must be a whole number, not " + number_text(x) + ".");
    return std::nullopt;
  }
  // Compared as doubles first: an integer beyond int64's range (2^64 - 1) still compares right.
  if (x < static_cast<double>(range.min)) {
    d.error(below_code(x, static_cast<double>(range.min)), path,
            what + " is " + number_text(x) + "; it must be at least " + str(range.min) + ".");
    return std::nullopt;
  }
  if (x > static_cast<double>(range.max)) {
    d.error(range.over_code, path, over_message(what, x, static_cast<double>(range.max), range.over_code));
    return std::nullopt;
  }
  return value.is_number_float()      ? static_cast<std::int64_t>(x)
         : value.is_number_unsigned() ? static_cast<std::int64_t>(value.get<std::uint64_t>())
                                      : value.get<std::int64_t>();
}

std::optional<std::string> read_string(const json& value, const std::string& path, const std::string& what,
                                       Diagnostics& d, std::int64_t max_length) {
  if (!value.is_string()) {
    d.error("TYPE_MISMATCH", path, what + " must be a string, not " + type_name(value) + ".");
    return std::nullopt;
  }
  const auto& s = value.get_ref<const std::string&>();
  if (static_cast<std::int64_t>(s.size()) > max_length) {
    d.error("TOO_LONG", path,
            what + " is " + std::to_string(s.size()) + " characters, above the cap of " + str(max_length) + ".");
    return std::nullopt;
  }
  return s;
}

std::optional<std::vector<std::int64_t>> read_integers(const json& value, const std::string& path,
                                                       const std::string& what, const IntegerRange& element,
                                                       Diagnostics& d) {
  if (!value.is_array()) {
    d.error("TYPE_MISMATCH", path, what + " must be a list of whole numbers, not " + type_name(value) + ".");
    return std::nullopt;
  }
  if (static_cast<std::int64_t>(value.size()) > limits::max_layers) {
    d.error(
        "TOO_LARGE", path,
        what + " has " + std::to_string(value.size()) + " entries, above the cap of " + str(limits::max_layers) + ".");
    return std::nullopt;
  }
  std::vector<std::int64_t> out;
  out.reserve(value.size());
  bool ok = true;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string index = std::to_string(i);
    if (auto v = read_integer(value[i], path + "/" + index, what + "[" + index + "]", element, d))
      out.push_back(*v);
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

const json* request_section(const json& request, std::string_view key, Diagnostics& d) {
  if (!request.is_object()) return nullptr;
  auto it = request.find(key);
  if (it == request.end()) return nullptr;
  if (!it->is_object()) {
    std::string path = "/";  // built by appending: GCC 12 warns on "/" + string (-Wrestrict)
    path += key;
    d.error("TYPE_MISMATCH", path, std::string(key) + " must be an object, not " + type_name(*it) + ".");
    return nullptr;
  }
  return &*it;
}

FieldReader::FieldReader(const json& object, std::string path, Diagnostics& diagnostics, std::string owner)
    : FieldReader(&object, std::move(path), diagnostics, std::move(owner)) {}

FieldReader::FieldReader(const json* object, std::string path, Diagnostics& diagnostics, std::string owner)
    : object_(object && object->is_object() ? object : nullptr),
      path_(std::move(path)),
      diagnostics_(diagnostics),
      owner_(std::move(owner)) {}

FieldReader::~FieldReader() {
  if (!object_ || all_known_) return;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (std::find(read_.begin(), read_.end(), &it.value()) != read_.end() || known_.count(it.key())) continue;
    // The path carries the name once, escaped; the sentence repeats it only when it is plain text.
    diagnostics_.warning("UNKNOWN_FIELD", at(it.key()),
                         plain_text(it.key())
                             ? "field \"" + it.key() + "\" is not part of " + owner_ + " and was ignored."
                             : "a field is not part of " + owner_ + " and was ignored; its name (" +
                                   std::to_string(it.key().size()) +
                                   " bytes) is not repeated here, the path holds it.");
  }
}

std::string FieldReader::at(std::string_view key) const { return path_ + "/" + pointer_token(std::string(key)); }

void FieldReader::allow(std::string_view key) { known_.emplace(key); }

void FieldReader::allow(std::initializer_list<const char*> keys) {
  for (const char* key : keys) known_.emplace(key);
}

void FieldReader::allow_all() { all_known_ = true; }

bool FieldReader::has(std::string_view key) { return get(key) != nullptr; }

const json* FieldReader::get(std::string_view key) {
  if (!object_) return nullptr;
  auto it = object_->find(key);
  if (it == object_->end()) return nullptr;
  read_.push_back(&*it);
  return &*it;
}

bool FieldReader::require(std::string_view key, const std::string& sentence) {
  if (has(key)) return true;
  diagnostics_.error("REQUIRED", at(key), sentence);
  return false;
}

std::optional<double> FieldReader::number(std::string_view key, const NumberRange& range) {
  const json* value = get(key);
  if (!value) return std::nullopt;
  // The common case, a finite number in range, without building the path the messages need.
  if (value->is_number()) {
    const double x = value->get<double>();
    if (std::isfinite(x) && x >= range.min && !(range.min_exclusive && x == range.min) && x <= range.max) return x;
  }
  return read_number(*value, at(key), std::string(key), range, diagnostics_);
}

std::optional<std::int64_t> FieldReader::integer(std::string_view key, const IntegerRange& range) {
  const json* value = get(key);
  if (!value) return std::nullopt;
  return read_integer(*value, at(key), std::string(key), range, diagnostics_);
}

std::optional<std::string> FieldReader::string(std::string_view key, std::int64_t max_length) {
  const json* value = get(key);
  if (!value) return std::nullopt;
  if (value->is_string() && static_cast<std::int64_t>(value->get_ref<const std::string&>().size()) <= max_length)
    return value->get<std::string>();
  return read_string(*value, at(key), std::string(key), diagnostics_, max_length);
}

std::optional<bool> FieldReader::boolean(std::string_view key) {
  const json* value = get(key);
  if (!value) return std::nullopt;
  if (!value->is_boolean()) {
    diagnostics_.error("TYPE_MISMATCH", at(key),
                       std::string(key) + " must be true or false, not " + type_name(*value) + ".");
    return std::nullopt;
  }
  return value->get<bool>();
}

const json* FieldReader::object(std::string_view key) {
  const json* value = get(key);
  if (!value || value->is_object()) return value;
  diagnostics_.error("TYPE_MISMATCH", at(key), std::string(key) + " must be an object, not " + type_name(*value) + ".");
  return nullptr;
}

const json* FieldReader::array(std::string_view key, const std::string& elements) {
  const json* value = get(key);
  if (!value || value->is_array()) return value;
  diagnostics_.error("TYPE_MISMATCH", at(key),
                     std::string(key) + " must be a list of " + elements + ", not " + type_name(*value) + ".");
  return nullptr;
}

std::optional<std::vector<std::int64_t>> FieldReader::integers(std::string_view key, const IntegerRange& element) {
  const json* value = get(key);
  if (!value) return std::nullopt;
  return read_integers(*value, at(key), std::string(key), element, diagnostics_);
}

}  // namespace ppb
