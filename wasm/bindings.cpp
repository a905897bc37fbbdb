// embind bindings: one function per contract command, JSON string in, JSON string out. The engine
// already turns every failure into the contract's error JSON, so nothing escapes to JS.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>

#include "ppb/commands/commands.hpp"
#include "ppb/commands/work_session.hpp"
#include "ppb/core/version.hpp"
#include "ppb/io/catalogue_writer.hpp"
#include "ppb/io/schedules_writer.hpp"

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
// A request that names a kept model (keepModel) rather than holding one.
emscripten::val run_kept(const std::string& command, const std::string& request, int model) {
  return to_js(ppb::run_command(command, request, model).json);
}
// A model document (a ppb.model.v1 document or a request holding one) read once and kept: its id.
int keep_model(const std::string& document) { return ppb::keep_model(document); }
bool drop_model(int model) { return ppb::drop_model(model); }
emscripten::val estimate(const std::string& request) { return run("estimate", request); }
emscripten::val balance(const std::string& request) { return run("balance", request); }
emscripten::val search(const std::string& request) { return run("search", request); }
emscripten::val import_model(const std::string& request) { return run("import", request); }
emscripten::val export_plan(const std::string& request) { return run("export", request); }
emscripten::val compare(const std::string& request) { return run("compare", request); }
emscripten::val cluster(const std::string& request) { return run("cluster", request); }
std::string engine_version() { return ppb::version(); }

emscripten::val schedules() { return to_js(ppb::schedules_json()); }
emscripten::val device_presets() { return to_js(ppb::device_presets_json()); }
emscripten::val limits() { return to_js(ppb::limits_json()); }
// The commands the worker runs through WorkSession, as a JSON list.
emscripten::val sliced_commands() {
  std::string list = "[";
  for (const std::string& command : ppb::WorkSession::sliced_commands())
    list += (list.size() > 1 ? ",\"" : "\"") + command + "\"";
  return to_js(list + "]");
}

// Long work in slices: the progress JSON comes from the engine's progress writer, so the worker only
// forwards it.
emscripten::val work_error(const ppb::WorkSession& session) { return to_js(session.error().json); }
emscripten::val work_step(ppb::WorkSession& session, double slice_ms) {
  return to_js(session.step(slice_ms).progress_json);
}
emscripten::val work_result(ppb::WorkSession& session, bool cancelled) { return to_js(session.result(cancelled).json); }
// The best plan so far, or "" for work without one (a search).
emscripten::val work_best_so_far(ppb::WorkSession& session) {
  const std::optional<ppb::CommandOutput> best = session.best_so_far();
  return to_js(best ? best->json : std::string());
}

}  // namespace

EMSCRIPTEN_BINDINGS(ppb) {
  emscripten::function("run", &run);
  // Kept models: keepModel(document) reads a model once and returns its id; runKept(command, request,
  // id) and new WorkSession(command, request, id) take requests that name it; dropModel(id) forgets it.
  emscripten::function("keepModel", &keep_model);
  emscripten::function("dropModel", &drop_model);
  emscripten::function("runKept", &run_kept);
  emscripten::function("estimate", &estimate);
  emscripten::function("balance", &balance);
  emscripten::function("search", &search);
  emscripten::function("import", &import_model);
  emscripten::function("export", &export_plan);
  emscripten::function("compare", &compare);
  emscripten::function("cluster", &cluster);
  emscripten::function("version", &engine_version);
  emscripten::function("schedules", &schedules);
  emscripten::function("devicePresets", &device_presets);
  emscripten::function("limits", &limits);
  emscripten::function("slicedCommands", &sliced_commands);
  // Long work in slices (balance, search), one face for both: new WorkSession(command, request), then
  // error(), step(slice_ms) (the progress JSON), bestSoFar() and result(cancelled), each slice a fresh call.
  emscripten::class_<ppb::WorkSession>("WorkSession")
      .constructor<std::string, std::string>()
      .constructor<std::string, std::string, int>()
      .function("error", &work_error)
      .function("step", &work_step)
      .function("result", &work_result)
      .function("bestSoFar", &work_best_so_far);
}
