// What an export's written settings run and whether it fits: the launcher's plan (export_fit.hpp),
// its estimate, the differences from the request's plan as sentences, and the search for the
// fastest plan the launcher can express that fits when the written one does not. Launcher rules:
// Megatron-LM transformer_block.py (_checkpointed_forward: uniform and block methods, one
// granularity), MindFormers models/utils.py (LayerSetting: the first N layers of each stage).
#include "ppb/interop/export_fit.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/message_text.hpp"
#include "ppb/interop/export.hpp"
#include "ppb/schedule/shape_rules.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

namespace {

using std::size_t;

const char* launcher_name(Launcher launcher) { return launcher == Launcher::megatron ? "Megatron-LM" : "MindFormers"; }

bool offers(const Model& model, int layer, int option) {
  const auto& r = model.layers[static_cast<size_t>(layer)].recompute;
  return option >= 0 && static_cast<size_t>(option) < r.size() && r[static_cast<size_t>(option)].has_value();
}

bool every_body_layer_offers(const Model& model, int option) {
  for (int i = model.body_begin(); i < model.body_end(); ++i)
    if (!offers(model, i, option)) return false;
  return option >= 0;
}

// "0-3, 8 and 10-11" for sorted layer indices.
std::string ranges_text(const std::vector<int>& layers) {
  std::vector<std::string> runs;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    std::string run = std::to_string(layers[i]);  // appended piece by piece: GCC 12 warns falsely (-Wrestrict)
    if (j > i) {
      run += '-';
      run += std::to_string(layers[j]);
    }
    runs.push_back(std::move(run));
    i = j + 1;
  }
  std::string out;
  for (size_t k = 0; k < runs.size(); ++k) {
    if (k > 0) out += k + 1 == runs.size() ? " and " : ", ";
    out += runs[k];
  }
  std::string lead = layers.size() == 1 ? "layer " : "layers ";
  lead += out;
  return lead;
}

std::string option_text(const Model& model, int option) {
  return option < 0 ? "no recompute" : model.recompute_options[static_cast<size_t>(option)] + " recompute";
}

std::string mib(double x) { return number_text(x) + " MiB"; }

// The launcher's schedule: 1F1B, interleaved with virtual stages. When it cannot run this shape,
// the plan's own schedule is kept for the estimate and a caveat says so.
void use_launcher_schedule(Plan& plan, const std::string& launcher, std::vector<std::string>& caveats) {
  const Schedule runs = plan.vpp_degree > 1 ? Schedule::interleaved_1f1b : Schedule::one_f_one_b;
  if (runs == plan.schedule && !plan.program) return;
  PipelineShape shape = plan;
  shape.schedule = runs;
  if (const auto broken = shape_rule_broken(shape)) {
    caveats.push_back(launcher + " runs " + schedule_name(runs) + ", which cannot run this shape (" + broken->reason +
                      "); the estimate keeps the plan's " +
                      (plan.program ? "pipeline.program" : schedule_name(plan.schedule)) + ".");
    return;
  }
  if (plan.program)
    caveats.push_back(launcher + " runs its own " + schedule_name(runs) +
                      " order, not pipeline.program, so the estimate runs that order.");
  plan.program.reset();
  plan.schedule = runs;
}

// Sets layer i to `option`, or to no recompute when the layer does not offer it (collected).
void assign(Plan& plan, const Model& model, int i, int option, std::map<int, std::vector<int>>& unpriced) {
  if (option >= 0 && !offers(model, i, option)) {
    unpriced[option].push_back(i);
    option = -1;
  }
  plan.recompute[static_cast<size_t>(i)] = option;
}

void note_unpriced(const std::map<int, std::vector<int>>& unpriced, const Model& model, const std::string& launcher,
                   std::vector<std::string>& caveats) {
  for (const auto& [option, layers] : unpriced)
    caveats.push_back(launcher + " applies " + option_text(model, option) + " to " + ranges_text(layers) +
                      ", which the model does not price with it; the estimate counts them without recompute.");
}

struct Fit {
  bool feasible = true;
  double step_time_ms = 0;
  double peak_mib = 0;
  int peak_stage = 0;
  std::vector<bool> stage_fits;
};

