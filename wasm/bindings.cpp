// embind bindings: one function per contract command, JSON string in, JSON string out. The engine
// already turns every failure into the contract's error JSON, so nothing escapes to JS.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdio>
#include <optional>
#include <string>

#include "ppb/commands/balance_session.hpp"
#include "ppb/commands/commands.hpp"
#include "ppb/commands/search_session.hpp"
#include "ppb/core/version.hpp"

namespace {

// A response as a JS string, decoded by TextDecoder straight from the module's memory. Returning the
// std::string instead makes embind's glue walk every byte in JS twice before decoding (looking for
// NULs), a tenth of a small estimate's time under node.
emscripten::val to_js(const std::string& json) {
  static const emscripten::val decoder = emscripten::val::global("TextDecoder").new_(std::string("utf-8"));
  return decoder.call<emscripten::val>("decode",
                                       emscripten::val(emscripten::typed_memory_view(json.size(), json.data())));
}

emscripten::val run(const std::string& command, const std::string& request) {
  return to_js(ppb::run_command(command, request).json);
}
emscripten::val estimate(const std::string& request) { return run("estimate", request); }
emscripten::val balance(const std::string& request) { return run("balance", request); }
emscripten::val search(const std::string& request) { return run("search", request); }
emscripten::val import_model(const std::string& request) { return run("import", request); }
emscripten::val export_plan(const std::string& request) { return run("export", request); }
emscripten::val compare(const std::string& request) { return run("compare", request); }
std::string engine_version() { return ppb::version(); }

// Progress as JSON, so the worker reads one shape for every answer.
std::string search_step(ppb::SearchSession& session, double slice_ms) {
  const ppb::SearchProgress p = session.step(slice_ms);
  return "{\"done\":" + std::to_string(p.done) + ",\"total\":" + std::to_string(p.total) +
         ",\"finished\":" + (p.finished ? "true" : "false") + "}";
}
// The JSON only: the worker tells a failure by its error codes, as for every other command.
emscripten::val search_error(const ppb::SearchSession& session) { return to_js(session.error().json); }
emscripten::val search_result(ppb::SearchSession& session, bool cancelled) {
  return to_js(session.result(cancelled).json);
}

// A number, or null when there is none.
std::string number_or_null(const std::optional<double>& x) {
  if (!x) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", *x);
  return text;
}

// Progress as JSON, as for the search.
std::string balance_step(ppb::BalanceSession& session, double slice_ms) {
  const ppb::BalanceProgress p = session.step(slice_ms);
  return "{\"phase\":\"" + p.phase + "\",\"nodes\":" + std::to_string(p.nodes) +
         ",\"simulations\":" + std::to_string(p.simulations) + ",\"incumbent_ms\":" + number_or_null(p.incumbent_ms) +
         ",\"lower_bound_ms\":" + number_or_null(p.lower_bound_ms) +
         ",\"finished\":" + (p.finished ? "true" : "false") + "}";
}
emscripten::val balance_error(const ppb::BalanceSession& session) { return to_js(session.error().json); }
emscripten::val balance_result(ppb::BalanceSession& session, bool cancelled) {
  return to_js(session.result(cancelled).json);
}
emscripten::val balance_best_so_far(ppb::BalanceSession& session) { return to_js(session.best_so_far().json); }

}  // namespace

EMSCRIPTEN_BINDINGS(ppb) {
  emscripten::function("run", &run);
  emscripten::function("estimate", &estimate);
  emscripten::function("balance", &balance);
  emscripten::function("search", &search);
  emscripten::function("import", &import_model);
  emscripten::function("export", &export_plan);
  emscripten::function("compare", &compare);
  emscripten::function("version", &engine_version);
  // A search in slices: the worker steps it, reports progress between slices and can stop it.
  emscripten::class_<ppb::SearchSession>("SearchSession")
      .constructor<std::string>()
      .function("error", &search_error)
      .function("step", &search_step)
      .function("result", &search_result);
  // A balance in slices: progress (phase, nodes, simulations, incumbent_ms, lower_bound_ms) between
  // them, each slice a fresh call; result(cancelled) before the end answers with the best plan so far,
  // and bestSoFar() gives it while the balance goes on.
  emscripten::class_<ppb::BalanceSession>("BalanceSession")
      .constructor<std::string>()
      .function("error", &balance_error)
      .function("step", &balance_step)
      .function("result", &balance_result)
      .function("bestSoFar", &balance_best_so_far);
}
