// Partition and recompute resolution: every form of the contract becomes stage_layers plus a
// per-layer recompute choice, with every problem reported as a diagnostic.
#include "ppb/plan/plan.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/message_text.hpp"
#include "plan_forms.hpp"
#include "ppb/schedule/schedule.hpp"

namespace ppb {

using detail::pinned_on;
using detail::plural;
using detail::str;

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
// With a program of the user's (pipeline.program) the schedule only places the virtual stages, so its
// conditions on the micro batch count, which its own order needs, do not apply.
void check_schedule(const PipelineShape& shape, bool micro_batches_known, bool own_program, Diagnostics& diagnostics) {
  for (const ScheduleProblem& p : schedule_problems(shape)) {
    if ((!micro_batches_known || own_program) && p.path == "/pipeline/micro_batch_num") continue;
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
      stage_layers = detail::from_stage_partition(model, spec.partition, v, diagnostics);
      break;
    case PartitionForm::stage_layers:
      stage_layers = detail::from_stage_layers(model, spec.partition, v, diagnostics);
      break;
    case PartitionForm::layer_offset:
      stage_layers = detail::from_layer_offset(model, spec.partition, v, diagnostics);
      break;
    case PartitionForm::megatron_layout:
      stage_layers = detail::from_megatron_layout(model, spec, v, diagnostics);
      break;
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
    diagnostics.error("EMPTY_STAGE", detail::partition_field(spec.partition_form),
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
  plan.max_in_flight = spec.max_in_flight;

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
    check_schedule(shape, micro_batch_num.has_value(), spec.program.has_value(), diagnostics);
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
          detail::recompute_from_counts(model, spec, plan.stage_layers, plan.recompute, diagnostics);
      }
    }
    // Layer indices need no partition: checked whenever the layers are known.
    if (options_known && spec.recompute_form == RecomputeForm::layers) {
      std::vector<int> choice(static_cast<std::size_t>(model.layer_count()), -1);
      detail::recompute_from_layers(model, spec, choice, diagnostics);
      if (!plan.stage_layers.empty()) plan.recompute = std::move(choice);
    }
  }
  if (diagnostics.errors().size() != errors_before || unread.any()) return std::nullopt;
  return plan;
}

}  // namespace ppb
