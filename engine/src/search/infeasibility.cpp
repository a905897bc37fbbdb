// Why no plan fits: the memory lower bound, the fit decision and the explanation with what would fit.
#include "ppb/search/infeasibility.hpp"

#include <algorithm>
#include <cmath>

#include "core/field_reader.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/schedule/shape_rules.hpp"

namespace ppb {

namespace {

// Differences below this fraction of the figures are rounding, not memory.
double rounding_mib(double limit_mib) { return 1e-7 * std::max(1.0, std::fabs(limit_mib)); }

// What the layers hold whatever the partition: static memory, the least activation per micro batch
// with the options allowed, and the largest piece one stage must hold whole.
struct LayerMemory {
  double static_mib = 0;
  double activation_mib = 0;
  double piece_mib = 0;         // static + least activation of the largest indivisible piece
  double piece_static_mib = 0;  // static memory of the largest piece
};

double least_activation(const Layer& layer, const std::vector<int>& options) {
  double least = layer.activation_mib;
  for (int o : options)
    if (o >= 0 && static_cast<std::size_t>(o) < layer.recompute.size() && layer.recompute[o])
      least = std::min(least, layer.recompute[o]->activation_mib);
  return least;
}

LayerMemory layer_memory(const Model& model, const std::vector<int>& options) {
  LayerMemory m;
  // A single layer, and each pinned group (they share the first or the last virtual stage).
  auto piece = [&](int begin, int end) {
    double s = 0, a = 0;
    for (int l = begin; l < end; ++l) {
      s += model.layers[l].static_mib();
      a += least_activation(model.layers[l], options);
    }
    m.piece_mib = std::max(m.piece_mib, s + a);
    m.piece_static_mib = std::max(m.piece_static_mib, s);
  };
  for (int l = 0; l < model.layer_count(); ++l) {
    m.static_mib += model.layers[l].static_mib();
    m.activation_mib += least_activation(model.layers[l], options);
    piece(l, l + 1);
  }
  piece(0, model.pinned_first);
  piece(model.layer_count() - model.pinned_last, model.layer_count());
  return m;
}

bool per_stage_components(const std::vector<StageComponent>& components) {
  return std::any_of(components.begin(), components.end(),
                     [](const StageComponent& c) { return c.step_ms.size() > 1 || c.memory_mib.size() > 1; });
}

MemoryBound bound_of(const LayerMemory& m, const Device& device, const PipelineShape& shape,
                     const std::vector<StageComponent>& components) {
  const std::vector<double> stage_components = component_memory_mib(components, shape.pp_degree);
  double total_components = 0, least_components = stage_components.empty() ? 0 : stage_components[0];
  for (double c : stage_components) {
    total_components += c;
    least_components = std::min(least_components, c);
  }
  const double pp = shape.pp_degree;
  MemoryBound b;
  b.static_total_mib = m.static_mib;
  b.static_share_mib = std::max(m.static_mib / pp, m.piece_static_mib);
  const double average =
      device.reserved_mib + (m.static_mib + m.activation_mib / shape.vpp_degree + total_components) / pp;
  b.peak_mib = std::max(average, device.reserved_mib + least_components + m.piece_mib);
  return b;
}

std::string mib(double x) { return number_text(std::round(x)) + " MiB"; }

// How the layers' activations were counted: "no recompute", or their most memory-saving options.
std::string recompute_phrase(const Model& model, const std::vector<int>& options) {
  if (options.empty()) return "with no recompute option allowed";
  std::string s = "with every layer on its most memory-saving option of ";
  for (std::size_t i = 0; i < options.size(); ++i)
    s += (i == 0                    ? ""
          : i + 1 == options.size() ? " or "
                                    : ", ") +
         std::string("\"") + model.recompute_options[static_cast<std::size_t>(options[i])] + "\"";
  return s;
}

// Fit with the least-over phase only, options' time budget lifted: it is O(V L) and decides exactly.
Fit decide(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options,
           const MemoryBound& bound) {
  if (!device.memory_limit_mib) return Fit::fits;
  if (shape.virtual_stages() > splittable_units(model) && !options.allow_empty_stages) return Fit::cannot_fit;
  if (bound.peak_mib > *device.memory_limit_mib + rounding_mib(*device.memory_limit_mib)) return Fit::cannot_fit;
  if (shape.virtual_stages() != shape.pp_degree) return Fit::unknown;
  BalanceOptions unhurried = options;
  unhurried.time_budget_ms = 1e12;
  Balancer balancer(model, device, shape, unhurried);
  BalanceProgress progress = balancer.progress();
  while (!progress.finished && progress.phase == "least over") progress = balancer.step(0);
  return progress.finished ? Fit::cannot_fit : Fit::fits;
}

}  // namespace

MemoryBound memory_lower_bound(const Model& model, const Device& device, const PipelineShape& shape,
                               const std::vector<int>& recompute_options,
                               const std::vector<StageComponent>& components) {
  return bound_of(layer_memory(model, recompute_options), device, shape, components);
}

Fit decide_fit(const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options) {
  return decide(model, device, shape, options,
                memory_lower_bound(model, device, shape, options.recompute_options, options.components));
}

bool balance_proves_none_fits(const BalanceResult& balanced) {
  if (balanced.feasible) return false;
  // A complete least-over phase ends the balance only when even its plan is over the limit.
  return std::any_of(balanced.phases.begin(), balanced.phases.end(),
                     [](const BalancePhase& p) { return p.name == "least over" && p.complete; });
}

std::optional<PipelineShape> same_shape_at(const PipelineShape& shape, int pp_degree) {
  PipelineShape other = shape;
  other.pp_degree = pp_degree;
  if (shape_rule_broken(other)) return std::nullopt;
  return other;
}

std::optional<Infeasibility> explain_infeasibility(
    const Model& model, const Device& device, const PipelineShape& shape, const BalanceOptions& options,
    double largest_peak_mib, bool proven_elsewhere,
    const std::function<std::optional<PipelineShape>(int pp_degree)>& other_pp_degree) {
  if (!device.memory_limit_mib) return std::nullopt;
  const double limit = *device.memory_limit_mib;
  if (largest_peak_mib <= limit) return std::nullopt;
  Infeasibility out;
  out.limit_mib = limit;
  out.memory_needed_mib = largest_peak_mib;
  const LayerMemory memory = layer_memory(model, options.recompute_options);
  out.bound = bound_of(memory, device, shape, options.components);
  const bool by_bound = out.bound.peak_mib > limit + rounding_mib(limit);
  out.proven = by_bound || proven_elsewhere;

  // The smallest larger pp_degree with a plan that fits. The bound falls as pp_degree grows, so it
  // rules out a first run of them at O(1) each; each one after it is decided by the least-over
  // phase (one chunk per stage), a few at most. Per-stage component lists fit one pp_degree only.
  constexpr int kMaxDecided = 32;
  int decided = 0;
  const int units = splittable_units(model);
  for (int p = shape.pp_degree + 1;
       p <= limits::max_pp_degree &&
       (options.allow_empty_stages || static_cast<std::int64_t>(p) * shape.vpp_degree <= units) &&
       decided < kMaxDecided && !per_stage_components(options.components);
       ++p) {
    const auto other = other_pp_degree(p);
    if (!other) continue;
    const MemoryBound bound = bound_of(memory, device, *other, options.components);
    if (bound.peak_mib > limit + rounding_mib(limit)) continue;
    ++decided;
    const Fit fit = decide(model, device, *other, options, bound);
    if (fit == Fit::cannot_fit) continue;
    out.min_pp_degree = p;
    out.min_pp_degree_checked = fit == Fit::fits;
    break;
  }

  // A recompute option the request left out, in the model's order.
  for (int o = 0; o < static_cast<int>(model.recompute_options.size()); ++o) {
    if (std::find(options.recompute_options.begin(), options.recompute_options.end(), o) !=
        options.recompute_options.end())
      continue;
    BalanceOptions more = options;
    more.recompute_options.push_back(o);
    const Fit fit = decide_fit(model, device, shape, more);
    if (fit == Fit::cannot_fit) continue;
    out.recompute_option = model.recompute_options[static_cast<std::size_t>(o)];
    out.recompute_option_checked = fit == Fit::fits;
    break;
  }

  const std::string stages = std::to_string(shape.pp_degree) + (shape.pp_degree == 1 ? " stage" : " stages");
  const std::string limit_text = "the " + mib(limit) + " limit";
  if (by_bound && device.reserved_mib + out.bound.static_share_mib > limit) {
    out.message = "No partition into " + stages + " fits: static memory alone is " + mib(out.bound.static_share_mib) +
                  " on a stage (" + mib(out.bound.static_total_mib) + " in all)" +
                  (device.reserved_mib > 0 ? " plus " + mib(device.reserved_mib) + " reserved" : "") + ", over " +
                  limit_text + ".";
  } else if (by_bound) {
    out.message = "No partition into " + stages + " fits: every plan has a stage that needs at least " +
                  mib(out.bound.peak_mib) + " (" + mib(out.bound.static_share_mib) +
                  " of it static memory, the rest reserved memory and activations " +
                  recompute_phrase(model, options.recompute_options) + "), over " + limit_text + ".";
  } else if (out.proven) {
    out.message = "No partition into " + stages + " fits: the plan that exceeds the limit least (" +
                  recompute_phrase(model, options.recompute_options) + ") needs " + mib(largest_peak_mib) +
                  " on its largest stage, " + mib(largest_peak_mib - limit) + " over " + limit_text + ".";
  } else {
    out.message = "This plan needs " + mib(largest_peak_mib) + " on its largest stage, over " + limit_text +
                  "; no plan that fits was found, though the memory bound (" + mib(out.bound.peak_mib) +
                  ") does not rule one out.";
  }
  if (out.min_pp_degree)
    out.suggestions.push_back("pp_degree " + std::to_string(*out.min_pp_degree) +
                              (out.min_pp_degree_checked ? " is the smallest above " + std::to_string(shape.pp_degree) +
                                                               " at which a plan fits"
                                                         : " is the smallest above " + std::to_string(shape.pp_degree) +
                                                               " that the memory bound does not rule out") +
                              " (same schedule and recompute options).");
  if (out.recompute_option)
    out.suggestions.push_back("allowing recompute option \"" + *out.recompute_option + "\" " +
                              (out.recompute_option_checked ? "lets a plan of this shape fit."
                                                            : "leaves a plan of this shape not ruled out."));
  out.suggestions.push_back("a memory limit of " + mib(std::ceil(largest_peak_mib)) + " fits this plan" +
                            (proven_elsewhere ? ", the least any plan of this shape needs." : "."));
  return out;
}

std::optional<Infeasibility> explain_infeasibility(const Model& model, const Device& device, const PipelineShape& shape,
                                                   const std::vector<int>& recompute_options, bool allow_empty_stages,
                                                   const std::vector<StageComponent>& components, const Estimate& plan,
                                                   const BalanceResult* balanced) {
  if (plan.feasible) return std::nullopt;
  BalanceOptions options;
  options.recompute_options = recompute_options;
  options.allow_empty_stages = allow_empty_stages;
  options.components = components;
  double largest = 0;
  for (const auto& s : plan.stages) largest = std::max(largest, s.memory.peak_mib);
  return explain_infeasibility(model, device, shape, options, largest, balanced && balance_proves_none_fits(*balanced),
                               [&](int pp_degree) { return same_shape_at(shape, pp_degree); });
}

}  // namespace ppb
