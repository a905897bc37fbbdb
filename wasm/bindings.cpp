// embind bindings: one function per contract command, JSON string in, JSON string out. The engine
// already turns every failure into the contract's error JSON, so nothing escapes to JS.
#include <emscripten/bind.h>

#include <string>

#include "ppb/commands.hpp"

namespace {

std::string run(const std::string& command, const std::string& request) {
  return ppb::run_command(command, request).json;
}
std::string estimate(const std::string& request) { return run("estimate", request); }
std::string balance(const std::string& request) { return run("balance", request); }
std::string search(const std::string& request) { return run("search", request); }
std::string import_model(const std::string& request) { return run("import", request); }
std::string export_plan(const std::string& request) { return run("export", request); }
std::string engine_version() { return ppb::version(); }

}  // namespace

EMSCRIPTEN_BINDINGS(ppb) {
  emscripten::function("run", &run);
  emscripten::function("estimate", &estimate);
  emscripten::function("balance", &balance);
  emscripten::function("search", &search);
  emscripten::function("import", &import_model);
  emscripten::function("export", &export_plan);
  emscripten::function("version", &engine_version);
}
