// JSON parsing with complete validation, and response serialisation.
#include "ppb/io.hpp"

#include "field_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string_view>

#include "ppb/limits.hpp"
#include "ppb/plan.hpp"
#include "ppb/transformer.hpp"

namespace ppb {

using nlohmann::json;

namespace {

constexpr double kMiB = 1048576.0;
// An entry of a partition or recompute list: any index or count of a model within the layer cap.
constexpr IntegerRange kPartitionEntry{-limits::max_layers, limits::max_layers, "OUT_OF_RANGE"};

void parse_layer(const json& entry, const std::string& path, int entry_index, const BytesPerParam& bytes,
                 Model& model, std::vector<Layer>& out, Diagnostics& d) {
  if (!entry.is_object()) {
    d.error("TYPE_MISMATCH", path, "each layer entry must be an object, not " + std::string(type_name(entry)) + ".");
    return;
  }
  FieldReader f(entry, path, d);
  Layer layer;
  layer.entry = entry_index;
  bool ok = true;
  if (auto name = f.string("name")) layer.name = *name;
  else if (!f.has("name")) {
    d.error("REQUIRED", f.at("name"), "layer entry " + std::to_string(entry_index) + " needs a \"name\".");
    ok = false;
  } else ok = false;
  layer.kind = f.string("kind").value_or("");
  const auto count = f.integer("count", {1, limits::max_layers, "LAYER_LIMIT"});
  if (f.has("count") && !count) ok = false;
  if (auto pin = f.string("pin")) {
    if (*pin == "first") layer.pin = Pin::first;
    else if (*pin == "last") layer.pin = Pin::last;
    else {
      d.error("PIN_INVALID", f.at("pin"), "pin must be \"first\" or \"last\", not " + quoted_input(*pin) + ".");
      ok = false;
    }
  }
  const auto forward = f.number("forward_ms");
  if (!forward && !f.has("forward_ms")) {
    d.error("REQUIRED", f.at("forward_ms"), "layer \"" + layer.name + "\" needs forward_ms (its forward time per micro batch).");
    ok = false;
  }
  layer.forward_ms = forward.value_or(0);
  layer.backward_ms = f.number("backward_ms").value_or(2 * layer.forward_ms);
  layer.weight_backward_ms = f.number("weight_backward_ms").value_or(layer.backward_ms / 2);
  if (layer.weight_backward_ms > layer.backward_ms) {
    d.error("WEIGHT_BACKWARD_EXCEEDS", f.at("weight_backward_ms"),
            "weight_backward_ms (" + number_text(layer.weight_backward_ms) + ") is part of backward_ms (" +
                number_text(layer.backward_ms) + ") and cannot exceed it.");
    ok = false;
  }
  const bool by_params = f.has("params");
  const bool by_parts = f.has("weights_mib") || f.has("grads_mib") || f.has("optimizer_mib");
  const bool by_total = f.has("static_mib");
  if (int(by_params) + int(by_parts) + int(by_total) > 1) {
    d.error("STATIC_MEMORY_FORMS", path,
            "layer \"" + layer.name + "\" states static memory more than one way; give params, or "
            "weights_mib/grads_mib/optimizer_mib, or static_mib.");
    ok = false;
  }
  if (auto params = f.number("params")) {
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
  if (const json* components = f.object("components")) {
    for (auto it = components->begin(); it != components->end(); ++it) {
      const std::string cpath = f.at("components") + "/" + pointer_token(it.key());
      if (!it.value().is_object()) {
        d.error("TYPE_MISMATCH", cpath, "component " + quoted_input(it.key()) + " must be an object of forward_ms, backward_ms, static_mib, activation_mib.");
        ok = false;
        continue;
      }
      FieldReader cf(it.value(), cpath, d);
      ComponentCost cost;
      cost.forward_ms = cf.number("forward_ms").value_or(0);
      cost.backward_ms = cf.number("backward_ms").value_or(0);
      cost.static_mib = cf.number("static_mib").value_or(0);
      cost.activation_mib = cf.number("activation_mib").value_or(0);
      auto named = std::find(model.component_names.begin(), model.component_names.end(), it.key());
      cost.component = static_cast<int>(named - model.component_names.begin());
      if (named == model.component_names.end()) model.component_names.push_back(it.key());
      // The layer's own figures include the component; the list keeps them apart for reporting.
      layer.forward_ms += cost.forward_ms;
      layer.backward_ms += cost.backward_ms;
      layer.other_static_mib += cost.static_mib;
      layer.activation_mib += cost.activation_mib;
      layer.components.push_back(cost);
    }
  }
  layer.recompute.assign(model.recompute_options.size(), std::nullopt);
  if (const json* rc = f.object("recompute")) {
    for (auto it = rc->begin(); it != rc->end(); ++it) {
      const std::string opath = f.at("recompute") + "/" + pointer_token(it.key());
      if (static_cast<std::int64_t>(it.key().size()) > limits::max_name_length) {
        d.error("TOO_LONG", opath, "a recompute option name is " + std::to_string(it.key().size()) +
                                       " bytes long, above the cap of " + std::to_string(limits::max_name_length) + ".");
        ok = false;
        continue;
      }
      if (it.key() == "none" || it.key() == "layers" || it.key().empty()) {
        d.error("RECOMPUTE_OPTION_RESERVED", opath,
                quoted_input(it.key()) + " cannot name a recompute option" +
                    (it.key() == "none" ? " (no recompute is always available)." : "."));
        ok = false;
        continue;
      }
      if (!it.value().is_object()) {
        d.error("TYPE_MISMATCH", opath, "recompute option " + quoted_input(it.key()) + " must be an object with activation_mib and extra_ms.");
        ok = false;
        continue;
      }
      FieldReader of(it.value(), opath, d);
      RecomputeCost cost;
      cost.activation_mib = of.number("activation_mib").value_or(0);
      cost.extra_ms = of.number("extra_ms").value_or(0);
      int index = model.option_index(it.key());
      // Every layer keeps a slot per option, so their number is capped before it multiplies.
      if (index < 0 && static_cast<std::int64_t>(model.recompute_options.size()) >= limits::max_recompute_options) {
        d.error("RECOMPUTE_OPTION_LIMIT", opath,
                "the model offers more than " + std::to_string(limits::max_recompute_options) +
                    " distinct recompute options, the cap; " + quoted_input(it.key()) + " is one too many.");
        ok = false;
        break;  // once per layer entry is enough
      }
      if (index < 0) {
        model.recompute_options.push_back(it.key());
        for (auto& l : out) l.recompute.push_back(std::nullopt);
        layer.recompute.push_back(std::nullopt);
        index = static_cast<int>(model.recompute_options.size()) - 1;
      }
      layer.recompute[static_cast<std::size_t>(index)] = cost;
    }
  }
  if (!ok) return;
  const std::int64_t n = count.value_or(1);
  if (static_cast<std::int64_t>(out.size()) + n > limits::max_layers) {
    d.error("LAYER_LIMIT", f.at("count"), "the model expands to more than " + std::to_string(limits::max_layers) +
                                              " layers, the cap; merge layers into blocks.");
    return;
  }
  out.insert(out.end(), static_cast<std::size_t>(n), layer);
}

}  // namespace

Model parse_model(const json& document, const std::string& path, const BytesPerParam& bytes, Diagnostics& d) {
  Model model;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", path, "the model must be a ppb.model.v1 object, not " + std::string(type_name(document)) + ".");
    return model;
  }
  FieldReader f(document, path, d);
  if (auto format = f.string("format"); format && *format != "ppb.model.v1")
    d.error("FORMAT_UNKNOWN", f.at("format"), "format " + quoted_input(*format) + " is not supported; this engine reads \"ppb.model.v1\".");
  model.name = f.string("name").value_or("");
  f.allow("bytes_per_param");  // written by the transformer generator, informational here
  f.allow("total_params");
  const json* layers = f.get("layers");
  if (!layers) {
    d.error("REQUIRED", f.at("layers"), "the model needs a \"layers\" array.");
    return model;
  }
  if (!layers->is_array()) {
    d.error("TYPE_MISMATCH", f.at("layers"), "layers must be an array, not " + std::string(type_name(*layers)) + ".");
    return model;
  }
  if (layers->empty()) {
    d.error("LAYERS_EMPTY", f.at("layers"), "the model has no layers; give at least one.");
    return model;
  }
  if (static_cast<std::int64_t>(layers->size()) > limits::max_layers) {
    d.error("LAYER_LIMIT", f.at("layers"), "the model has " + std::to_string(layers->size()) + " entries, above the cap of " +
                                               std::to_string(limits::max_layers) + ".");
    return model;
  }
  for (std::size_t i = 0; i < layers->size(); ++i)
    parse_layer((*layers)[i], f.at("layers") + "/" + std::to_string(i), static_cast<int>(i), bytes, model, model.layers, d);
  // Pinned-first layers open the list and pinned-last layers close it.
  int phase = 0;  // 0: pinned first, 1: body, 2: pinned last
  for (const Layer& layer : model.layers) {
    const int want = layer.pin == Pin::first ? 0 : layer.pin == Pin::none ? 1 : 2;
    if (want < phase) {
      d.error("PIN_ORDER", f.at("layers") + "/" + std::to_string(layer.entry),
              "layer \"" + layer.name + "\" is pinned " + (layer.pin == Pin::first ? "first" : "to the body") +
                  " but comes after " + (phase == 2 ? "a layer pinned last" : "an unpinned layer") +
                  "; pinned-first layers must open the list and pinned-last layers close it.");
      break;
    }
    phase = want;
    if (layer.pin == Pin::first) ++model.pinned_first;
    if (layer.pin == Pin::last) ++model.pinned_last;
  }
  return model;
}

Request parse_request(const json& document, Diagnostics& d) {
  Request request;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", "", "the request must be a JSON object, not " + std::string(type_name(document)) + ".");
    return request;
  }
  FieldReader top(document, "", d);
  for (const char* section : {"balance", "search", "export", "transformer", "parallel"}) top.allow(section);