Fit fit_of(const Request& request, const Plan& plan) {
  const Estimate e = estimate(request.model, request.device, plan, false, request.components);
  const ExportedEstimate summary = exported_estimate(e);
  Fit f;
  f.feasible = summary.feasible;
  f.step_time_ms = summary.step_time_ms;
  f.peak_mib = summary.peak_mib;
  f.peak_stage = summary.peak_stage;
  f.stage_fits.assign(static_cast<size_t>(plan.pp_degree), true);
  for (const Violation& v : e.violations) f.stage_fits[static_cast<size_t>(v.stage)] = false;
  return f;
}

ExportedEstimate exported_of(const Fit& f, bool kept) {
  ExportedEstimate out;
  out.plan_kept = kept;
  out.feasible = f.feasible;
  out.step_time_ms = f.step_time_ms;
  out.peak_mib = f.peak_mib;
  out.peak_stage = f.peak_stage;
  return out;
}

bool same_plan(const Plan& a, const Plan& b) {
  return a.schedule == b.schedule && a.stage_layers == b.stage_layers && a.recompute == b.recompute;
}

// What `to` does differently from `from`, as sentences.
std::vector<std::string> differences(const Plan& from, const Plan& to, const Model& model,
                                     const std::string& launcher) {
  std::vector<std::string> out;
  if (from.schedule != to.schedule)
    out.push_back(launcher + " runs the " + schedule_name(to.schedule) + " schedule, not the plan's " +
                  schedule_name(from.schedule) + ".");
  if (from.stage_layers != to.stage_layers) {
    const auto joined = [](const std::vector<int>& values) {
      std::string text;
      for (size_t v = 0; v < values.size(); ++v) text += (v ? ", " : "") + std::to_string(values[v]);
      return text;
    };
    out.push_back("the virtual stages hold " + joined(to.stage_layers) + " layers (stage_layers), not the plan's " +
                  joined(from.stage_layers) + ".");
  }
  std::map<std::pair<int, int>, std::vector<int>> changed;  // (plan's option, written option) -> layers
  for (size_t i = 0; i < from.recompute.size(); ++i)
    if (from.recompute[i] != to.recompute[i])
      changed[{from.recompute[i], to.recompute[i]}].push_back(static_cast<int>(i));
  std::vector<std::pair<std::pair<int, int>, std::vector<int>>> in_layer_order(changed.begin(), changed.end());
  std::sort(in_layer_order.begin(), in_layer_order.end(),
            [](const auto& a, const auto& b) { return a.second.front() < b.second.front(); });
  for (const auto& [options, layers] : in_layer_order)
    out.push_back(ranges_text(layers) + ": " + option_text(model, options.second) + " as written, " +
                  option_text(model, options.first) + " in the plan.");
  return out;
}

std::string numbers_sentence(const Fit& written, const Fit& own, const Request& request) {
  std::string s = "as written: " + number_text(written.step_time_ms) +
                  " ms per step (the plan: " + number_text(own.step_time_ms) + " ms), peak " + mib(written.peak_mib) +
                  " on stage " + std::to_string(written.peak_stage);
  if (request.device.memory_limit_mib)
    s += std::string(written.feasible ? ", within" : ", over") + " the " + mib(*request.device.memory_limit_mib) +
         " limit";
  return s + ".";
}

struct Candidate {
  std::string label;
  Plan plan;
  Fit fit;
};

Plan without_recompute(const Plan& plan) {
  Plan out = plan;
  std::fill(out.recompute.begin(), out.recompute.end(), -1);
  return out;
}

// Full recompute on the first n[v] decoder layers of virtual stage v, the rest of `base` kept.
Plan with_full_first(const Plan& base, const Model& model, const std::vector<int>& n) {
  Plan out = base;
  const int full = model.option_index("full");
  for (int v = 0; v < out.virtual_stages(); ++v) {
    const auto [b, e] = body_range(out, model, v);
    for (int i = b; i < std::min(e, b + n[static_cast<size_t>(v)]); ++i) out.recompute[static_cast<size_t>(i)] = full;
  }
  return out;
}

int longest_stage(const Plan& plan, const Model& model) {
  const std::vector<int> body = body_layers_per_stage(model, plan.stage_layers);
  return body.empty() ? 0 : *std::max_element(body.begin(), body.end());
}

