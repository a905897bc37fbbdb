// Requests in: the model (or the transformer description standing for it), training, device,
// pipeline and components sections read into a Request of plain values.
#include "ppb/io/request_reader.hpp"

#include "core/field_reader.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/model_reader.hpp"
#include "ppb/model/transformer.hpp"
#include "ppb/plan/megatron_layout.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// An entry of a partition or recompute list: any index or count of a model within the layer cap.
// Entries out of the model's range are the plan's to report, with the layer count at hand.
constexpr IntegerRange kPartitionEntry{-limits::max_layers, limits::max_layers, "OUT_OF_RANGE"};

void read_training(FieldReader& top, Training& training, Unread& unread, Diagnostics& d) {
  const json* section = top.object("training");
  if (!section) {
    unread.micro_batches = top.has("training");
    return;
  }
  FieldReader f(*section, "/training", d);
  f.allow({"precision", "distributed_optimizer", "recompute_options"});  // the transformer generator's
  f.allow({"world_size", "tp_degree", "cp_degree", "ep_degree"});        // the search's coupling
  training.global_batch_size = f.integer("global_batch_size", {1, limits::max_batch});
  training.micro_batch_size = f.integer("micro_batch_size", {1, limits::max_batch});
  training.dp_degree = f.integer("dp_degree", {1, limits::max_batch});
  for (auto [key, value] :
       {std::pair{"global_batch_size", &training.global_batch_size},
        std::pair{"micro_batch_size", &training.micro_batch_size}, std::pair{"dp_degree", &training.dp_degree}})
    if (f.has(key) && !*value) unread.micro_batches = true;
  if (const json* bytes = f.object("bytes_per_param")) {
    FieldReader b(*bytes, f.at("bytes_per_param"), d);
    BytesPerParam& out = training.bytes_per_param;
    out.weights = b.number("weights").value_or(out.weights);
    out.grads = b.number("grads").value_or(out.grads);
    out.optimizer = b.number("optimizer").value_or(out.optimizer);
  }
}

// The model document, or the layers generated from a transformer description.
void read_model(const json& document, FieldReader& top, Request& request, Diagnostics& d) {
  const json* model = top.get("model");
  const bool transformer = document.contains("transformer");
  request.unread.layers = true;  // until a model is read whole
  if (model && transformer) {
    d.error("MODEL_CONFLICT", "/transformer",
            "give either a model (layer costs) or a transformer description, not both.");
  } else if (model) {
    ParsedModel parsed = parse_model(*model, "/model", request.training.bytes_per_param, d);
    request.model = std::move(parsed.model);
    request.unread.layers = !parsed.layers_known;
  } else if (transformer) {
    // A symbolic description stands for the model: generate its layer costs, then read them as any
    // other document. Its bytes per parameter follow the precision unless the request sets them.
    if (auto generated = transformer_model(document, d)) {
      const json& training = document.contains("training") ? document["training"] : json::object();
      const bool bytes_given = training.is_object() && training.contains("bytes_per_param");
      if (!bytes_given && generated->contains("bytes_per_param")) {
        const json& b = (*generated)["bytes_per_param"];
        request.training.bytes_per_param = {b.value("weights", 2.0), b.value("grads", 4.0), b.value("optimizer", 12.0)};
      }
      ParsedModel parsed = parse_model(*generated, "/transformer", request.training.bytes_per_param, d);
      request.model = std::move(parsed.model);
      request.unread.layers = !parsed.layers_known;
    }
  } else {
    d.error("MODEL_MISSING", "/model",
            "the request needs a \"model\" (a ppb.model.v1 document) or a \"transformer\" description.");
  }
}

// The transformer example of the contract states dp_degree under parallel: without training.dp_degree it
// derives micro_batch_num as well. Both given must agree, as the transformer generator requires.
void read_parallel_dp_degree(const json& document, Training& training, Unread& unread, Diagnostics& d) {
  auto it = document.find("parallel");
  if (it == document.end() || !it->is_object() || !it->contains("dp_degree")) return;
  // With a transformer description the generator has read and checked parallel already: its
  // problems are not reported twice.
  const bool generator_read = !document.contains("model") && document.contains("transformer");
  Diagnostics already_reported;
  const auto parallel_dp = read_integer((*it)["dp_degree"], "/parallel/dp_degree", "dp_degree", {1, limits::max_batch},
                                        generator_read ? already_reported : d);
  if (!parallel_dp) unread.micro_batches = true;
  if (parallel_dp && training.dp_degree && *parallel_dp != *training.dp_degree) {
    unread.micro_batches = true;
    d.error("DP_DEGREE_CONFLICT", "/parallel/dp_degree",
            "parallel.dp_degree is " + std::to_string(*parallel_dp) + " but training.dp_degree is " +
                std::to_string(*training.dp_degree) + "; give one of them, or the same number in both.");
  }
  if (!training.dp_degree) training.dp_degree = parallel_dp;
}

