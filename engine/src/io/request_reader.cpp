// Requests in: the model (or the transformer description standing for it), training, device,
// pipeline and components sections read into a Request of plain values.
#include "ppb/io/request_reader.hpp"

#include <algorithm>
#include <cmath>

#include "core/field_reader.hpp"
#include "core/message_text.hpp"
#include "model/training_state.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/kept_models.hpp"
#include "ppb/io/model_reader.hpp"
#include "ppb/model/transformer.hpp"
#include "ppb/plan/megatron_layout.hpp"
#include "ppb/schedule/program_import.hpp"

namespace ppb {

using nlohmann::json;

namespace {

// An entry of a partition or recompute list: any index or count of a model within the layer cap.
// Entries out of the model's range are the plan's to report, with the layer count at hand.
constexpr IntegerRange kPartitionEntry{-limits::max_layers, limits::max_layers, "OUT_OF_RANGE"};

void read_training(FieldReader& top, bool transformer, Training& training, StatedTrainingState& state, Unread& unread,
                   Diagnostics& d) {
  const json* section = top.object("training");
  if (!section) {
    unread.micro_batches = top.has("training");
    return;
  }
  FieldReader f(*section, "/training", d);
  f.allow({"recompute_options"});                                  // the transformer generator's
  f.allow({"world_size", "tp_degree", "cp_degree", "ep_degree"});  // the search's coupling
  training.global_batch_size = f.integer("global_batch_size", {1, limits::max_batch});
  training.micro_batch_size = f.integer("micro_batch_size", {1, limits::max_batch});
  training.dp_degree = f.integer("dp_degree", {1, limits::max_batch});
  for (auto [key, value] :
       {std::pair{"global_batch_size", &training.global_batch_size},
        std::pair{"micro_batch_size", &training.micro_batch_size}, std::pair{"dp_degree", &training.dp_degree}})
    if (f.has(key) && !*value) unread.micro_batches = true;
  if (transformer) {
    // The generator reads and reports them; read again here, quietly, for the rule a search applies
    // at each candidate's data-parallel size.
    f.allow({"precision", "sharding", "distributed_optimizer", "bytes_per_param"});
    Diagnostics reported_by_the_generator;
    FieldReader quiet(*section, "/training", reported_by_the_generator);
    quiet.allow_all();
    state = read_training_state(quiet);
  } else {
    state = read_training_state(f);
  }
}

// The bytes per parameter a model document states: for its layers' params, and for their experts.
struct DocumentBytes {
  std::optional<BytesPerParam> dense, experts;
};

// The model document, or the layers generated from a transformer description.
void read_model(const json& document, FieldReader& top, Request& request, DocumentBytes& document_bytes,
                Diagnostics& d) {
  const json* model = top.get("model");
  const bool transformer = document.contains("transformer");
  request.unread.layers = true;  // until a model is read whole
  if (model && transformer) {
    d.error("MODEL_CONFLICT", "/transformer",
            "give either a model (layer costs) or a transformer description, not both.");
  } else if (const auto kept = model ? kept_model_named(*model) : nullptr) {
    // Read once before (kept_models.hpp): its model, and what reading it reported, as if read here.
    d.add_all(kept->read_problems);
    request.model = kept->parsed.model;
    request.unread.layers = !kept->parsed.layers_known;
    document_bytes = {kept->parsed.bytes_per_param, kept->parsed.expert_bytes_per_param};
  } else if (model) {
    ParsedModel parsed = parse_model(*model, "/model", request.training.bytes_per_param, d);
    request.model = std::move(parsed.model);
    request.unread.layers = !parsed.layers_known;
    document_bytes = {parsed.bytes_per_param, parsed.expert_bytes_per_param};
  } else if (transformer) {
    // A symbolic description stands for the model: generate its layer costs, then read them as any
    // other document. The bytes per parameter it writes are the request's training state's.
    if (auto generated = transformer_model(document, d)) {
      ParsedModel parsed = parse_model(*generated, "/transformer", request.training.bytes_per_param, d);
      request.model = std::move(parsed.model);
      request.source.description = true;
      const auto device = document.find("device");
      request.source.links = device != document.end() && device->is_object() && device->contains("gpus_per_node");
      request.unread.layers = !parsed.layers_known;
      document_bytes = {parsed.bytes_per_param, parsed.expert_bytes_per_param};
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

// An integer field of a section read elsewhere (the search reads and reports these), or nothing.
std::optional<std::int64_t> quiet_integer(const json& document, const char* section, const char* key) {
  auto s = document.find(section);
  if (s == document.end() || !s->is_object()) return std::nullopt;
  auto v = s->find(key);
  if (v == s->end() || !v->is_number_integer() || v->get<std::int64_t>() < 1) return std::nullopt;
  return v->get<std::int64_t>();
}

bool same_bytes(const BytesPerParam& a, const BytesPerParam& b) {
  const auto close = [](double x, double y) { return std::fabs(x - y) <= 1e-9 * std::max({1.0, x, y}); };
  return close(a.weights, b.weights) && close(a.grads, b.grads) && close(a.optimizer, b.optimizer);
}

std::string bytes_text(const BytesPerParam& b) {
  return number_text(b.weights) + " + " + number_text(b.grads) + " + " + number_text(b.optimizer);
}

// What a device holds per parameter: the request's training state (precision, sharding over the
// data-parallel ranks with the context-parallel ones, or its bytes_per_param), else the model
// document's bytes_per_param, else bf16 with nothing sharded. For a transformer description the
// generator has applied the same rule already. Sets every params layer's memory from it.
void resolve_training_state(const json& document, const StatedTrainingState& state, const DocumentBytes& document_bytes,
                            Request& request, Diagnostics& d) {
  Training& training = request.training;
  const bool transformer = document.contains("transformer") && !document.contains("model");
  const auto degree = [&](const char* key) {
    return quiet_integer(document, "training", key).value_or(quiet_integer(document, "parallel", key).value_or(1));
  };
  const std::int64_t cp = degree("cp_degree"), tp = degree("tp_degree"), ep = degree("ep_degree");
  const std::int64_t expert_tp = quiet_integer(document, "parallel", "expert_tp_degree").value_or(tp);
  if (state.any()) training.state_rule = state.rule(cp, tp, ep * expert_tp);
  if (transformer) {  // the generated document's figures are the rule's at the description's dp
    if (document_bytes.dense) training.bytes_per_param = *document_bytes.dense;
    training.expert_bytes_per_param = document_bytes.experts.value_or(training.bytes_per_param);
  } else if (state.any()) {
    const StateRule& rule = *training.state_rule;
    std::optional<std::int64_t> dp = training.dp_degree;
    // Without a dp_degree, the world size over the other degrees when they divide it.
    const auto world = quiet_integer(document, "training", "world_size");
    const std::int64_t pp = request.pipeline.pp_degree;
    if (!dp && world && pp >= 1 && *world % (pp * tp * cp) == 0) dp = *world / (pp * tp * cp);
    if (rule.sharding != Sharding::none && !dp)
      d.warning("SHARD_GROUP_UNKNOWN", "/training/sharding",
                std::string("sharding \"") + sharding_name(rule.sharding) +
                    "\" splits the state over the data-parallel ranks, but their number is not known; it counts 1. "
                    "Give training.dp_degree, or world_size (with tp_degree and cp_degree where they are above 1).");
    training.bytes_per_param = held_bytes_per_param(rule.unsharded, rule.sharding, dp.value_or(1) * cp);
    training.expert_bytes_per_param =
        held_bytes_per_param(rule.unsharded, rule.sharding, expert_shard_group(rule, dp.value_or(1) * cp));
    if (document_bytes.dense && !same_bytes(*document_bytes.dense, training.bytes_per_param))
      d.warning("BYTES_PER_PARAM_CONFLICT", "/model/bytes_per_param",
                "the model document holds " + bytes_text(*document_bytes.dense) +
                    " bytes per parameter (weights + gradients + optimizer) but the request's training state gives " +
                    bytes_text(training.bytes_per_param) + "; the request's are used.");
  } else {
    if (document_bytes.dense) training.bytes_per_param = *document_bytes.dense;
    training.expert_bytes_per_param = document_bytes.experts.value_or(training.bytes_per_param);
  }
  request.model.set_bytes_per_param(training.bytes_per_param, training.expert_bytes_per_param);
  // Fully sharded, a device also holds the layers it computes unsharded: PyTorch FSDP gathers a
  // unit's weights before its forward and backward, prefetches the next unit's while it computes
  // (two units' weights at once), and holds a unit's full gradients until their reduce-scatter. Per
  // stage that is at most 2 x weights + 1 x grads of its largest layer, counted on every stage.
  if (training.state_rule && training.state_rule->sharding == Sharding::full) {
    double largest = 0;
    for (const Layer& layer : request.model.layers) largest = std::max(largest, layer.params);
    const BytesPerParam& u = training.state_rule->unsharded;
    if (largest > 0)
      request.components.push_back({"fsdp_unsharded_layers", {}, {largest * (2 * u.weights + u.grads) / 1048576.0}});
  }
}

void read_device(FieldReader& top, Device& device, Diagnostics& d) {
  const json* section = top.object("device");
  if (!section) return;
  FieldReader f(*section, "/device", d);
  device.peak_tflops = f.number("peak_tflops", {.min_exclusive = true});
  // The transformer generator's, and the preset they came from (device_presets.hpp).
  f.allow({"peak_tflops_fp8", "compute_efficiency", "gpus_per_node", "intra_node_gbs", "inter_node_gbs", "preset"});
  device.memory_limit_mib = f.number("memory_limit_mib", {.min_exclusive = true});
  device.reserved_mib = f.number("reserved_mib").value_or(0);
  device.p2p_bandwidth_gbs = f.number("p2p_bandwidth_gbs", {.min_exclusive = true});
  device.p2p_latency_ms = f.number("p2p_latency_ms").value_or(0);
  device.memory_margin =
      f.number("memory_margin", {.max = 0.5, .over_code = "OUT_OF_RANGE"}).value_or(device.memory_margin);
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

// pipeline.program: a list per rank of action strings (the pytorch export's json.actions), or the CSV
// text (its text). The actions themselves are checked against the plan (schedule/program_import.hpp).
void read_program(FieldReader& f, PipelineSpec& p, Unread& unread, Diagnostics& d) {
  const json* value = f.get("program");
  if (value == nullptr) return;
  const std::string path = f.at("program");
  if (value->is_string()) {
    // Counted before it is split: each action becomes a string of its own. (The lists are held to the
    // same count by the cap on JSON values.)
    const auto& csv = value->get_ref<const std::string&>();
    const auto cells = std::count(csv.begin(), csv.end(), ',') + std::count(csv.begin(), csv.end(), '\n');
    if (cells > limits::max_program_actions) {
      d.error(
          "SIMULATION_LIMIT", path,
          "the program's CSV holds more than " + std::to_string(limits::max_program_actions) + " actions, the cap.");
      unread.program = true;
      return;
    }
    p.program = program_from_csv(csv);
    return;
  }
  const char* shape =
      "program must be a list with one list of action strings per rank (the pytorch export's json.actions) or "
      "the CSV text, one rank per line";
  if (!value->is_array()) {
    d.error("TYPE_MISMATCH", path, std::string(shape) + ", not " + type_name(*value) + ".");
    unread.program = true;
    return;
  }
  ProgramText text;
  for (std::size_t r = 0; r < value->size(); ++r) {
    const json& rank = (*value)[r];
    const std::string rank_path = path + "/" + std::to_string(r);
    if (!rank.is_array()) {
      d.error("TYPE_MISMATCH", rank_path,
              "rank " + std::to_string(r) + "'s entry must be a list of action strings such as \"0F0\", not " +
                  type_name(rank) + ".");
      unread.program = true;
      continue;
    }
    std::vector<std::string> actions;
    for (std::size_t i = 0; i < rank.size(); ++i) {
      if (rank[i].is_string()) {
        actions.push_back(rank[i].get<std::string>());
      } else if (rank[i].is_null()) {
        actions.emplace_back();  // PyTorch's empty slot
      } else {
        d.error("TYPE_MISMATCH", rank_path + "/" + std::to_string(i),
                std::string("an action must be a string such as \"0F0\", not ") + type_name(rank[i]) + ".");
        unread.program = true;
      }
    }
    text.ranks.push_back(std::move(actions));
  }
  if (!unread.program) p.program = std::move(text);
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
  // zb_auto's cap; one micro batch in flight per stage already runs (each stage then finishes a
  // micro batch's backward before its next forward), so 1 is the least.
  p.max_in_flight =
      static_cast<int>(f.integer("max_in_flight", {1, limits::max_micro_batch_num, "MICRO_BATCH_LIMIT"}).value_or(0));
  p.allow_empty_stages = f.boolean("allow_empty_stages").value_or(false);
  p.include_timeline = f.boolean("include_timeline").value_or(false);
  read_partition(f, p, unread, d);
  read_recompute(f, p, unread, d);
  read_program(f, p, unread, d);
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
    request.unread = {true, true, true, true, true, true, true, true};
    return request;
  }
  FieldReader top(document, "", d);
  top.allow({"balance", "search", "export", "compare", "transformer", "parallel"});  // read by their own parsers
  Unread& unread = request.unread;
  StatedTrainingState state;
  DocumentBytes document_bytes;
  const bool transformer = document.contains("transformer") && !document.contains("model");
  read_training(top, transformer, request.training, state, unread, d);
  read_model(document, top, request, document_bytes, d);
  read_parallel_dp_degree(document, request.training, unread, d);
  read_device(top, request.device, d);
  read_components(top, request.components, unread, d);
  read_pipeline(top, request.pipeline, unread, d);
  resolve_training_state(document, state, document_bytes, request, d);
  check_derived_micro_batches(request.training, unread, d);
  return request;
}

void refuse_program(const json& document, const std::string& command, Diagnostics& d) {
  if (!document.is_object() || !document.contains("pipeline") || !document["pipeline"].is_object() ||
      !document["pipeline"].contains("program"))
    return;
  d.error("PROGRAM_NOT_SUPPORTED", "/pipeline/program",
          command + " runs each schedule's own order and does not take pipeline.program; remove it to " + command +
              ", or time the program with estimate (or export it) for the partition given.");
}

}  // namespace ppb