// Megatron-LM: one recompute setting for every decoder layer, the partition kept. Block N's memory
// falls and its time rises with N, so the smallest N that fits is the fastest block plan.
std::vector<Candidate> megatron_candidates(const Request& request, const Plan& written) {
  const Model& model = request.model;
  const Plan base = without_recompute(written);
  std::vector<Candidate> out;
  out.push_back({"no recompute", base, fit_of(request, base)});
  const int selective = model.option_index("selective");
  if (every_body_layer_offers(model, selective)) {
    Plan p = base;
    for (int i = model.body_begin(); i < model.body_end(); ++i) p.recompute[static_cast<size_t>(i)] = selective;
    out.push_back(
        {"selective recompute of every decoder layer (--recompute-granularity selective)", p, fit_of(request, p)});
  }
  if (!every_body_layer_offers(model, model.option_index("full"))) return out;
  const int longest = longest_stage(base, model);
  const auto block = [&](int n) {
    return with_full_first(base, model, std::vector<int>(static_cast<size_t>(base.virtual_stages()), n));
  };
  const Plan all = block(longest);
  const Fit all_fit = fit_of(request, all);
  out.push_back({"full recompute of every decoder layer (--recompute-method uniform)", all, all_fit});
  if (!all_fit.feasible || longest <= 1) return out;
  int lo = 1, hi = longest;  // block hi fits; find the smallest n that does
  Fit hi_fit = all_fit;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const Fit f = fit_of(request, block(mid));
    if (f.feasible) {
      hi = mid;
      hi_fit = f;
    } else {
      lo = mid + 1;
    }
  }
  if (hi < longest)
    out.push_back({"full recompute of the first " + std::to_string(hi) +
                       " decoder layers of every model chunk (--recompute-method block --recompute-num-layers " +
                       std::to_string(hi) + ")",
                   block(hi), hi_fit});
  return out;
}

// MindFormers: recompute counts per stage, so each stage gets full recompute on as many of its
// first layers as it needs to fit (a stage's memory depends on its own layers only), on top of
// what the written counts already recompute.
std::vector<Candidate> mindformers_candidates(const Request& request, const Plan& written) {
  const Model& model = request.model;
  std::vector<Candidate> out;
  if (!every_body_layer_offers(model, model.option_index("full"))) return out;
  const int V = written.virtual_stages(), pp = written.pp_degree;
  const int longest = longest_stage(written, model);
  std::map<int, Fit> by_n;
  const auto fit_n = [&](int n) -> const Fit& {
    auto it = by_n.find(n);
    if (it == by_n.end())
      it =
          by_n.emplace(n, fit_of(request, with_full_first(written, model, std::vector<int>(static_cast<size_t>(V), n))))
              .first;
    return it->second;
  };
  std::vector<int> need(static_cast<size_t>(pp), 0);
  for (int s = 0; s < pp; ++s) {
    if (!fit_n(longest).stage_fits[static_cast<size_t>(s)]) {
      out.push_back({"full recompute of every decoder layer (recompute equal to the layers of each stage)",
                     with_full_first(written, model, std::vector<int>(static_cast<size_t>(V), longest)),
                     fit_n(longest)});
      return out;
    }
    int lo = 0, hi = longest;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (fit_n(mid).stage_fits[static_cast<size_t>(s)])
        hi = mid;
      else
        lo = mid + 1;
    }
    need[static_cast<size_t>(s)] = hi;
  }
  std::vector<int> per_virtual(static_cast<size_t>(V));
  for (int v = 0; v < V; ++v)
    per_virtual[static_cast<size_t>(v)] = need[static_cast<size_t>(written.physical_stage(v))];
  const Plan p = with_full_first(written, model, per_virtual);
  std::string counts;
  for (size_t s = 0; s < need.size(); ++s) counts += (s ? ", " : "") + std::to_string(need[s]);
  out.push_back({"full recompute of at least the first " + counts + " decoder layers of stages 0 to " +
                     std::to_string(pp - 1) + " (in each of their chunks)",
                 p, fit_of(request, p)});
  const int most = *std::max_element(need.begin(), need.end());
  out.push_back({"full recompute of at least the first " + std::to_string(most) + " decoder layers of every stage",
                 with_full_first(written, model, std::vector<int>(static_cast<size_t>(V), most)), fit_n(most)});
  return out;
}

}  // namespace

ExportedEstimate exported_estimate(const Estimate& e) {
  ExportedEstimate out;
  out.feasible = e.feasible;
  out.step_time_ms = e.step_time_ms;
  for (const StageEstimate& s : e.stages)
    if (&s == &e.stages.front() || s.memory.peak_mib > out.peak_mib) {
      out.peak_mib = s.memory.peak_mib;
      out.peak_stage = s.stage;
    }
  return out;
}