  if (const json* training = top.object("training")) {
    FieldReader f(*training, "/training", d);
    for (const char* key : {"precision", "distributed_optimizer", "recompute_options"}) f.allow(key);  // transformer
    for (const char* key : {"world_size", "tp_degree", "cp_degree", "ep_degree"}) f.allow(key);  // search coupling
    request.training.global_batch_size = f.integer("global_batch_size", {1, limits::max_batch});
    request.training.micro_batch_size = f.integer("micro_batch_size", {1, limits::max_batch});
    request.training.dp_degree = f.integer("dp_degree", {1, limits::max_batch});
    if (const json* bpp = f.object("bytes_per_param")) {
      FieldReader b(*bpp, "/training/bytes_per_param", d);
      request.training.bytes_per_param.weights = b.number("weights").value_or(request.training.bytes_per_param.weights);
      request.training.bytes_per_param.grads = b.number("grads").value_or(request.training.bytes_per_param.grads);
      request.training.bytes_per_param.optimizer = b.number("optimizer").value_or(request.training.bytes_per_param.optimizer);
    }
  }
  const json* model = top.get("model");
  if (model && document.contains("transformer")) {
    d.error("MODEL_CONFLICT", "/transformer", "give either a model (layer costs) or a transformer description, not both.");
  } else if (model) {
    request.model = parse_model(*model, "/model", request.training.bytes_per_param, d);
  } else if (document.contains("transformer")) {
    // A symbolic description stands for the model: generate its layer costs, then read them as any
    // other document. Its bytes per parameter follow the precision unless the request sets them.
    if (auto generated = transformer_model(document, d)) {
      const bool bytes_given = document.contains("training") && document["training"].is_object() &&
                               document["training"].contains("bytes_per_param");
      if (!bytes_given && generated->contains("bytes_per_param")) {
        const json& b = (*generated)["bytes_per_param"];
        request.training.bytes_per_param = {b.value("weights", 2.0), b.value("grads", 4.0), b.value("optimizer", 12.0)};
      }
      request.model = parse_model(*generated, "/transformer", request.training.bytes_per_param, d);
    }
  } else {
    d.error("MODEL_MISSING", "/model", "the request needs a \"model\" (a ppb.model.v1 document) or a \"transformer\" description.");
  }
  // interface.md's transformer example states dp_degree under parallel: without training.dp_degree it
  // derives micro_batch_num as well. Both given must agree, as the transformer generator requires.
  if (auto it = document.find("parallel"); it != document.end() && it->is_object() && it->contains("dp_degree")) {
    // The generator has read and checked parallel already: its problems are not reported twice.
    const bool generator_read = !model && document.contains("transformer");
    Diagnostics already_reported;
    const auto parallel_dp = read_integer((*it)["dp_degree"], "/parallel/dp_degree", "dp_degree", {1, limits::max_batch},
                                          generator_read ? already_reported : d);
    auto& training_dp = request.training.dp_degree;
    if (parallel_dp && training_dp && *parallel_dp != *training_dp)
      d.error("DP_DEGREE_CONFLICT", "/parallel/dp_degree",
              "parallel.dp_degree is " + std::to_string(*parallel_dp) + " but training.dp_degree is " +
                  std::to_string(*training_dp) + "; give one of them, or the same number in both.");
    if (!training_dp) training_dp = parallel_dp;
  }

