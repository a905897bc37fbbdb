// The partition forms of the contract (stage_partition, stage_layers, layer_offset, megatron_layout)
// and the recompute forms (per-stage counts, layer lists), each checked and turned into stage_layers
// or a per-layer choice. See plan_forms.hpp.
#include "plan_forms.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/message_text.hpp"
#include "ppb/plan/plan.hpp"

namespace ppb::detail {

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

}  // namespace ppb::detail
