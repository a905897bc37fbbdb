// SAPP layer description file -> ppb.model.v1. The field meanings follow the SAPP balancer's own
// reading of the file (HyperParallel hyper_parallel/auto_parallel/sapp_ppb/utils/layer.py and
// utils/recompute.py, its latest published version; MindFormers toolkit/pipeline_balance has the
// same fields). Memory in the file is in "MB" of 2^20 bytes (the solver divides bytes by
// 1024 * 1024), which is the contract's MiB, so no conversion is needed.
#include "ppb/interop/sapp.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/field_reader.hpp"
#include "ppb/core/limits.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// One recompute kind of SAPP: the option name it becomes, the fields that describe it and the
// coefficient SAPP assumes when the file gives neither a time nor a coefficient (DEFAULT_COEF).
struct RecomputeKind {
  const char* option;
  const char* memory_field;
  const char* time_field;
  const char* coef_field;
  double default_coef;
};

constexpr std::array<RecomputeKind, 4> kRecomputeKinds = {{
    {"full", "memory_recompute", "recompute_time", "recompute_coef", 0.5},
    {"selective", "memory_select_rec", "select_rec_time", "select_rec_coef", 0.04},
    {"comm", "memory_select_comm", "select_comm_time", "select_comm_coef", 0.125},
    {"selective_comm", "memory_both_comm_select", "both_comm_select_time", "both_comm_select_coef", 0.165},
}};

// Fields SAPP reads on BODY entries only; on HEAD and TAIL it uses `time` and `memory_parameter`.
constexpr std::array<const char*, 16> kBodyOnlyFields = {
    "forward_time",     "backward_time",     "backward_coef",      "memory_activation",
    "memory_recompute", "memory_select_rec", "memory_select_comm", "memory_both_comm_select",
    "recompute_time",   "select_rec_time",   "select_comm_time",   "both_comm_select_time",
    "recompute_coef",   "select_rec_coef",   "select_comm_coef",   "both_comm_select_coef"};

// Unknown fields of a SAPP file are "not part of a SAPP layer description".
constexpr const char* kOwner = "a SAPP layer description";

// A coefficient may shorten a time, so it may be negative, but above -1.
constexpr NumberRange kCoefficient{.min = -1, .min_exclusive = true};

enum class SappType { head, body, tail };

struct Entry {
  SappType type = SappType::body;
  json layer;  // the ppb.model.v1 layer entry
  std::int64_t layers = 1;
};

