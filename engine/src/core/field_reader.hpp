// The one reader of request JSON (internal to the engine): typed reads of the fields of one object at
// a JSON Pointer path, with ranges and cap codes, required fields, integer lists and child objects;
// every problem becomes a diagnostic, and fields nobody asked about become UNKNOWN_FIELD warnings.
// Every parser of request JSON (the request, the model, the transformer description, SAPP files,
// the balance, export and search sections) reads through it, so a type, a range or an unknown field
// gets the same code and the same sentence wherever it is.
//
//   Diagnostics d;
//   FieldReader device(request["device"], "/device", d);
//   auto limit = device.number("memory_limit_mib", {.min = 0, .min_exclusive = true});
//   auto reserved = device.number("reserved_mib").value_or(0);
//   // leaving scope: every other field of /device is an UNKNOWN_FIELD warning
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "message_text.hpp"
#include "ppb/core/diagnostics.hpp"
#include "ppb/core/limits.hpp"

namespace ppb {

// The range of a number. Below `min` (or at it, when exclusive) is NEGATIVE for a value under 0
// where `min` is 0 or more, and OUT_OF_RANGE otherwise; above `max` is `over_code`, said as "it must be at most" for
// OUT_OF_RANGE (a bound of the field's meaning) and "above the cap of" for any other code (a cap of limits.hpp).
struct NumberRange {
  double min = 0;
  bool min_exclusive = false;
  double max = limits::max_quantity;
  const char* over_code = "TOO_LARGE";
};

// The range of a whole number, with the same codes as NumberRange.
struct IntegerRange {
  std::int64_t min = 0;
  std::int64_t max = limits::max_layers;
  const char* over_code = "TOO_LARGE";
};

// Reads of one value that is not a field of an object (a list element); `what` names it in messages.
std::optional<double> read_number(const nlohmann::json& value, const std::string& path, const std::string& what,
                                  const NumberRange& range, Diagnostics& diagnostics);
std::optional<std::int64_t> read_integer(const nlohmann::json& value, const std::string& path, const std::string& what,
                                         const IntegerRange& range, Diagnostics& diagnostics);
// A string of at most `max_length` bytes (TOO_LONG).
std::optional<std::string> read_string(const nlohmann::json& value, const std::string& path, const std::string& what,
                                       Diagnostics& diagnostics, std::int64_t max_length = limits::max_name_length);
// An array of at most limits::max_layers whole numbers, each in `element`; nothing (with every
// element's problem reported) when any element is wrong.
std::optional<std::vector<std::int64_t>> read_integers(const nlohmann::json& value, const std::string& path,
                                                       const std::string& what, const IntegerRange& element,
                                                       Diagnostics& diagnostics);

// A top-level section of a request read by one parser while another reads the rest (balance,
// export, search, the transformer's sections): null when the request is not an object or the
// section is absent; TYPE_MISMATCH ("<key> must be an object, not ...") and null when it is not an
// object.
const nlohmann::json* request_section(const nlohmann::json& request, std::string_view key, Diagnostics& diagnostics);

class FieldReader {
 public:
  // `owner` finishes the unknown-field warning: "field \"x\" is not part of <owner> and was ignored."
  FieldReader(const nlohmann::json& object, std::string path, Diagnostics& diagnostics, std::string owner = "ppb.v1");
  // A section that may be absent (nullptr): reads find nothing, required fields are still reported.
  FieldReader(const nlohmann::json* object, std::string path, Diagnostics& diagnostics, std::string owner = "ppb.v1");
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;
  // Warns about every field that was neither read nor allowed.
  ~FieldReader();

  [[nodiscard]] const std::string& path() const { return path_; }
  // Where this reader's problems go (for a reader of a child section).
  [[nodiscard]] Diagnostics& diagnostics() const { return diagnostics_; }
  // The JSON Pointer of a field: path() + "/" + the escaped key.
  [[nodiscard]] std::string at(std::string_view key) const;

  // Marks a field as known without reading it (read elsewhere, or informational).
  void allow(std::string_view key);
  void allow(std::initializer_list<const char*> keys);
  // Marks every field present as known (an object whose keys are data, not fields).
  void allow_all();
  // Whether the field is present (and marks it known).
  [[nodiscard]] bool has(std::string_view key);
  // The field's value, or null when it is absent (marks it known).
  const nlohmann::json* get(std::string_view key);
  // REQUIRED with `sentence` when the field is absent; returns whether it is present.
  bool require(std::string_view key, const std::string& sentence);

  // Typed reads: nothing when the field is absent or wrong (and then a diagnostic says why).
  std::optional<double> number(std::string_view key, const NumberRange& range = {});
  std::optional<std::int64_t> integer(std::string_view key, const IntegerRange& range);
  // At most `max_length` bytes (TOO_LONG).
  std::optional<std::string> string(std::string_view key, std::int64_t max_length = limits::max_name_length);
  std::optional<bool> boolean(std::string_view key);
  // A child object (TYPE_MISMATCH when present but not an object).
  const nlohmann::json* object(std::string_view key);
  // An array (TYPE_MISMATCH "<key> must be a list of <elements>, not ..." when present but not one).
  const nlohmann::json* array(std::string_view key, const std::string& elements);
  std::optional<std::vector<std::int64_t>> integers(std::string_view key, const IntegerRange& element);

 private:
  const nlohmann::json* object_;
  std::string path_;
  Diagnostics& diagnostics_;
  std::string owner_;
  // Fields allowed by name, and the values read (by address: a reader of a model's layer reads
  // about ten fields, and keeping names cost an allocation each).
  std::set<std::string, std::less<>> known_;
  std::vector<const nlohmann::json*> read_;
  bool all_known_ = false;
};

}  // namespace ppb