LauncherPlan megatron_runs(const Plan& plan, const Model& model) {
  LauncherPlan out{plan, {}, {}};
  use_launcher_schedule(out.plan, "Megatron-LM", out.caveats);
  nlohmann::json notes = nlohmann::json::array();
  const MegatronRecompute r = megatron_recompute(plan, model, notes);
  for (const auto& note : notes) {
    std::string sentence = note.get<std::string>();
    if (!sentence.empty()) sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    out.reasons.push_back(std::move(sentence));
  }
  const int full = model.option_index("full"), selective = model.option_index("selective");
  std::fill(out.plan.recompute.begin(), out.plan.recompute.end(), -1);
  std::map<int, std::vector<int>> unpriced;
  for (int v = 0; v < plan.virtual_stages(); ++v) {
    const auto [b, e] = body_range(plan, model, v);
    for (int i = b; i < e; ++i) {
      int option = -1;
      if (r.method == MegatronRecompute::Method::uniform) option = full;
      if (r.method == MegatronRecompute::Method::block && i - b < r.block_layers) option = full;
      if (r.method == MegatronRecompute::Method::selective) option = selective;
      assign(out.plan, model, i, option, unpriced);
    }
  }
  note_unpriced(unpriced, model, "Megatron-LM", out.caveats);
  return out;
}

LauncherPlan mindformers_runs(const Plan& plan, const Model& model) {
  LauncherPlan out{plan, {}, {}};
  use_launcher_schedule(out.plan, "MindFormers", out.caveats);
  const MindFormersCounts counts = mindformers_counts(plan, model);
  const std::vector<int> body = body_layers_per_stage(model, plan.stage_layers);
  const int pp = plan.pp_degree, V = plan.virtual_stages();
  // The export wrote the plan's virtual stage plan.virtual_stage(s, c) at list entry [c][s];
  // MindFormers reads that entry as its chunk-major virtual stage c pp + s.
  std::vector<int> source(static_cast<size_t>(V));
  for (int c = 0; c < plan.vpp_degree; ++c)
    for (int s = 0; s < pp; ++s)
      source[static_cast<size_t>(c * pp + s)] = is_v_shape(out.plan.schedule) ? c * pp + s : plan.virtual_stage(s, c);
  for (int w = 0; w < V; ++w) {
    const auto src = static_cast<size_t>(source[static_cast<size_t>(w)]);
    out.plan.stage_layers[static_cast<size_t>(w)] =
        body[src] + (w == 0 ? model.pinned_first : 0) + (w == V - 1 ? model.pinned_last : 0);
  }
  std::fill(out.plan.recompute.begin(), out.plan.recompute.end(), -1);
  const int full = model.option_index("full"), selective = model.option_index("selective");
  const int comm = model.option_index("comm"), both = model.option_index("selective_comm");
  std::map<int, std::vector<int>> unpriced;
  std::vector<int> both_as_selective;
  for (int w = 0; w < V; ++w) {
    const auto src = static_cast<size_t>(source[static_cast<size_t>(w)]);
    const int F = counts.recompute[src], S = counts.select[src], C = counts.select_comm[src];
    const auto [b, e] = body_range(out.plan, model, w);
    for (int i = b; i < e; ++i) {
      const int k = i - b;
      int option = -1;
      if (k < F)
        option = full;
      else if (k < std::min(S, C)) {
        option = both >= 0 ? both : selective;
        if (both < 0) both_as_selective.push_back(i);
      } else if (k < S)
        option = selective;
      else if (k < C)
        option = comm;
      assign(out.plan, model, i, option, unpriced);
    }
  }
  if (!both_as_selective.empty())
    out.caveats.push_back(
        "MindFormers applies both select and select-comm recompute to " + ranges_text(both_as_selective) +
        "; the model has no selective_comm option for that, so the estimate prices them as selective.");
  note_unpriced(unpriced, model, "MindFormers", out.caveats);
  return out;
}