void read_device(FieldReader& top, Device& device, Diagnostics& d) {
  const json* section = top.object("device");
  if (!section) return;
  FieldReader f(*section, "/device", d);
  f.allow({"peak_tflops", "compute_efficiency"});  // the transformer generator's
  device.memory_limit_mib = f.number("memory_limit_mib", {.min_exclusive = true});
  device.reserved_mib = f.number("reserved_mib").value_or(0);
  device.p2p_bandwidth_gbs = f.number("p2p_bandwidth_gbs", {.min_exclusive = true});
  device.p2p_latency_ms = f.number("p2p_latency_ms").value_or(0);
}

// One value for every stage, or a list with one per stage (its length is checked against the plan).
void read_per_stage(FieldReader& f, const char* key, std::vector<double>& out, Diagnostics& d) {
  const json* value = f.get(key);
  if (!value) return;
  if (!value->is_array()) {
    if (auto x = read_number(*value, f.at(key), key, {}, d)) out.push_back(*x);
    return;
  }
  if (static_cast<std::int64_t>(value->size()) > limits::max_pp_degree) {
    d.error("TOO_LARGE", f.at(key),
            std::string(key) + " has " + std::to_string(value->size()) + " values, above the cap of " +
                std::to_string(limits::max_pp_degree) + " stages.");
    return;
  }
  for (std::size_t k = 0; k < value->size(); ++k) {
    const std::string index = std::to_string(k);
    if (auto x = read_number((*value)[k], f.at(key) + "/" + index, std::string(key) + "[" + index + "]", {}, d))
      out.push_back(*x);
  }
}

void read_components(FieldReader& top, std::vector<StageComponent>& components, Unread& unread, Diagnostics& d) {
  const std::size_t errors_before = d.errors().size();
  const json* list = top.array("components", "{name, step_ms, memory_mib} objects");
  unread.components = top.has("components") && !list;
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = "/components/" + std::to_string(i);
    const json& entry = (*list)[i];
    if (!entry.is_object()) {
      d.error("TYPE_MISMATCH", path, "each component must be an object {name, step_ms, memory_mib}.");
      continue;
    }
    FieldReader f(entry, path, d);
    StageComponent component;
    if (f.require("name", "each component needs a name.")) component.name = f.string("name").value_or("");
    read_per_stage(f, "step_ms", component.step_ms, d);
    read_per_stage(f, "memory_mib", component.memory_mib, d);
    components.push_back(std::move(component));
  }
  // Lengths are checked against pp_degree only for components read whole.
  if (d.errors().size() != errors_before) unread.components = true;
}

// At most one partition form; a form that cannot be read leaves the even split in its place (its
// errors are reported), so the plan's checks do not cascade from it.
void read_partition(FieldReader& f, PipelineSpec& p, Unread& unread, Diagnostics& d) {
  int forms = 0;
  for (auto [key, form] : {std::pair{"stage_partition", PartitionForm::stage_partition},
                           std::pair{"stage_layers", PartitionForm::stage_layers},
                           std::pair{"layer_offset", PartitionForm::layer_offset}}) {
    if (!f.has(key)) continue;
    ++forms;
    auto values = f.integers(key, kPartitionEntry);
    if (values) {
      p.partition_form = form;
      p.partition = *values;
    } else {
      unread.partition = true;
      d.error("PARTITION_UNUSABLE", f.at(key), std::string(key) + " could not be read; see the errors above.");
    }
  }
  // Megatron-LM's layout string, as copied from a launch script: its body layers per virtual stage.
  if (f.has("megatron_layout")) {
    ++forms;
    const auto layout = f.string("megatron_layout", limits::max_layers);
    const auto body = layout ? parse_megatron_layout(*layout, f.at("megatron_layout"), d) : std::nullopt;
    if (body) {
      p.partition_form = PartitionForm::megatron_layout;
      p.partition.assign(body->begin(), body->end());
    } else {
      unread.partition = true;
    }
  }
  if (forms > 1) {
    unread.partition = true;
    d.error("PARTITION_CONFLICT", "/pipeline",
            "give at most one of stage_partition, stage_layers, layer_offset and megatron_layout; they all state the "
            "partition.");
  }
}

// {"option": [count per virtual stage]} or {"layers": {"option": [layer indices]}}.
void read_recompute_lists(FieldReader& f, PipelineSpec& p, Diagnostics& d) {
  const json* recompute = f.object("recompute");
  if (!recompute) return;
  const std::string path = f.at("recompute");
  if (recompute->contains("layers")) {
    p.recompute_form = RecomputeForm::layers;
    FieldReader r(*recompute, path, d);
    if (recompute->size() > 1)
      d.error("RECOMPUTE_FORM", path,
              "recompute takes either {\"layers\": {option: [layer indices]}} or {option: [count per virtual "
              "stage]}, not both.");
    r.allow_all();  // a second key is RECOMPUTE_FORM, not unknown
    if (const json* layers = r.object("layers"))
      for (auto it = layers->begin(); it != layers->end(); ++it)
        if (auto v =
                read_integers(it.value(), r.at("layers") + "/" + pointer_token(it.key()), it.key(), kPartitionEntry, d))
          p.recompute[it.key()] = *v;
    return;
  }
  p.recompute_form = RecomputeForm::counts;
  for (auto it = recompute->begin(); it != recompute->end(); ++it)
    if (auto v = read_integers(it.value(), path + "/" + pointer_token(it.key()), it.key(), kPartitionEntry, d))
      p.recompute[it.key()] = *v;
}