// One entry of layers_description; nothing when it has an error (already reported).
std::optional<Entry> read_entry(const json& object, const std::string& path, Diagnostics& d) {
  if (!object.is_object()) {
    d.error("TYPE_MISMATCH", path,
            "each layers_description entry must be an object, not " + std::string(type_name(object)) + ".");
    return std::nullopt;
  }
  const std::size_t errors_before = d.errors().size();
  FieldReader r(object, path, d, kOwner);
  Entry entry;

  const auto name = r.string("name");
  if (!name && !r.has("name")) d.error("REQUIRED", r.at("name"), "each layers_description entry needs a \"name\".");
  const std::string label = name ? "\"" + *name + "\"" : "entry " + path.substr(path.rfind('/') + 1);

  const auto type = r.string("type");
  if (!type && !r.has("type")) {
    d.error("REQUIRED", r.at("type"), "layer " + label + " needs a \"type\": HEAD, BODY or TAIL.");
  } else if (type) {
    if (*type == "HEAD")
      entry.type = SappType::head;
    else if (*type == "BODY")
      entry.type = SappType::body;
    else if (*type == "TAIL")
      entry.type = SappType::tail;
    else {
      d.error("SAPP_TYPE_UNKNOWN", r.at("type"),
              "layer " + label + " has type " + quoted_input(*type) +
                  "; SAPP knows HEAD (pinned first), BODY "
                  "(repeated nb_layer times) and TAIL (pinned last).");
    }
  }
  const bool body = entry.type == SappType::body;
  const bool known_body = type && *type == "BODY";

  const auto time = r.number("time");
  if (!time && !r.has("time"))
    d.error("REQUIRED", r.at("time"), "layer " + label + " needs \"time\" (its forward time per micro batch, ms).");

  const std::int64_t max_layers = limits::max_layers;
  const auto nb_layer = r.integer("nb_layer", {1, max_layers, "LAYER_LIMIT"});
  if (known_body && !nb_layer && !r.has("nb_layer"))
    d.error("REQUIRED", r.at("nb_layer"),
            "BODY layer " + label + " needs \"nb_layer\" (how many such layers the model has).");
  if (!body && nb_layer && *nb_layer != 1)
    d.warning("SAPP_NB_LAYER_IGNORED", r.at("nb_layer"),
              "SAPP counts a HEAD or TAIL entry once whatever its nb_layer; " + label + " is imported as one layer.");

  const auto memory_parameter = r.number("memory_parameter");
  r.allow("model_name");  // multimodal bookkeeping in SAPP; no effect on costs

  if (!body) {
    for (const char* field : kBodyOnlyFields)
      if (r.has(field))
        d.warning("SAPP_FIELD_IGNORED", r.at(field),
                  std::string("SAPP reads ") + field +
                      " on BODY entries only; on HEAD and TAIL it uses time and "
                      "memory_parameter, and so does this import.");
    if (d.errors().size() != errors_before) return std::nullopt;
    // SAPP prices a HEAD or TAIL as `time` forward and 2 x `time` backward
    // (sapp_solver.py, _max_stage_bound_head_tail), and holds no activation for it.
    entry.layer = {{"name", *name},
                   {"kind", *type},
                   {"pin", entry.type == SappType::head ? "first" : "last"},
                   {"forward_ms", *time},
                   {"backward_ms", 2 * *time},
                   {"static_mib", memory_parameter.value_or(0)}};
    return entry;
  }

  const auto forward_time = r.number("forward_time");
  const auto backward_time = r.number("backward_time");
  const auto backward_coef = r.number("backward_coef", kCoefficient);
  const auto memory_activation = r.number("memory_activation");
  struct Kind {
    std::optional<double> memory, time, coef;
  };
  std::array<Kind, kRecomputeKinds.size()> kinds;
  for (std::size_t k = 0; k < kRecomputeKinds.size(); ++k) {
    kinds[k].memory = r.number(kRecomputeKinds[k].memory_field);
    kinds[k].time = r.number(kRecomputeKinds[k].time_field);
    kinds[k].coef = r.number(kRecomputeKinds[k].coef_field);
  }
  if (d.errors().size() != errors_before) return std::nullopt;

  // layer.py compute_internal_time: forward = forward_time, else time; the backward base is
  // 2 x time (from time, even when forward_time is given); the no-recompute backward is
  // backward_time, else (1 + backward_coef) x base; a recompute kind's backward is its *_time,
  // else (1 + coefficient) x base. A zero *_time counts as missing there, and here too.
  const double base_ms = 2 * *time;
  const bool explicit_backward = backward_time && *backward_time > 0;
  const double backward_ms = explicit_backward ? *backward_time : (1 + backward_coef.value_or(0)) * base_ms;
  json layer = {{"name", *name},
                {"kind", *type},
                {"count", *nb_layer},
                {"forward_ms", forward_time.value_or(*time)},
                {"backward_ms", backward_ms},
                {"static_mib", memory_parameter.value_or(0)},
                {"activation_mib", memory_activation.value_or(0)}};
  json recompute = json::object();
  for (std::size_t k = 0; k < kRecomputeKinds.size(); ++k) {
    const RecomputeKind& spec = kRecomputeKinds[k];
    const Kind& kind = kinds[k];
    // SAPP offers a kind exactly when its memory field is present (find_recompute_considered).
    if (!kind.memory) {
      for (const char* field : {spec.time_field, spec.coef_field})
        if (r.has(field))
          d.warning("SAPP_RECOMPUTE_IGNORED", r.at(field),
                    std::string(field) + " is ignored: without " + spec.memory_field + " SAPP does not offer \"" +
                        spec.option + "\" recompute for " + label + ".");
      continue;
    }
    double extra_ms = 0;
    if (kind.time && *kind.time > 0)
      extra_ms = *kind.time - backward_ms;
    else if (explicit_backward)
      extra_ms = (1 + kind.coef.value_or(spec.default_coef)) * base_ms - backward_ms;
    else
      extra_ms = (kind.coef.value_or(spec.default_coef) - backward_coef.value_or(0)) * base_ms;
    if (extra_ms < 0) {
      d.warning("SAPP_RECOMPUTE_FASTER", r.at(kind.time && *kind.time > 0 ? spec.time_field : spec.coef_field),
                std::string("\"") + spec.option + "\" recompute of " + label + " would make the backward " +
                    number_text(-extra_ms) + " ms shorter than without recompute; it is imported as adding 0 ms.");
      extra_ms = 0;
    }
    recompute[spec.option] = {{"activation_mib", *kind.memory}, {"extra_ms", extra_ms}};
  }
  if (!recompute.empty()) {
    layer["recompute"] = recompute;
    if (!memory_activation)
      d.warning("SAPP_ACTIVATION_MISSING", r.at("memory_activation"),
                "BODY layer " + label +
                    " offers recompute but has no memory_activation: SAPP then never runs it "
                    "without recompute, while here no recompute is always allowed and is taken to keep 0 MiB. "
                    "Give memory_activation.");
  }
  entry.layer = std::move(layer);
  entry.layers = *nb_layer;
  return entry;
}

}  // namespace