ExportFit fit_export(Launcher launcher, const Request& request, const Plan& plan) {
  const Model& model = request.model;
  ExportFit out;
  out.plan = plan;
  const Fit own = fit_of(request, plan);
  if (launcher == Launcher::chrome_trace || launcher == Launcher::pytorch || launcher == Launcher::torchtitan) {
    out.exported = exported_of(own, true);
    if (launcher == Launcher::chrome_trace) return out;
    std::map<int, std::vector<int>> by_option;
    for (size_t i = 0; i < plan.recompute.size(); ++i)
      if (plan.recompute[i] >= 0) by_option[plan.recompute[i]].push_back(static_cast<int>(i));
    if (by_option.empty()) return out;
    // torchtitan's activation checkpointing: full or selective on every decoder layer.
    const auto every_layer = [&](const char* option) {
      const int o = model.option_index(option);
      return o >= 0 && by_option.size() == 1 && by_option.begin()->first == o &&
             static_cast<int>(by_option.begin()->second.size()) == model.body_count();
    };
    if (launcher == Launcher::torchtitan && (every_layer("full") || every_layer("selective"))) return out;
    std::string which;
    for (const auto& [option, layers] : by_option)
      which += (which.empty() ? "" : "; ") + option_text(model, option) + " on " + ranges_text(layers);
    out.exported.plan_kept = false;
    out.exported.changes.push_back(
        "the CSV carries each rank's program (stages, schedule, micro batches) but not recompute: the plan has " +
        which + "; apply that when building the stages (activation checkpointing), as this estimate assumes.");
    return out;
  }

  const std::string name = launcher_name(launcher);
  const LauncherPlan runs = launcher == Launcher::megatron ? megatron_runs(plan, model) : mindformers_runs(plan, model);
  const bool same = same_plan(runs.plan, plan);
  if (same && runs.caveats.empty()) {
    out.exported = exported_of(own, true);
    return out;
  }
  const Fit written = same ? own : fit_of(request, runs.plan);
  std::vector<std::string> changes = differences(plan, runs.plan, model, name);
  changes.insert(changes.end(), runs.caveats.begin(), runs.caveats.end());
  if (written.feasible || same) {
    changes.push_back(numbers_sentence(written, own, request));
    out.exported = exported_of(written, false);
    out.exported.changes = std::move(changes);
    return out;
  }

  // The written plan differs and does not fit: the fastest plan the launcher expresses that fits.
  const std::vector<Candidate> candidates = launcher == Launcher::megatron ? megatron_candidates(request, runs.plan)
                                                                           : mindformers_candidates(request, runs.plan);
  const Candidate* best = nullptr;
  const Candidate* lowest = nullptr;
  for (const Candidate& c : candidates) {
    if (c.fit.feasible && (!best || c.fit.step_time_ms < best->fit.step_time_ms)) best = &c;
    if (!lowest || c.fit.peak_mib < lowest->fit.peak_mib) lowest = &c;
  }
  const double limit = request.device.memory_limit_mib.value_or(0);
  std::string what;
  for (const std::string& c : runs.reasons.empty() ? changes : runs.reasons) what += (what.empty() ? "" : " ") + c;
  if (!what.empty()) what[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(what[0])));
  if (!best) {
    std::string why = name + " cannot run this plan as it is. " + what + " As written it peaks at " +
                      mib(written.peak_mib) + " on stage " + std::to_string(written.peak_stage) + ", over the " +
                      mib(limit) + " limit";
    if (lowest)
      why += ", and no plan " + name + " can express with this partition fits: the best, " + lowest->label +
             ", peaks at " + mib(lowest->fit.peak_mib) + " on stage " + std::to_string(lowest->fit.peak_stage) + ".";
    else
      why += ", and the model offers no full recompute on every decoder layer to bring it down.";
    out.refusal = why;
    return out;
  }
  out.plan = best->plan;
  out.replaced = true;
  out.exported = exported_of(best->fit, false);
  out.exported.changes.push_back(
      name + " cannot express the plan as it is, and as written it would peak at " + mib(written.peak_mib) +
      " on stage " + std::to_string(written.peak_stage) + ", over the " + mib(limit) +
      " limit; written instead, the fastest plan it expresses that fits: " + best->label + ".");
  for (std::string& c : differences(plan, best->plan, model, name)) out.exported.changes.push_back(std::move(c));
  out.exported.changes.insert(out.exported.changes.end(), runs.caveats.begin(), runs.caveats.end());
  out.exported.changes.push_back(numbers_sentence(best->fit, own, request));
  return out;
}

}  // namespace ppb
