// embind bindings: one function per contract command, JSON string in, JSON string out. The engine
// already turns every failure into the contract's error JSON, so nothing escapes to JS.
#include <emscripten/bind.h>

#include <string>

#include "ppb/commands.hpp"
#include "ppb/search.hpp"

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

// Progress as JSON, so the worker reads one shape for every answer.
std::string search_step(ppb::SearchSession& session, double slice_ms) {
  const ppb::SearchProgress p = session.step(slice_ms);
  return "{\"done\":" + std::to_string(p.done) + ",\"total\":" + std::to_string(p.total) +
         ",\"finished\":" + (p.finished ? "true" : "false") + "}";
}
std::string search_error(const ppb::SearchSession& session) { return session.error(); }
std::string search_result(ppb::SearchSession& session, bool cancelled) { return session.result(cancelled); }

}  // namespace

EMSCRIPTEN_BINDINGS(ppb) {
  emscripten::function("run", &run);
  emscripten::function("estimate", &estimate);
  emscripten::function("balance", &balance);
  emscripten::function("search", &search);
  emscripten::function("import", &import_model);
  emscripten::function("export", &export_plan);
  emscripten::function("version", &engine_version);
  // A search in slices: the worker steps it, reports progress between slices and can stop it.
  emscripten::class_<ppb::SearchSession>("SearchSession")
      .constructor<std::string>()
      .function("error", &search_error)
      .function("step", &search_step)
      .function("result", &search_result);
}
