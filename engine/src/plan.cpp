// Partition and recompute resolution: every form of the contract becomes stage_layers plus a
// per-layer recompute choice, with every problem reported as a diagnostic.
#include "ppb/plan.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "message_text.hpp"
#include "ppb/schedule.hpp"

namespace ppb {
namespace {

std::string str(std::int64_t n) { return std::to_string(n); }

std::string plural(std::int64_t n, const char* word) { return str(n) + " " + word + (n == 1 ? "" : "s"); }

// Pinned-first layers belong to virtual stage 0 and pinned-last ones to V - 1, so those stages'
// layer counts include them.
int pinned_on(const Model& model, int v, int virtual_stages) {
  int pinned = 0;
  if (v == 0) pinned += model.pinned_first;
  if (v == virtual_stages - 1) pinned += model.pinned_last;
  return pinned;
}

// Checks a stage_partition (virtual stage of every layer) and turns it into stage_layers.
std::optional<std::vector<int>> from_stage_partition(const Model& model, const std::vector<std::int64_t>& partition,
                                                     int virtual_stages, Diagnostics& diagnostics) {
  const std::string path = "/pipeline/stage_partition";
  const auto layers = static_cast<std::int64_t>(model.layer_count());
  const auto given = static_cast<std::int64_t>(partition.size());
  bool ok = true;
  if (given < layers) {
    diagnostics.error("PARTITION_INCOMPLETE", path,
                      "stage_partition covers " + plural(given, "layer") + " but the model has " + str(layers) +
                          "; layers " + str(given) + " to " + str(layers - 1) +
                          " have no stage. Give the virtual stage of every expanded layer.");
    ok = false;
  } else if (given > layers) {
    diagnostics.error("PARTITION_LENGTH", path,
                      "stage_partition has " + str(given) + " entries but the model has " + plural(layers, "layer") +
                          "; give exactly one virtual stage per expanded layer.");
    ok = false;
  }
  std::vector<int> stage_layers(static_cast<std::size_t>(virtual_stages), 0);
  for (std::int64_t i = 0; i < given; ++i) {
    const std::int64_t v = partition[static_cast<std::size_t>(i)];
    const std::string at = path + "/" + str(i);
    if (v < 0 || v >= virtual_stages) {
      diagnostics.error("PARTITION_RANGE", at,
                        "layer " + str(i) + " is put on virtual stage " + str(v) + ", but there are only " +
                            str(virtual_stages) + " (0 to " + str(virtual_stages - 1) + ").");
      ok = false;
      continue;
    }
    if (i > 0) {
      const std::int64_t previous = partition[static_cast<std::size_t>(i - 1)];
      if (v < previous) {
        diagnostics.error("PARTITION_ORDER", at,
                          "layer " + str(i) + " goes back to virtual stage " + str(v) + " after layer " + str(i - 1) +
                              " on stage " + str(previous) + "; stages must hold consecutive layers in model order.");
        ok = false;
      }
    }
    if (i < layers) {
      const bool first = i < model.pinned_first;
      const bool last = i >= model.body_end();
      if ((first && v != 0) || (last && v != virtual_stages - 1)) {
        diagnostics.error("PIN_PLACEMENT", at,
                          "layer " + str(i) + " (" + model.layers[static_cast<std::size_t>(i)].name + ") is pinned " +
                              (first ? "first" : "last") + " and must be on virtual stage " +
                              str(first ? 0 : virtual_stages - 1) + ", not " + str(v) + ".");
        ok = false;
      }
    }
    ++stage_layers[static_cast<std::size_t>(v)];
  }
  if (!ok) return std::nullopt;
  return stage_layers;
}

std::optional<std::vector<int>> from_stage_layers(const Model& model, const std::vector<std::int64_t>& counts,
                                                  int virtual_stages, Diagnostics& diagnostics) {
  const std::string path = "/pipeline/stage_layers";
  if (static_cast<int>(counts.size()) != virtual_stages) {
    diagnostics.error("STAGE_LAYERS_LENGTH", path,
                      "stage_layers has " + str(static_cast<std::int64_t>(counts.size())) +
                          " entries; give one per "
                          "virtual stage (" +
                          str(virtual_stages) + " = pp_degree x vpp_degree).");
    return std::nullopt;
  }
  bool ok = true;
  std::int64_t sum = 0;
  for (int v = 0; v < virtual_stages; ++v) {
    const std::int64_t n = counts[static_cast<std::size_t>(v)];
    const int pinned = pinned_on(model, v, virtual_stages);
    if (n < pinned) {
      diagnostics.error(n < 0 ? "STAGE_LAYERS_NEGATIVE" : "PIN_PLACEMENT", path + "/" + str(v),
                        n < 0
                            ? "virtual stage " + str(v) + " is given " + str(n) + " layers; counts cannot be negative."
                            : "virtual stage " + str(v) + " is given " + plural(n, "layer") + " but holds " +
                                  plural(pinned, "pinned layer") + "; give it at least " + str(pinned) + ".");
      ok = false;
    }
    sum += n;
  }
  if (ok && sum != model.layer_count()) {
    diagnostics.error("STAGE_LAYERS_SUM", path,
                      "stage_layers adds up to " + str(sum) + " layers but the model has " + str(model.layer_count()) +
                          "; every layer must be on exactly one virtual stage.");
    ok = false;
  }
  if (!ok) return std::nullopt;
  std::vector<int> stage_layers(counts.begin(), counts.end());
  return stage_layers;
}

std::optional<std::vector<int>> from_layer_offset(const Model& model, const std::vector<std::int64_t>& offset,
                                                  int virtual_stages, Diagnostics& diagnostics) {
  const std::string path = "/pipeline/layer_offset";
  const int body = model.body_count();
  const int base = body / virtual_stages;
  const int remainder = body % virtual_stages;
  if (static_cast<int>(offset.size()) != virtual_stages) {
    diagnostics.error("OFFSET_LENGTH", path,
                      "layer_offset has " + str(static_cast<std::int64_t>(offset.size())) +
                          " entries; give one per "
                          "virtual stage (" +
                          str(virtual_stages) + " = pp_degree x vpp_degree).");
    return std::nullopt;
  }
  bool ok = true;
  std::int64_t sum = 0;
  std::vector<int> stage_layers(static_cast<std::size_t>(virtual_stages));
  for (int v = 0; v < virtual_stages; ++v) {
    const std::int64_t o = offset[static_cast<std::size_t>(v)];
    sum += o;
    if (base + o < 0) {
      diagnostics.error("OFFSET_NEGATIVE_STAGE", path + "/" + str(v),
                        "offset " + str(o) + " leaves virtual stage " + str(v) + " with " + str(base + o) +
                            " body layers (the even base is " + str(base) + "); the offset must be at least " +
                            str(-base) + ".");
      ok = false;
      continue;
    }
    stage_layers[static_cast<std::size_t>(v)] = static_cast<int>(base + o) + pinned_on(model, v, virtual_stages);
  }
  if (sum != remainder) {
    diagnostics.error("OFFSET_SUM", path,
                      "layer_offset sums to " + str(sum) + ", it must sum to " + str(remainder) + " (" + str(body) +
                          " body layers over " + str(virtual_stages) + " virtual stages: base " + str(base) +
                          ", remainder " + str(remainder) + ").");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return stage_layers;
}

// A Megatron-LM layout's body layers per virtual stage (parsed by the request reader, E and L
// already in place) against the model: one entry per virtual stage, every body layer once.
std::optional<std::vector<int>> from_megatron_layout(const Model& model, const PipelineSpec& spec, int virtual_stages,
                                                     Diagnostics& diagnostics) {
  const std::string path = "/pipeline/megatron_layout";
  const auto& body = spec.partition;
  const auto stages = static_cast<std::int64_t>(body.size());
  if (stages != virtual_stages) {
    // Megatron-LM takes vpp from the layout: the stage count divided by pp_degree.
    const bool whole = spec.pp_degree > 0 && stages % spec.pp_degree == 0;
    diagnostics.error("MEGATRON_LAYOUT_STAGES", path,
                      "megatron_layout has " + plural(stages, "virtual stage") +
                          " (\"|\" separates them) but pp_degree x "
                          "vpp_degree = " +
                          str(spec.pp_degree) + " x " + str(spec.vpp_degree) + " = " + str(virtual_stages) +
                          (whole ? "; Megatron-LM would run it with vpp_degree " + str(stages / spec.pp_degree) + "."
                                 : "; give pp_degree x vpp_degree stages."));
    return std::nullopt;
  }
  const std::int64_t sum = std::accumulate(body.begin(), body.end(), std::int64_t{0});
  if (sum != model.body_count()) {
    diagnostics.error("MEGATRON_LAYOUT_LAYERS", path,
                      "megatron_layout places " + plural(sum, "decoder or MTP layer") + " (t, m) but the model has " +
                          plural(model.body_count(), "body layer") +
                          "; E and L stand for the pinned layers, t and m for the others, one character each.");
    return std::nullopt;
  }
  std::vector<int> stage_layers(static_cast<std::size_t>(virtual_stages));
  for (int v = 0; v < virtual_stages; ++v)
    stage_layers[static_cast<std::size_t>(v)] =
        static_cast<int>(body[static_cast<std::size_t>(v)]) + pinned_on(model, v, virtual_stages);
  return stage_layers;
}

const char* partition_field(PartitionForm form) {
  switch (form) {
    case PartitionForm::stage_partition: return "/pipeline/stage_partition";
    case PartitionForm::stage_layers: return "/pipeline/stage_layers";
    case PartitionForm::layer_offset: return "/pipeline/layer_offset";
    case PartitionForm::megatron_layout: return "/pipeline/megatron_layout";
    case PartitionForm::even: break;
  }
  return "/pipeline/pp_degree";
}

// Recompute from per-virtual-stage counts: the first N body layers of the stage use the option.
// Several options on one stage are laid out one after another in the order of
// Model::recompute_options, so they never overlap.
bool recompute_from_counts(const Model& model, const PipelineSpec& spec, const std::vector<int>& stage_layers,
                           std::vector<int>& choice, Diagnostics& diagnostics) {
  const int virtual_stages = static_cast<int>(stage_layers.size());
  const std::vector<int> body = body_layers_per_stage(model, stage_layers);
  std::vector<int> starts(static_cast<std::size_t>(virtual_stages) + 1, 0);
  for (int v = 0; v < virtual_stages; ++v)
    starts[static_cast<std::size_t>(v) + 1] =
        starts[static_cast<std::size_t>(v)] + stage_layers[static_cast<std::size_t>(v)];
  std::vector<int> used(static_cast<std::size_t>(virtual_stages), 0);
  bool ok = true;
  for (const auto& option_name : model.recompute_options) {
    auto it = spec.recompute.find(option_name);
    if (it == spec.recompute.end()) continue;
    const int option = model.option_index(option_name);
    const std::string path = "/pipeline/recompute/" + pointer_token(option_name);
    const auto& counts = it->second;
    if (static_cast<int>(counts.size()) != virtual_stages) {
      diagnostics.error("RECOMPUTE_COUNT_LENGTH", path,
                        "recompute counts for \"" + option_name + "\" have " +
                            str(static_cast<std::int64_t>(counts.size())) + " entries; give one per virtual stage (" +
                            str(virtual_stages) + ").");
      ok = false;
      continue;
    }
    for (int v = 0; v < virtual_stages; ++v) {
      const std::int64_t n = counts[static_cast<std::size_t>(v)];
      const auto vs = static_cast<std::size_t>(v);
      if (n < 0 || used[vs] + n > body[vs]) {
        diagnostics.error("RECOMPUTE_COUNT_EXCEEDS", path + "/" + str(v),
                          n < 0 ? "recompute count " + str(n) + " on virtual stage " + str(v) + " is negative."
                                : "virtual stage " + str(v) + " has " + plural(body[vs], "body layer") + " but " +
                                      str(used[vs] + n) + " are asked to recompute (counts of all options together " +
                                      "may not exceed the stage's body layers).");
        ok = false;
        continue;
      }
      const int first_body = starts[vs] + (v == 0 ? model.pinned_first : 0);
      for (int k = 0; k < n; ++k) {
        const int layer = first_body + used[vs] + k;
        if (!model.layers[static_cast<std::size_t>(layer)].recompute[static_cast<std::size_t>(option)]) {
          diagnostics.error("RECOMPUTE_OPTION_MISSING", path + "/" + str(v),
                            "layer " + str(layer) + " (" + model.layers[static_cast<std::size_t>(layer)].name +
                                ") on virtual stage " + str(v) + " has no recompute option \"" + option_name + "\".");
          ok = false;
          break;
        }
        choice[static_cast<std::size_t>(layer)] = option;
      }
      used[vs] += static_cast<int>(n);
    }
  }
  return ok;
}

bool recompute_from_layers(const Model& model, const PipelineSpec& spec, std::vector<int>& choice,
                           Diagnostics& diagnostics) {
  bool ok = true;
  for (const auto& [option_name, indices] : spec.recompute) {
    const int option = model.option_index(option_name);
    const std::string path = "/pipeline/recompute/layers/" + pointer_token(option_name);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const std::int64_t layer = indices[i];
      const std::string at = path + "/" + str(static_cast<std::int64_t>(i));
      if (layer < 0 || layer >= model.layer_count()) {
        diagnostics.error(
            "RECOMPUTE_LAYER_RANGE", at,
            "layer index " + str(layer) + " is outside the model (layers 0 to " + str(model.layer_count() - 1) + ").");
        ok = false;
        continue;
      }
      const auto& l = model.layers[static_cast<std::size_t>(layer)];
      if (!l.recompute[static_cast<std::size_t>(option)]) {
        diagnostics.error(
            "RECOMPUTE_OPTION_MISSING", at,
            "layer " + str(layer) + " (" + l.name + ") has no recompute option \"" + option_name + "\"; it offers " +
                [&] {
                  std::string offered;
                  for (std::size_t o = 0; o < l.recompute.size(); ++o)
                    if (l.recompute[o])
                      offered += (offered.empty() ? "\"" : ", \"") + model.recompute_options[o] + "\"";
                  return offered.empty() ? std::string("none") : offered;
                }() +
                ".");
        ok = false;
        continue;
      }
      int& slot = choice[static_cast<std::size_t>(layer)];
      if (slot != -1) {
        diagnostics.error("RECOMPUTE_LAYER_DUPLICATE", at,
                          "layer " + str(layer) + " is listed for recompute more than once (already \"" +
                              model.recompute_options[static_cast<std::size_t>(slot)] + "\").");
        ok = false;
        continue;
      }
      slot = option;
    }
  }
  return ok;
}

}  // namespace

std::vector<int> Plan::stage_starts() const {
  std::vector<int> starts(stage_layers.size() + 1, 0);
  for (std::size_t v = 0; v < stage_layers.size(); ++v) starts[v + 1] = starts[v] + stage_layers[v];
  return starts;
}

std::vector<int> even_stage_layers(const Model& model, int virtual_stages) {
  const int body = model.body_count();
  std::vector<int> stage_layers(static_cast<std::size_t>(virtual_stages));
  for (int v = 0; v < virtual_stages; ++v)
    stage_layers[static_cast<std::size_t>(v)] =
        body / virtual_stages + (v < body % virtual_stages ? 1 : 0) + pinned_on(model, v, virtual_stages);
  return stage_layers;
}

std::vector<int> body_layers_per_stage(const Model& model, const std::vector<int>& stage_layers) {
  const int virtual_stages = static_cast<int>(stage_layers.size());
  std::vector<int> body(stage_layers.size());
  for (int v = 0; v < virtual_stages; ++v)
    body[static_cast<std::size_t>(v)] = stage_layers[static_cast<std::size_t>(v)] - pinned_on(model, v, virtual_stages);
  return body;
}

std::vector<int> stage_partition_of(const Plan& plan) {
  std::vector<int> partition;
  for (std::size_t v = 0; v < plan.stage_layers.size(); ++v)
    partition.insert(partition.end(), static_cast<std::size_t>(plan.stage_layers[v]), static_cast<int>(v));
  return partition;
}

std::vector<int> layer_offset_of(const Plan& plan, const Model& model) {
  const int virtual_stages = plan.virtual_stages();
  const int base = model.body_count() / virtual_stages;
  std::vector<int> offset = body_layers_per_stage(model, plan.stage_layers);
  for (int& o : offset) o -= base;
  return offset;
}

std::map<std::string, std::vector<int>> recompute_layers_of(const Plan& plan, const Model& model) {
  std::map<std::string, std::vector<int>> layers;
  for (std::size_t i = 0; i < plan.recompute.size(); ++i)
    if (plan.recompute[i] >= 0)
      layers[model.recompute_options[static_cast<std::size_t>(plan.recompute[i])]].push_back(static_cast<int>(i));
  return layers;
}

std::map<std::string, std::vector<int>> recompute_counts_of(const Plan& plan, const Model& model) {
  std::map<std::string, std::vector<int>> counts;
  const auto starts = plan.stage_starts();
  for (std::size_t v = 0; v < plan.stage_layers.size(); ++v)
    for (int i = starts[v]; i < starts[v + 1]; ++i) {
      const int option = plan.recompute[static_cast<std::size_t>(i)];
      if (option < 0) continue;
      auto& per_stage = counts[model.recompute_options[static_cast<std::size_t>(option)]];
      per_stage.resize(plan.stage_layers.size(), 0);
      ++per_stage[v];
    }
  return counts;
}

std::optional<std::int64_t> resolve_micro_batch_num(const Training& training, const PipelineSpec& pipeline,
                                                    Diagnostics& diagnostics) {
  bool ok = true;
  auto positive = [&](const std::optional<std::int64_t>& value, const char* path, const char* name) {
    if (value && *value < 1) {
      diagnostics.error("BATCH_INVALID", path, std::string(name) + " is " + str(*value) + "; it must be at least 1.");
      ok = false;
    }
  };
  positive(training.global_batch_size, "/training/global_batch_size", "global_batch_size");
  positive(training.micro_batch_size, "/training/micro_batch_size", "micro_batch_size");
  positive(training.dp_degree, "/training/dp_degree", "dp_degree");
  positive(pipeline.micro_batch_num, "/pipeline/micro_batch_num", "micro_batch_num");
  if (!ok) return std::nullopt;
  if (!training.global_batch_size) {
    if (pipeline.micro_batch_num) return pipeline.micro_batch_num;
    diagnostics.error("MICRO_BATCH_NUM_MISSING", "/pipeline/micro_batch_num",
                      "give pipeline.micro_batch_num, or training.global_batch_size (with micro_batch_size and "
                      "dp_degree, default 1) to derive it.");
    return std::nullopt;
  }
  const std::int64_t gbs = *training.global_batch_size;
  const std::int64_t mbs = training.micro_batch_size.value_or(1);
  const std::int64_t dp = training.dp_degree.value_or(1);
  const std::int64_t per_step = mbs * dp;  // both capped by the parser, no overflow
  if (gbs % per_step != 0) {
    diagnostics.error("BATCH_NOT_DIVISIBLE", "/training/global_batch_size",
                      "global_batch_size " + str(gbs) + " is not a multiple of micro_batch_size x dp_degree = " +
                          str(mbs) + " x " + str(dp) + " = " + str(per_step) + ".");
    return std::nullopt;
  }
  const std::int64_t derived = gbs / per_step;
  if (pipeline.micro_batch_num && *pipeline.micro_batch_num != derived) {
    diagnostics.error("BATCH_MISMATCH", "/pipeline/micro_batch_num",
                      "micro_batch_num is " + str(*pipeline.micro_batch_num) +
                          " but global_batch_size / "
                          "(micro_batch_size x dp_degree) = " +
                          str(gbs) + " / (" + str(mbs) + " x " + str(dp) + ") = " + str(derived) +
                          "; give one or make them agree.");
    return std::nullopt;
  }
  return derived;
}

namespace {

// The schedule program's own conditions on the degrees and the micro batches (schedule_problems).
void check_schedule(const PipelineShape& shape, bool micro_batches_known, Diagnostics& diagnostics) {
  for (const ScheduleProblem& p : schedule_problems(shape)) {
    if (!micro_batches_known && p.path == "/pipeline/micro_batch_num") continue;
    diagnostics.error(p.code, p.path, p.message);
  }
}

// A virtual stage needs a layer of its own: at most the body layers plus one per pinned group.
bool check_stage_count(const Model& model, const PipelineSpec& spec, int vpp_degree, Diagnostics& diagnostics) {
  const std::int64_t virtual_stages = static_cast<std::int64_t>(spec.pp_degree) * vpp_degree;
  const std::int64_t units = model.body_count() + (model.pinned_first > 0 ? 1 : 0) + (model.pinned_last > 0 ? 1 : 0);
  if (virtual_stages <= units || spec.allow_empty_stages) return true;
  diagnostics.error("PP_EXCEEDS_LAYERS", "/pipeline/pp_degree",
                    "pp_degree x vpp_degree = " + str(spec.pp_degree) + " x " + str(vpp_degree) + " = " +
                        str(virtual_stages) + " virtual stages, but the model can be split into at most " + str(units) +
                        " (" + plural(model.body_count(), "body layer") +
                        (model.pinned_first + model.pinned_last > 0 ? " plus the pinned groups" : "") +
                        "); lower pp_degree or vpp_degree.");
  return false;
}

// The partition in the form given, checked, as layers per virtual stage.
std::optional<std::vector<int>> stage_layers_of(const Model& model, const PipelineSpec& spec, int v,
                                                Diagnostics& diagnostics) {
  std::optional<std::vector<int>> stage_layers;
  switch (spec.partition_form) {
    case PartitionForm::even: stage_layers = even_stage_layers(model, v); break;
    case PartitionForm::stage_partition:
      stage_layers = from_stage_partition(model, spec.partition, v, diagnostics);
      break;
    case PartitionForm::stage_layers: stage_layers = from_stage_layers(model, spec.partition, v, diagnostics); break;
    case PartitionForm::layer_offset: stage_layers = from_layer_offset(model, spec.partition, v, diagnostics); break;
    case PartitionForm::megatron_layout: stage_layers = from_megatron_layout(model, spec, v, diagnostics); break;
  }
  if (!stage_layers || spec.allow_empty_stages) return stage_layers;
  // One error naming the empty stages (the first 10): errors with one code and path are
  // de-duplicated to the first, so one error per stage would name only the first stage.
  std::string empty;
  int empty_count = 0;
  for (int s = 0; s < v; ++s)
    if ((*stage_layers)[static_cast<std::size_t>(s)] == 0 && ++empty_count <= 10)
      empty += (empty_count == 1 ? "" : ", ") + str(s);
  if (empty_count > 10) empty += " and " + str(empty_count - 10) + " more";
  if (empty_count > 0)
    diagnostics.error("EMPTY_STAGE", partition_field(spec.partition_form),
                      (empty_count == 1 ? "virtual stage " + empty + " gets" : "virtual stages " + empty + " get") +
                          " no layer" + (spec.partition_form == PartitionForm::even ? " from the even split" : "") +
                          "; move a boundary, lower pp_degree, or set pipeline.allow_empty_stages.");
  return stage_layers;
}

// Every option named in pipeline.recompute must be one some layer offers.
bool check_recompute_options(const Model& model, const PipelineSpec& spec, Diagnostics& diagnostics) {
  bool known = true;
  for (const auto& [option_name, values] : spec.recompute) {
    if (model.option_index(option_name) >= 0) continue;
    known = false;
    std::string offered;
    for (const auto& o : model.recompute_options) offered += (offered.empty() ? "" : ", ") + o;
    diagnostics.error("RECOMPUTE_OPTION_UNKNOWN",
                      std::string("/pipeline/recompute/") +
                          (spec.recompute_form == RecomputeForm::layers ? "layers/" : "") + pointer_token(option_name),
                      "no layer of the model offers recompute option " + quoted_input(option_name) +
                          (offered.empty() ? std::string("; the model defines no recompute options.")
                                           : "; the model offers: " + offered + "."));
  }
  return known;
}

}  // namespace

std::optional<Plan> resolve_plan(const Request& request, Diagnostics& diagnostics) {
  const Model& model = request.model;
  const PipelineSpec& spec = request.pipeline;
  const Unread& unread = request.unread;
  const std::size_t errors_before = diagnostics.errors().size();
  Plan plan;
  plan.pp_degree = spec.pp_degree;  // micro_batch_num is resolved below
  plan.vpp_degree = spec.vpp_degree;
  plan.schedule = spec.schedule;

  // Each check runs when what it reads was read: an unread value is reported once, by the reader.
  bool degrees_ok = !unread.degrees;
  if (degrees_ok && spec.pp_degree < 1) {
    diagnostics.error("PP_DEGREE_INVALID", "/pipeline/pp_degree",
                      "pp_degree is " + str(spec.pp_degree) + "; it must be at least 1.");
    degrees_ok = false;
  }
  if (!unread.degrees && spec.vpp_degree < 1) {
    diagnostics.error("VPP_DEGREE_INVALID", "/pipeline/vpp_degree",
                      "vpp_degree is " + str(spec.vpp_degree) + "; it must be at least 1.");
    degrees_ok = false;
  }
  std::optional<std::int64_t> micro_batch_num;
  if (!unread.micro_batches) micro_batch_num = resolve_micro_batch_num(request.training, spec, diagnostics);
  if (micro_batch_num) plan.micro_batch_num = *micro_batch_num;
  // The V-shape schedules run two chunks per stage; a vpp_degree left out means that.
  if (is_v_shape(spec.schedule) && !spec.vpp_degree_given && spec.vpp_degree == 1) plan.vpp_degree = 2;
  if (degrees_ok && !unread.schedule) {
    PipelineShape shape = plan;
    if (micro_batch_num) shape.micro_batch_num = *micro_batch_num;
    check_schedule(shape, micro_batch_num.has_value(), diagnostics);
  }

  if (!unread.layers) {
    const bool options_known = !unread.recompute && check_recompute_options(model, spec, diagnostics);
    const bool stages_fit = degrees_ok && check_stage_count(model, spec, plan.vpp_degree, diagnostics);
    if (stages_fit && !unread.partition) {
      const int v = spec.pp_degree * plan.vpp_degree;
      if (auto stage_layers = stage_layers_of(model, spec, v, diagnostics)) {
        plan.stage_layers = *stage_layers;
        plan.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
        if (options_known && spec.recompute_form == RecomputeForm::counts)
          recompute_from_counts(model, spec, plan.stage_layers, plan.recompute, diagnostics);
      }
    }
    // Layer indices need no partition: checked whenever the layers are known.
    if (options_known && spec.recompute_form == RecomputeForm::layers) {
      std::vector<int> choice(static_cast<std::size_t>(model.layer_count()), -1);
      recompute_from_layers(model, spec, choice, diagnostics);
      if (!plan.stage_layers.empty()) plan.recompute = std::move(choice);
    }
  }
  if (diagnostics.errors().size() != errors_before || unread.any()) return std::nullopt;
  return plan;
}

}  // namespace ppb
