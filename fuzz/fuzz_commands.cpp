// libFuzzer target over the engine's one entry point, ppb::run_command(command, text), for every
// command. The first byte picks the command ('e' estimate, 'b' balance, 'i' import, 'x' export,
// 's' search, 'c' compare, 'k' cluster; any other byte by its value mod 7), the rest is the request
// text.
//
// What counts as a finding, beyond the sanitizers' own reports: a response that is not JSON, does
// not follow the contract's envelope, or reports INTERNAL or OUT_OF_MEMORY (a broken invariant or a
// runaway, never an answer to bad input).
//
// The fuzzer is after crashes, not slow inputs: a request that parses is first scaled down (degrees,
// micro batches, layer counts, balance and search budgets), so that every run is milliseconds. The
// caps themselves are tested at full size by tests/engine/limits_test.cpp and the bad-input corpus.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ppb/commands/commands.hpp"
#include "ppb/core/diagnostics.hpp"
#include "ppb/io/io.hpp"

namespace {

using nlohmann::json;

constexpr const char* kCommands[] = {"estimate", "balance", "import", "export", "search", "compare", "cluster"};

const char* command_of(std::uint8_t byte) {
  switch (byte) {
    case 'e': return "estimate";
    case 'b': return "balance";
    case 'i': return "import";
    case 'x': return "export";
    case 's': return "search";
    case 'c': return "compare";
    case 'k': return "cluster";
    default: return kCommands[byte % 7];
  }
}

[[noreturn]] void finding(const char* what, const std::string& response) {
  std::fprintf(stderr, "ppb_fuzz: %s\nresponse: %.2000s\n", what, response.c_str());
  std::abort();
}

// Lowers a number field to `cap` when it is above it (other values are left for the engine to judge).
void at_most(json& object, const char* key, double cap) {
  if (!object.is_object()) return;
  auto it = object.find(key);
  if (it != object.end() && it->is_number() && it->get<double>() > cap) *it = cap;
}

// Keeps at most `n` entries of an array field.
void first_entries(json& object, const char* key, std::size_t n) {
  if (!object.is_object()) return;
  auto it = object.find(key);
  if (it != object.end() && it->is_array() && it->size() > n)
    it->erase(it->begin() + static_cast<std::ptrdiff_t>(n), it->end());
}

json* child(json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// Expanded layers of a layer list: counts above 64 are lowered, and past 256 layers in all every
// count becomes 1, so that PPB's work stays small.
void small_counts(json* list, const char* count_key) {
  if (!list || !list->is_array()) return;
  double total = 0;
  for (auto& entry : *list) {
    at_most(entry, count_key, 64);
    const json* count = entry.is_object() && entry.contains(count_key) ? &entry[count_key] : nullptr;
    total += count && count->is_number() && count->get<double>() > 1 ? count->get<double>() : 1;
  }
  if (total > 256)
    for (auto& entry : *list) at_most(entry, count_key, 1);
}

void scale_down(json& request, std::string_view command) {
  if (!request.is_object()) return;
  if (json* pipeline = child(request, "pipeline")) {
    at_most(*pipeline, "pp_degree", 16);
    at_most(*pipeline, "vpp_degree", 4);
    at_most(*pipeline, "micro_batch_num", 64);
  }
  if (json* training = child(request, "training")) at_most(*training, "global_batch_size", 512);
  if (json* model = child(request, "model")) small_counts(child(*model, "layers"), "count");
  small_counts(child(request, "layers"), "count");  // import of a model document
  small_counts(child(request, "layers_description"), "nb_layer");
  if (json* sapp = child(request, "sapp")) small_counts(child(*sapp, "layers_description"), "nb_layer");
  if (json* transformer = child(request, "transformer")) at_most(*transformer, "num_layers", 64);
  if (command == "balance" || command == "search") {
    json* balance = child(request, "balance");
    if (!balance) balance = &(request["balance"] = json::object());
    if (balance->is_object()) {
      at_most(*balance, "time_budget_ms", 100);
      if (!balance->contains("time_budget_ms")) (*balance)["time_budget_ms"] = 100;
      at_most(*balance, "max_candidates", 50);
      at_most(*balance, "offset_range", 2);
    }
  }
  if (command == "search") {
    json* search = child(request, "search");
    if (!search) search = &(request["search"] = json::object());
    if (search->is_object()) {
      for (const char* list : {"pp_degree", "vpp_degree", "micro_batch_num", "schedule"})
        first_entries(*search, list, 3);
      at_most(*search, "time_budget_ms", 300);
      if (!search->contains("time_budget_ms")) (*search)["time_budget_ms"] = 300;
      at_most(*search, "candidate_time_ms", 20);
      at_most(*search, "max_candidates", 20);
      if (json* pp = child(*search, "pp_degree"); pp && pp->is_array())
        for (auto& v : *pp)
          if (v.is_number() && v.get<double>() > 16) v = 16;
      if (json* m = child(*search, "micro_batch_num"); m && m->is_array())
        for (auto& v : *m)
          if (v.is_number() && v.get<double>() > 64) v = 64;
    }
  }
}

// The contract's envelope: {"ok": true, "command", "result"} or {"ok": false, "errors": [...]}.
void check_response(const ppb::CommandOutput& out) {
  if (!json::accept(out.json)) finding("the response is not JSON (or not UTF-8)", out.json);
  const json response = json::parse(out.json);
  if (!response.is_object() || !response.contains("ok") || !response["ok"].is_boolean())
    finding("the response has no boolean \"ok\"", out.json);
  if (response["ok"]) {
    if (out.exit_code != 0 || !response.contains("result"))
      finding("a result without exit code 0 or \"result\"", out.json);
    return;
  }
  const json& errors = response.value("errors", json());
  if (!errors.is_array() || errors.empty()) finding("an error response without errors", out.json);
  for (const auto& e : errors) {
    if (!e.is_object() || !e.value("code", json()).is_string() || !e.value("path", json()).is_string() ||
        !e.value("message", json()).is_string())
      finding("an error without code, path and message", out.json);
    const std::string code = e["code"];
    if (code == "INTERNAL" || code == "OUT_OF_MEMORY") finding("internal failure", out.json);
  }
  if (out.exit_code != 2) finding("an invalid request without exit code 2", out.json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view command = command_of(data[0]);
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  // Requests that pass the input caps are scaled down and sent re-serialised; the rest go as they are.
  ppb::Diagnostics d;
  if (auto request = ppb::parse_json_text(text, d)) {
    scale_down(*request, command);
    text = request->dump();
  }
  check_response(ppb::run_command(command, text));
  return 0;
}
