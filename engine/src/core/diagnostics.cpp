// JSON Pointer escaping of diagnostics' paths.
#include "ppb/core/diagnostics.hpp"

namespace ppb {

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace ppb