  if (const json* device = top.object("device")) {
    FieldReader f(*device, "/device", d);
    for (const char* key : {"peak_tflops", "compute_efficiency"}) f.allow(key);  // transformer
    request.device.memory_limit_mib = f.number("memory_limit_mib", {.min_exclusive = true});
    request.device.reserved_mib = f.number("reserved_mib").value_or(0);
    request.device.p2p_bandwidth_gbs = f.number("p2p_bandwidth_gbs", {.min_exclusive = true});
    request.device.p2p_latency_ms = f.number("p2p_latency_ms").value_or(0);
  }

  if (const json* components = top.array("components", "{name, step_ms, memory_mib} objects")) {
    for (std::size_t i = 0; i < components->size(); ++i) {
      const std::string cpath = "/components/" + std::to_string(i);
      const json& c = (*components)[i];
      if (!c.is_object()) {
        d.error("TYPE_MISMATCH", cpath, "each component must be an object {name, step_ms, memory_mib}.");
        continue;
      }
      FieldReader cf(c, cpath, d);
      StageComponent component;
      if (cf.require("name", "each component needs a name.")) component.name = cf.string("name").value_or("");
      // One value for every stage, or a list with one per stage.
      for (auto [key, target] : {std::pair{"step_ms", &component.step_ms}, std::pair{"memory_mib", &component.memory_mib}}) {
        const json* v = cf.get(key);
        if (!v) continue;
        if (!v->is_array()) {
          if (auto x = read_number(*v, cf.at(key), key, {}, d)) target->push_back(*x);
          continue;
        }
        if (static_cast<std::int64_t>(v->size()) > limits::max_pp_degree) {
          d.error("TOO_LARGE", cf.at(key), std::string(key) + " has " + std::to_string(v->size()) +
                                               " values, above the cap of " + std::to_string(limits::max_pp_degree) + " stages.");
          continue;
        }
        for (std::size_t k = 0; k < v->size(); ++k) {
          const std::string index = std::to_string(k);
          if (auto x = read_number((*v)[k], cf.at(key) + "/" + index, std::string(key) + "[" + index + "]", {}, d))
            target->push_back(*x);
        }
      }
      request.components.push_back(component);
    }
  }

