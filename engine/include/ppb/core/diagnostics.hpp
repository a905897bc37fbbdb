// Problems found in a request, as values: a stable code, the JSON Pointer of the offending
// field and a sentence a person can act on. Validation collects all of them instead of
// stopping at the first, so a user fixes a request in one round trip.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ppb/core/limits.hpp"

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
  // At most limits::max_diagnostics of each kind are kept; the rest are only counted, so that a
  // request with 100,000 bad entries gets a readable answer in linear time.
  void error(std::string code, std::string path, std::string message) { errors_.add(code, path, message); }
  void warning(std::string code, std::string path, std::string message) { warnings_.add(code, path, message); }
  // Every problem of `other` in its order, as if each had been reported here (its unlisted ones
  // counted): what a reader kept from earlier says in a later request.
  void add_all(const Diagnostics& other) {
    errors_.add_all(other.errors_);
    warnings_.add_all(other.warnings_);
  }
  [[nodiscard]] bool ok() const { return errors_.listed.empty(); }
  [[nodiscard]] const std::vector<Diagnostic>& errors() const { return errors_.listed; }
  [[nodiscard]] const std::vector<Diagnostic>& warnings() const { return warnings_.listed; }
  // Problems found beyond the cap and not listed.
  [[nodiscard]] std::int64_t unlisted_errors() const { return errors_.unlisted; }
  [[nodiscard]] std::int64_t unlisted_warnings() const { return warnings_.unlisted; }

 private:
  struct List {
    std::vector<Diagnostic> listed;
    std::set<std::pair<std::string, std::string>> seen;  // (code, path) of the listed ones
    std::int64_t unlisted = 0;

    void add(std::string& code, std::string& path, std::string& message) {
      if (seen.count({code, path})) return;
      if (static_cast<std::int64_t>(listed.size()) >= limits::max_diagnostics) {
        ++unlisted;
        return;
      }
      seen.emplace(code, path);
      listed.push_back({std::move(code), std::move(path), std::move(message)});
    }
    void add_all(const List& other) {
      for (Diagnostic copy : other.listed) add(copy.code, copy.path, copy.message);
      unlisted += other.unlisted;
    }
  };

  List errors_;
  List warnings_;
};

// JSON Pointer escaping (RFC 6901): "~" becomes "~0", "/" becomes "~1".
std::string pointer_token(const std::string& key);

}  // namespace ppb
