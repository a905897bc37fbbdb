// ppb.model.v1 documents in: every layer entry checked and expanded into the Model's layer list.
#include "ppb/io/model_reader.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/field_reader.hpp"
#include "io/plain_entry.hpp"
#include "ppb/core/json_text.hpp"
#include "ppb/core/limits.hpp"

namespace ppb {

using nlohmann::json;

namespace {

constexpr double kMiB = 1048576.0;

// What the zero-bubble and F&B schedules read beyond the times: the activation W still needs after B
// (the paper's M_W; absent means all of it, the safe choice) and the communication inside F and B that
// an F&B pair can hide. Each is a part of the layer's own figure and cannot exceed it.
void read_zero_bubble_costs(FieldReader& f, Layer& layer, Diagnostics& d) {
  // The part, or nothing after saying that it exceeds its whole.
  const auto part_of = [&](std::optional<double> part, const char* key, double whole,
                           const char* whole_key) -> std::optional<double> {
    if (!part || *part <= whole) return part;
    d.error("COST_PART_EXCEEDS", f.at(key),
            std::string(key) + " (" + number_text(*part) + ") is part of " + whole_key + " (" + number_text(whole) +
                ") and cannot exceed it.");
    return std::nullopt;
  };
  layer.weight_activation_mib =
      part_of(f.number("weight_activation_mib"), "weight_activation_mib", layer.activation_mib, "activation_mib");
  layer.flops = f.number("flops", {.max = limits::max_flops});
  layer.forward_comm_ms =
      part_of(f.number("forward_comm_ms"), "forward_comm_ms", layer.forward_ms, "forward_ms").value_or(0);
  layer.backward_comm_ms =
      part_of(f.number("backward_comm_ms"), "backward_comm_ms", layer.backward_ms, "backward_ms").value_or(0);
}

// The layer's times, static memory (params, three parts or one total), activation and send size.
void read_costs(FieldReader& f, const BytesPerParam& bytes, Layer& layer, Diagnostics& d) {
  f.require("forward_ms", "layer \"" + layer.name + "\" needs forward_ms (its forward time per micro batch).");
  layer.forward_ms = f.number("forward_ms").value_or(0);
  layer.backward_ms = f.number("backward_ms").value_or(2 * layer.forward_ms);
  layer.weight_backward_ms = f.number("weight_backward_ms").value_or(layer.backward_ms / 2);
  if (layer.weight_backward_ms > layer.backward_ms)
    d.error("WEIGHT_BACKWARD_EXCEEDS", f.at("weight_backward_ms"),
            "weight_backward_ms (" + number_text(layer.weight_backward_ms) + ") is part of backward_ms (" +
                number_text(layer.backward_ms) + ") and cannot exceed it.");
  const bool by_params = f.has("params");
  const bool by_parts = f.has("weights_mib") || f.has("grads_mib") || f.has("optimizer_mib");
  const bool by_total = f.has("static_mib");
  if (int(by_params) + int(by_parts) + int(by_total) > 1)
    d.error("STATIC_MEMORY_FORMS", f.path(),
            "layer \"" + layer.name +
                "\" states static memory more than one way; give params, or weights_mib/grads_mib/optimizer_mib, or "
                "static_mib.");
  if (auto params = f.number("params")) {
    layer.params = *params;
    if (auto experts = f.number("expert_params")) {
      if (*experts > *params)
        d.error("COST_PART_EXCEEDS", f.at("expert_params"),
                "expert_params (" + number_text(*experts) + ") is part of params (" + number_text(*params) +
                    ") and cannot exceed it.");
      else
        layer.expert_params = *experts;
    }
    layer.weights_mib = *params * bytes.weights / kMiB;
    layer.grads_mib = *params * bytes.grads / kMiB;
    layer.optimizer_mib = *params * bytes.optimizer / kMiB;
  }
  if (by_parts) {
    layer.weights_mib = f.number("weights_mib").value_or(0);
    layer.grads_mib = f.number("grads_mib").value_or(0);
    layer.optimizer_mib = f.number("optimizer_mib").value_or(0);
  }
  layer.other_static_mib = f.number("static_mib").value_or(0);
  layer.activation_mib = f.number("activation_mib").value_or(0);
  layer.send_mib = f.number("send_mib").value_or(0);
  read_zero_bubble_costs(f, layer, d);
}

// Costs from outside estimators, added to the layer's own figures and kept apart for reporting.
void read_components(FieldReader& f, Model& model, Layer& layer, Diagnostics& d) {
  const json* components = f.object("components");
  if (!components) return;
  for (auto it = components->begin(); it != components->end(); ++it) {
    const std::string path = f.at("components") + "/" + pointer_token(it.key());
    if (!it.value().is_object()) {
      d.error("TYPE_MISMATCH", path,
              "component " + quoted_input(it.key()) +
                  " must be an object of forward_ms, backward_ms, static_mib, activation_mib.");
      continue;
    }
    FieldReader c(it.value(), path, d);
    ComponentCost cost;
    cost.forward_ms = c.number("forward_ms").value_or(0);
    cost.backward_ms = c.number("backward_ms").value_or(0);
    cost.static_mib = c.number("static_mib").value_or(0);
    cost.activation_mib = c.number("activation_mib").value_or(0);
    auto named = std::find(model.component_names.begin(), model.component_names.end(), it.key());
    cost.component = static_cast<int>(named - model.component_names.begin());
    if (named == model.component_names.end()) model.component_names.push_back(it.key());
    layer.forward_ms += cost.forward_ms;
    layer.backward_ms += cost.backward_ms;
    layer.other_static_mib += cost.static_mib;
    layer.activation_mib += cost.activation_mib;
    layer.components.push_back(cost);
  }
}

// The recompute options the layer offers; new names join the model's list (every layer already
// read gets an empty slot for them). False when an option could not be read: the model's option
// list is then not what the document says.
bool read_recompute_options(FieldReader& f, Model& model, std::vector<Layer>& earlier, Layer& layer, Diagnostics& d) {
  layer.recompute.assign(model.recompute_options.size(), std::nullopt);
  const json* options = f.object("recompute");
  if (!options) return !f.has("recompute");
  bool ok = true;
  for (auto it = options->begin(); it != options->end(); ++it) {
    const std::string path = f.at("recompute") + "/" + pointer_token(it.key());
    if (static_cast<std::int64_t>(it.key().size()) > limits::max_name_length) {
      d.error("TOO_LONG", path,
              "a recompute option name is " + std::to_string(it.key().size()) + " bytes long, above the cap of " +
                  std::to_string(limits::max_name_length) + ".");
      ok = false;
      continue;
    }
    if (it.key() == "none" || it.key() == "layers" || it.key().empty()) {
      d.error("RECOMPUTE_OPTION_RESERVED", path,
              quoted_input(it.key()) + " cannot name a recompute option" +
                  (it.key() == "none" ? " (no recompute is always available)." : "."));
      ok = false;
      continue;
    }
    if (!it.value().is_object()) {
      d.error("TYPE_MISMATCH", path,
              "recompute option " + quoted_input(it.key()) + " must be an object with activation_mib and extra_ms.");
      ok = false;
      continue;
    }
    FieldReader o(it.value(), path, d);
    RecomputeCost cost;
    cost.activation_mib = o.number("activation_mib").value_or(0);
    cost.extra_ms = o.number("extra_ms").value_or(0);
    int index = model.option_index(it.key());
    // Every layer keeps a slot per option, so their number is capped before it multiplies.
    if (index < 0 && static_cast<std::int64_t>(model.recompute_options.size()) >= limits::max_recompute_options) {
      d.error("RECOMPUTE_OPTION_LIMIT", path,
              "the model offers more than " + std::to_string(limits::max_recompute_options) +
                  " distinct recompute options, the cap; " + quoted_input(it.key()) + " is one too many.");
      return false;  // once per layer entry is enough
    }
    if (index < 0) {
      model.recompute_options.push_back(it.key());
      for (auto& l : earlier) l.recompute.push_back(std::nullopt);
      layer.recompute.push_back(std::nullopt);
      index = static_cast<int>(model.recompute_options.size()) - 1;
    }
    layer.recompute[static_cast<std::size_t>(index)] = cost;
  }
  return ok;
}

// Reads one entry and appends its `count` layers. A problem with a cost is reported and the layers
// are still appended; false when the entry's place in the layer list is not known (not an object, a
// bad count or pin, a recompute option that could not be read), and then nothing is appended.
bool read_entry(const json& entry, const std::string& path, int entry_index, const BytesPerParam& bytes, Model& model,
                Diagnostics& d) {
  if (!entry.is_object()) {
    d.error("TYPE_MISMATCH", path, std::string("each layer entry must be an object, not ") + type_name(entry) + ".");
    return false;
  }
  FieldReader f(entry, path, d);
  Layer layer;
  layer.entry = entry_index;
  if (f.require("name", "layer entry " + std::to_string(entry_index) + " needs a \"name\"."))
    layer.name = f.string("name").value_or("");
  layer.kind = f.string("kind").value_or("");
  bool placed = true;
  const auto count = f.integer("count", {1, limits::max_layers, "LAYER_LIMIT"});
  if (f.has("count") && !count) placed = false;
  if (auto pin = f.string("pin")) {
    if (*pin == "first")
      layer.pin = Pin::first;
    else if (*pin == "last")
      layer.pin = Pin::last;
    else {
      d.error("PIN_INVALID", f.at("pin"), "pin must be \"first\" or \"last\", not " + quoted_input(*pin) + ".");
      placed = false;
    }
  } else if (f.has("pin")) {
    placed = false;
  }
  read_costs(f, bytes, layer, d);
  read_components(f, model, layer, d);
  if (!read_recompute_options(f, model, model.layers, layer, d)) placed = false;
  if (!placed) return false;
  const std::int64_t n = count.value_or(1);
  if (model.layer_count() + n > limits::max_layers) {
    d.error("LAYER_LIMIT", f.at("count"),
            "the model expands to more than " + std::to_string(limits::max_layers) +
                " layers, the cap; merge layers into blocks.");
    return false;
  }
  if (n == 1)
    model.layers.push_back(std::move(layer));
  else
    model.layers.insert(model.layers.end(), static_cast<std::size_t>(n), layer);
  return true;
}

// Pinned-first layers open the list and pinned-last layers close it; counts them.
bool check_pins(Model& model, const std::string& layers_path, Diagnostics& d) {
  int phase = 0;  // 0: pinned first, 1: body, 2: pinned last
  for (const Layer& layer : model.layers) {
    const int want = layer.pin == Pin::first ? 0 : layer.pin == Pin::none ? 1 : 2;
    if (want < phase) {
      d.error("PIN_ORDER", layers_path + "/" + std::to_string(layer.entry),
              "layer \"" + layer.name + "\" is pinned " + (layer.pin == Pin::first ? "first" : "to the body") +
                  " but comes after " + (phase == 2 ? "a layer pinned last" : "an unpinned layer") +
                  "; pinned-first layers must open the list and pinned-last layers close it.");
      return false;
    }
    phase = want;
    if (layer.pin == Pin::first) ++model.pinned_first;
    if (layer.pin == Pin::last) ++model.pinned_last;
  }
  return true;
}

}  // namespace

ParsedModel parse_model(const json& document, const std::string& path, const BytesPerParam& bytes, Diagnostics& d) {
  ParsedModel out;
  Model& model = out.model;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", path,
            std::string("the model must be a ppb.model.v1 object, not ") + type_name(document) + ".");
    return out;
  }
  FieldReader f(document, path, d);
  if (auto format = f.string("format"); format && *format != "ppb.model.v1")
    d.error("FORMAT_UNKNOWN", f.at("format"),
            "format " + quoted_input(*format) + " is not supported; this engine reads \"ppb.model.v1\".");
  model.name = f.string("name").value_or("");
  f.allow({"total_params", "mtp_params"});  // written by the transformer generator, informational here
  model.device_tokens_per_micro_batch = f.number("device_tokens_per_micro_batch", {.min_exclusive = true});
  // The bytes a device holds per parameter, as the generator writes them: they apply where the
  // request states no training state of its own (request_reader.cpp).
  for (const char* key : {"bytes_per_param", "expert_bytes_per_param"}) {
    const json* held = f.object(key);
    if (!held) continue;
    FieldReader b(*held, f.at(key), d);
    BytesPerParam stated;
    stated.weights = b.number("weights").value_or(stated.weights);
    stated.grads = b.number("grads").value_or(stated.grads);
    stated.optimizer = b.number("optimizer").value_or(stated.optimizer);
    (std::string(key) == "bytes_per_param" ? out.bytes_per_param : out.expert_bytes_per_param) = stated;
  }
  if (!f.require("layers", "the model needs a \"layers\" array.")) return out;
  const json* layers = f.array("layers", "layer entries");
  if (!layers) return out;
  if (layers->empty()) {
    d.error("LAYERS_EMPTY", f.at("layers"), "the model has no layers; give at least one.");
    return out;
  }
  if (static_cast<std::int64_t>(layers->size()) > limits::max_layers) {
    d.error("LAYER_LIMIT", f.at("layers"),
            "the model has " + std::to_string(layers->size()) + " entries, above the cap of " +
                std::to_string(limits::max_layers) + ".");
    return out;
  }
  bool placed = true;
  model.layers.reserve(layers->size());
  json entry;  // an entry the parse kept as text, built here one at a time (json_text.hpp)
  const std::string entries_path = f.at("layers") + "/";
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const json& value = (*layers)[i];
    if (value.is_binary()) {
      const auto& text = value.get_binary();
      if (read_plain_entry(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()),
                           static_cast<int>(i), bytes, model))
        continue;
    }
    if (!read_entry(read_deferred(value, entry), entries_path + std::to_string(i), static_cast<int>(i), bytes, model,
                    d))
      placed = false;
  }
  out.layers_known = check_pins(model, f.at("layers"), d) && placed;
  return out;
}

}  // namespace ppb
