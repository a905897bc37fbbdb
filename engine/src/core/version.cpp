// The engine's version.
#include "ppb/core/version.hpp"

namespace ppb {

const char* version() { return "0.1.0"; }

}  // namespace ppb