bool is_sapp_file(const json& document) { return document.is_object() && document.contains("layers_description"); }

std::optional<json> sapp_model(const json& file, const std::string& path, Diagnostics& d) {
  if (!file.is_object()) {
    d.error("TYPE_MISMATCH", path,
            "a SAPP layer description file is a JSON object, not " + std::string(type_name(file)) + ".");
    return std::nullopt;
  }
  const std::size_t errors_before = d.errors().size();
  FieldReader r(file, path, d, kOwner);
  const auto name = r.string("name");
  // The balancer's hints of which layer is pinned where and how many are split automatically;
  // the types of layers_description already say both.
  r.allow("pre_defined_layer");
  r.allow("auto_partition_layer");
  const json* description = r.get("layers_description");
  if (!description) {
    d.error("REQUIRED", r.at("layers_description"),
            "a SAPP file needs \"layers_description\", the list of HEAD, BODY and TAIL layers.");
    return std::nullopt;
  }
  const std::string list_path = r.at("layers_description");
  if (!description->is_array()) {
    d.error("TYPE_MISMATCH", list_path,
            "layers_description must be an array, not " + std::string(type_name(*description)) + ".");
    return std::nullopt;
  }
  if (description->empty()) {
    d.error("LAYERS_EMPTY", list_path, "layers_description is empty; give at least one BODY layer.");
    return std::nullopt;
  }
  if (static_cast<std::int64_t>(description->size()) > limits::max_layers) {
    d.error("LAYER_LIMIT", list_path,
            "layers_description has " + std::to_string(description->size()) + " entries, above the cap of " +
                std::to_string(limits::max_layers) + ".");
    return std::nullopt;
  }

  // SAPP sorts the layers by type, so HEAD entries open the model and TAIL entries close it
  // wherever they appear in the file; BODY entries keep their order.
  std::array<json, 3> by_type = {json::array(), json::array(), json::array()};
  std::int64_t expanded = 0;
  bool limit_reported = false;
  for (std::size_t i = 0; i < description->size(); ++i) {
    const std::string entry_path = list_path + "/" + std::to_string(i);
    auto entry = read_entry((*description)[i], entry_path, d);
    if (!entry) continue;
    expanded += entry->layers;
    if (expanded > limits::max_layers && !limit_reported) {
      d.error("LAYER_LIMIT", entry_path + (entry->type == SappType::body ? "/nb_layer" : ""),
              "the model expands to more than " + std::to_string(limits::max_layers) + " layers, the cap.");
      limit_reported = true;
    }
    by_type[static_cast<std::size_t>(entry->type)].push_back(std::move(entry->layer));
  }
  if (d.errors().size() != errors_before) return std::nullopt;
  if (by_type[static_cast<std::size_t>(SappType::body)].empty()) {
    d.error("SAPP_BODY_MISSING", list_path,
            "layers_description has no BODY entry; SAPP balances BODY layers across the stages, so give at least one.");
    return std::nullopt;
  }
  json layers = json::array();
  for (auto& group : by_type)
    for (auto& layer : group) layers.push_back(std::move(layer));
  return json{{"format", "ppb.model.v1"}, {"name", name.value_or("")}, {"layers", std::move(layers)}};
}

}  // namespace ppb
