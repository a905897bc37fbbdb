// Problems found in a request, as values: a stable code, the JSON Pointer of the offending
// field and a sentence a person can act on. Validation collects all of them instead of
// stopping at the first, so a user fixes a request in one round trip.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ppb {

struct Diagnostic {
  std::string code;     // stable identifier, e.g. "OFFSET_SUM"
  std::string path;     // JSON Pointer into the request, e.g. "/pipeline/layer_offset"
  std::string message;  // what is wrong and what would be right
};

class Diagnostics {
 public:
  // A problem already reported with the same code at the same path is not repeated (two readers
  // of one section, such as the transformer generator and the request parser, may both see it).
  void error(std::string code, std::string path, std::string message) { add(errors_, code, path, message); }
  void warning(std::string code, std::string path, std::string message) { add(warnings_, code, path, message); }
  [[nodiscard]] bool ok() const { return errors_.empty(); }
  [[nodiscard]] const std::vector<Diagnostic>& errors() const { return errors_; }
  [[nodiscard]] const std::vector<Diagnostic>& warnings() const { return warnings_; }

 private:
  static void add(std::vector<Diagnostic>& list, std::string& code, std::string& path, std::string& message) {
    for (const auto& d : list)
      if (d.code == code && d.path == path) return;
    list.push_back({std::move(code), std::move(path), std::move(message)});
  }

  std::vector<Diagnostic> errors_;
  std::vector<Diagnostic> warnings_;
};

// JSON Pointer escaping (RFC 6901): "~" becomes "~0", "/" becomes "~1".
std::string pointer_token(const std::string& key);

}  // namespace ppb