// Recompute as given; unread when any part of it could not be read.
void read_recompute(FieldReader& f, PipelineSpec& p, Unread& unread, Diagnostics& d) {
  const std::size_t errors_before = d.errors().size();
  read_recompute_lists(f, p, d);
  if (d.errors().size() != errors_before) unread.recompute = true;
}

void read_pipeline(FieldReader& top, PipelineSpec& p, Unread& unread, Diagnostics& d) {
  const json* section = top.object("pipeline");
  if (!section) {
    if (top.has("pipeline")) unread.degrees = unread.micro_batches = unread.schedule = true;
    return;
  }
  FieldReader f(*section, "/pipeline", d);
  // Degrees below 1 are read here and reported by the plan (PP_DEGREE_INVALID, VPP_DEGREE_INVALID).
  const auto pp = f.integer("pp_degree", {-limits::max_pp_degree, limits::max_pp_degree, "PP_DEGREE_LIMIT"});
  const auto vpp = f.integer("vpp_degree", {-limits::max_vpp_degree, limits::max_vpp_degree, "VPP_DEGREE_LIMIT"});
  p.pp_degree = static_cast<int>(pp.value_or(1));
  p.vpp_degree = static_cast<int>(vpp.value_or(1));
  p.vpp_degree_given = f.has("vpp_degree");
  unread.degrees = (f.has("pp_degree") && !pp) || (f.has("vpp_degree") && !vpp);
  if (pp && vpp && *pp > 0 && *vpp > 0 && *pp * *vpp > limits::max_virtual_stages) {
    unread.degrees = true;
    d.error("VIRTUAL_STAGE_LIMIT", f.at("vpp_degree"),
            "pp_degree x vpp_degree = " + std::to_string(*pp) + " x " + std::to_string(*vpp) + " = " +
                std::to_string(*pp * *vpp) + " virtual stages, above the cap of " +
                std::to_string(limits::max_virtual_stages) + ".");
  }
  p.micro_batch_num =
      f.integer("micro_batch_num", {-limits::max_micro_batch_num, limits::max_micro_batch_num, "MICRO_BATCH_LIMIT"});
  if (f.has("micro_batch_num") && !p.micro_batch_num) unread.micro_batches = true;
  unread.schedule = f.has("schedule");
  if (auto schedule = f.string("schedule")) {
    if (auto s = schedule_from_name(*schedule)) {
      p.schedule = *s;
      unread.schedule = false;
    } else {
      d.error("SCHEDULE_UNKNOWN", f.at("schedule"),
              "schedule " + quoted_input(*schedule) + " is not known; use " + schedule_name_list() + ".");
    }
  }
  p.allow_empty_stages = f.boolean("allow_empty_stages").value_or(false);
  p.include_timeline = f.boolean("include_timeline").value_or(false);
  read_partition(f, p, unread, d);
  read_recompute(f, p, unread, d);
}

// A derived micro_batch_num is held to the same cap as a given one.
void check_derived_micro_batches(const Training& t, Unread& unread, Diagnostics& d) {
  if (!t.global_batch_size) return;
  const std::int64_t per_step = t.micro_batch_size.value_or(1) * t.dp_degree.value_or(1);  // both capped
  if (*t.global_batch_size / per_step <= limits::max_micro_batch_num) return;
  unread.micro_batches = true;
  d.error("MICRO_BATCH_LIMIT", "/training/global_batch_size",
          "global_batch_size / (micro_batch_size x dp_degree) = " + std::to_string(*t.global_batch_size) + " / " +
              std::to_string(per_step) + " gives more than " + std::to_string(limits::max_micro_batch_num) +
              " micro batches, the cap.");
}

}  // namespace

Request parse_request(const json& document, Diagnostics& d) {
  Request request;
  if (!document.is_object()) {
    d.error("TYPE_MISMATCH", "", std::string("the request must be a JSON object, not ") + type_name(document) + ".");
    request.unread = {true, true, true, true, true, true, true};
    return request;
  }
  FieldReader top(document, "", d);
  top.allow({"balance", "search", "export", "transformer", "parallel"});  // read by their own parsers
  Unread& unread = request.unread;
  read_training(top, request.training, unread, d);
  read_model(document, top, request, d);
  read_parallel_dp_degree(document, request.training, unread, d);
  read_device(top, request.device, d);
  read_components(top, request.components, unread, d);
  read_pipeline(top, request.pipeline, unread, d);
  check_derived_micro_batches(request.training, unread, d);
  return request;
}

}  // namespace ppb