  auto& p = request.pipeline;
  if (const json* pipeline = top.object("pipeline")) {
    FieldReader f(*pipeline, "/pipeline", d);
    const auto pp = f.integer("pp_degree", {-limits::max_pp_degree, limits::max_pp_degree, "PP_DEGREE_LIMIT"});
    const auto vpp = f.integer("vpp_degree", {-limits::max_vpp_degree, limits::max_vpp_degree, "VPP_DEGREE_LIMIT"});
    p.pp_degree = static_cast<int>(pp.value_or(1));
    p.vpp_degree = static_cast<int>(vpp.value_or(1));
    if (pp && vpp && *pp > 0 && *vpp > 0 && *pp * *vpp > limits::max_virtual_stages)
      d.error("VIRTUAL_STAGE_LIMIT", "/pipeline/vpp_degree",
              "pp_degree x vpp_degree = " + std::to_string(*pp) + " x " + std::to_string(*vpp) + " = " +
                  std::to_string(*pp * *vpp) + " virtual stages, above the cap of " +
                  std::to_string(limits::max_virtual_stages) + ".");
    p.micro_batch_num =
        f.integer("micro_batch_num", {-limits::max_micro_batch_num, limits::max_micro_batch_num, "MICRO_BATCH_LIMIT"});
    if (auto schedule = f.string("schedule")) {
      if (auto s = schedule_from_name(*schedule)) p.schedule = *s;
      else
        d.error("SCHEDULE_UNKNOWN", "/pipeline/schedule",
                "schedule " + quoted_input(*schedule) + " is not known; use " + schedule_name_list() + ".");
    }
    p.allow_empty_stages = f.boolean("allow_empty_stages").value_or(false);
    p.include_timeline = f.boolean("include_timeline").value_or(false);

    int forms = 0;
    for (auto [key, form] : {std::pair{"stage_partition", PartitionForm::stage_partition},
                             std::pair{"stage_layers", PartitionForm::stage_layers},
                             std::pair{"layer_offset", PartitionForm::layer_offset}}) {
      if (!f.has(key)) continue;
      ++forms;
      // Out-of-range values of the model's size are the plan's to report (with the layer count).
      if (auto values = f.integers(key, kPartitionEntry)) {
        p.partition_form = form;
        p.partition = *values;
      } else {
        // Already reported; an even split in its place keeps the plan's checks from cascading.
        d.error("PARTITION_UNUSABLE", std::string("/pipeline/") + key, std::string(key) + " could not be read; see the errors above.");
      }
    }
    if (forms > 1)
      d.error("PARTITION_CONFLICT", "/pipeline",
              "give at most one of stage_partition, stage_layers and layer_offset; they all state the partition.");

    if (const json* rc = f.object("recompute")) {
      if (rc->contains("layers")) {
        p.recompute_form = RecomputeForm::layers;
        FieldReader rf(*rc, "/pipeline/recompute", d);
        if (rc->size() > 1)
          d.error("RECOMPUTE_FORM", "/pipeline/recompute",
                  "recompute takes either {\"layers\": {option: [layer indices]}} or {option: [count per virtual stage]}, not both.");
        if (const json* layers = rf.object("layers"))
          for (auto it = layers->begin(); it != layers->end(); ++it)
            if (auto v = read_integers(it.value(), "/pipeline/recompute/layers/" + pointer_token(it.key()), it.key(),
                                       kPartitionEntry, d))
              p.recompute[it.key()] = *v;
        rf.allow_all();  // a second key is RECOMPUTE_FORM, not unknown
      } else {
        p.recompute_form = RecomputeForm::counts;
        for (auto it = rc->begin(); it != rc->end(); ++it)
          if (auto v = read_integers(it.value(), "/pipeline/recompute/" + pointer_token(it.key()), it.key(),
                                     kPartitionEntry, d))
            p.recompute[it.key()] = *v;
      }
    }
  }
  // A derived micro_batch_num is held to the same cap as a given one.
  const Training& t = request.training;
  if (t.global_batch_size) {
    const std::int64_t per_step = t.micro_batch_size.value_or(1) * t.dp_degree.value_or(1);  // both capped: no overflow
    if (*t.global_batch_size / per_step > limits::max_micro_batch_num)
      d.error("MICRO_BATCH_LIMIT", "/training/global_batch_size",
              "global_batch_size / (micro_batch_size x dp_degree) = " + std::to_string(*t.global_batch_size) + " / " +
                  std::to_string(per_step) + " gives more than " + std::to_string(limits::max_micro_batch_num) +
                  " micro batches, the cap.");
  }
  return request;
}

