// The engine's version, as written into exports, traces and `ppb --version`.
#pragma once

namespace ppb {

const char* version();

}  // namespace ppb
