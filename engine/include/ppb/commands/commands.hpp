// The commands of the contract (estimate, balance, search, import, export) as one entry point
// from a JSON string to a JSON string, shared by the CLI and the WASM module. Never throws.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "ppb/io/kept_models.hpp"

namespace ppb {

struct CommandOutput {
  std::string json;   // the contract's response: {"ok": true, ...} or {"ok": false, "errors": [...]}
  int exit_code = 0;  // 0 result, 2 invalid request, 1 internal failure
};

CommandOutput run_command(std::string_view command, std::string_view request_json);
// The command on a request that names a kept model (kept_models.hpp) rather than holding one: the
// answer run_command gives the request with that document's model in "model" (any "model" of
// `request_json` is replaced). MODEL_NOT_KEPT when no model has the id; import, which writes its
// document back out, takes none.
CommandOutput run_command(std::string_view command, std::string_view request_json, KeptModelId model);

// The contract's answer to an exception that escaped a command (a broken invariant): OUT_OF_MEMORY
// for std::bad_alloc, INTERNAL for anything else, exit status 1 either way.
//   failure_output(std::make_exception_ptr(std::bad_alloc())).exit_code;  // 1
CommandOutput failure_output(std::exception_ptr failure);

}  // namespace ppb