namespace {

json recompute_map(const std::map<std::string, std::vector<int>>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

}  // namespace

json estimate_json(const Estimate& e, const Model& model, bool include_timeline) {
  const Plan& plan = e.plan;
  json r;
  r["feasible"] = e.feasible;
  r["pp_degree"] = plan.pp_degree;
  r["vpp_degree"] = plan.vpp_degree;
  r["micro_batch_num"] = plan.micro_batch_num;
  r["schedule"] = schedule_name(plan.schedule);
  r["step_time_ms"] = e.step_time_ms;
  json per_stage = json::array();
  for (const auto& st : e.stages) per_stage.push_back(st.time.bubble_ms);
  r["bubble"] = {{"fraction", e.bubble_fraction}, {"per_stage_ms", per_stage}};
  r["imbalance"] = {{"max_over_mean", e.imbalance_max_over_mean}, {"max_minus_min_ms", e.imbalance_max_minus_min_ms}};
  r["stage_partition"] = stage_partition_of(plan);
  r["stage_layers"] = plan.stage_layers;
  r["layer_offset"] = layer_offset_of(plan, model);
  r["layer_recompute"] = recompute_map(recompute_layers_of(plan, model));
  r["recompute_counts"] = recompute_map(recompute_counts_of(plan, model));
  json stages = json::array();
  for (const auto& st : e.stages) {
    json layers = json::array();
    for (const auto& [b, en] : st.layers) layers.push_back({b, en});
    json mem = {{"weights_mib", st.memory.weights_mib},
                {"grads_mib", st.memory.grads_mib},
                {"optimizer_mib", st.memory.optimizer_mib},
                {"static_mib", st.memory.static_mib},
                {"reserved_mib", st.memory.reserved_mib},
                {"activation_mib", st.memory.activation_mib},
                {"components_mib", st.memory.components_mib},
                {"peak_mib", st.memory.peak_mib},
                {"limit_mib", st.memory.limit_mib ? json(*st.memory.limit_mib) : json(nullptr)},
                {"in_flight_micro_batches", st.memory.in_flight_micro_batches}};
    json time = {{"forward_ms", st.time.forward_ms},     {"backward_ms", st.time.backward_ms},
                 {"recompute_ms", st.time.recompute_ms}, {"send_ms", st.time.send_ms},
                 {"components_step_ms", st.time.components_step_ms},
                 {"busy_ms", st.time.busy_ms},           {"bubble_ms", st.time.bubble_ms}};
    json components = json::object();
    for (const auto& [name, c] : st.components)
      components[name] = {{"forward_ms", c.forward_ms}, {"backward_ms", c.backward_ms}, {"static_mib", c.static_mib},
                          {"activation_mib", c.activation_mib}, {"step_ms", c.step_ms}, {"memory_mib", c.memory_mib}};
    stages.push_back({{"stage", st.stage}, {"virtual_stages", st.virtual_stages}, {"layers", layers}, {"memory", mem},
                      {"time", time}, {"components", components}});
  }
  r["stages"] = stages;
  json violations = json::array();
  for (const auto& v : e.violations) {
    const double over = v.peak_mib - v.limit_mib;
    violations.push_back({{"stage", v.stage},
                          {"peak_mib", v.peak_mib},
                          {"limit_mib", v.limit_mib},
                          {"over_mib", over},
                          {"message", "stage " + std::to_string(v.stage) + " needs " + number_text(std::round(v.peak_mib)) +
                                          " MiB, limit " + number_text(v.limit_mib) + " MiB (" + number_text(std::ceil(over)) + " MiB over)"}});
  }
  r["violations"] = violations;
  if (include_timeline) {
    json timeline = json::array();
    for (const auto& op : e.simulation.timeline)
      timeline.push_back({{"stage", op.stage},
                          {"virtual_stage", op.virtual_stage},
                          {"micro_batch", op.micro_batch},
                          {"op", op_name(op.kind)},
                          {"start_ms", op.start_ms},
                          {"end_ms", op.end_ms}});
    r["timeline"] = timeline;
    json memory = json::array();
    for (const auto& st : e.simulation.stages) {
      json points = json::array();
      for (const auto& p : st.memory) points.push_back({p.time_ms, p.activation_mib});
      memory.push_back(points);
    }
    r["memory_timeline"] = memory;
    // Long simulations are estimated in full, but only their first operations are returned.
    r["timeline_truncated"] = e.simulation.timeline_truncated;
    r["timeline_operations"] = e.simulation.operations;
    r["timeline_limit"] = limits::max_timeline_ops;
  }
  return r;
}

namespace {

json diagnostics_json(const std::vector<Diagnostic>& listed, std::int64_t unlisted, const char* more_code,
                      const char* kind) {
  json out = json::array();
  for (const auto& e : listed) out.push_back({{"code", e.code}, {"path", e.path}, {"message", e.message}});
  if (unlisted > 0)
    out.push_back({{"code", more_code},
                   {"path", ""},
                   {"message", std::to_string(unlisted) + " more " + kind + " not listed; a response lists at most " +
                                   std::to_string(limits::max_diagnostics) + "."}});
  return out;
}

}  // namespace

json errors_json(const Diagnostics& d) {
  return diagnostics_json(d.errors(), d.unlisted_errors(), "TOO_MANY_ERRORS", "errors");
}

json warnings_json(const Diagnostics& d) {
  return diagnostics_json(d.warnings(), d.unlisted_warnings(), "TOO_MANY_WARNINGS", "warnings");
}

namespace {

// Bytes of a parser message that are safe to echo: printable ASCII only (the message may quote
// the offending input, which can be anything), at most `cap` of them.
std::string printable(const std::string& text, std::size_t cap) {
  std::string out;
  for (char c : text) {
    if (out.size() >= cap) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    out += u >= 0x20 && u < 0x7f ? c : '?';
  }
  return out;
}

}  // namespace

std::optional<json> parse_json_text(std::string_view text, Diagnostics& d) {
  if (static_cast<std::int64_t>(text.size()) > limits::max_input_bytes) {
    d.error("INPUT_TOO_LARGE", "",
            "the request has more than " + std::to_string(limits::max_input_bytes) + " bytes (64 MiB), the cap (" +
                std::to_string(text.size()) + " read); merge repeated layers with \"count\".");
    return std::nullopt;
  }
  // One pass over the text before the parser allocates anything: nesting depth and the number of
  // values (opening brackets and commas outside strings). Syntax is left to the parser.
  int depth = 0;
  std::int64_t values = 1;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limits::max_json_depth) {
          d.error("JSON_TOO_DEEP", "",
                  "the request nests arrays and objects more than " + std::to_string(limits::max_json_depth) +
                      " levels deep (at byte " + std::to_string(i) + "), the cap; a request needs about 6.");
          return std::nullopt;
        }
        ++values;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      case ',': ++values; break;
      default: break;
    }
    if (values > limits::max_json_values) {
      d.error("JSON_TOO_MANY_VALUES", "",
              "the request holds more than " + std::to_string(limits::max_json_values) + " JSON values (at byte " +
                  std::to_string(i) + "), the cap; merge repeated layers with \"count\".");
      return std::nullopt;
    }
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const std::string what = e.what();
    const std::size_t colon = what.find(':');
    const std::string reason = colon == std::string::npos ? what : what.substr(std::min(colon + 2, what.size()));
    d.error("JSON_SYNTAX", "",
            "the request is not valid JSON (byte " + std::to_string(e.byte) + "): " + printable(reason, 300));
    return std::nullopt;
  } catch (const json::out_of_range& e) {  // a number beyond double's range, such as 1e400
    const std::string what = e.what();
    const std::size_t quote = what.find('\'');
    d.error("JSON_NUMBER_RANGE", "",
            "the request holds a number too large to represent: " +
                printable(quote == std::string::npos ? what : what.substr(quote), 100) +
                "; numbers must stay within about 1.8e308 (and within each field's cap).");
    return std::nullopt;
  }
}

}  // namespace ppb
