// The search command: the space of pipeline shapes, each balanced by PPB and simulated.
#include "ppb/search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "command_support.hpp"
#include "ppb/balance.hpp"
#include "ppb/estimate.hpp"
#include "ppb/io.hpp"
#include "ppb/limits.hpp"

namespace ppb {

using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Combination {
  int pp = 1;
  int vpp = 1;
  std::int64_t micro_batch_num = 1;
  std::int64_t dp_degree = 0;  // 0: not known
  Schedule schedule = Schedule::one_f_one_b;
};

struct Evaluated {
  Combination combination;
  bool feasible = false;
  double step_time_ms = 0;
  double time_per_sample_ms = 0;  // step time over the samples of a step
  double peak_mib = 0;
  double over_mib = 0;  // largest overshoot of the memory limit (infeasible ones)
  json candidate;
  std::string group;  // why it is infeasible, as a category
};

constexpr std::int64_t kMaxSpace = limits::max_search_candidates;

// A list of integers, or a range {"min", "max", "step"} / {"min", "max", "factor"}.
std::optional<std::vector<std::int64_t>> integer_choices(const json& value, const std::string& path, std::int64_t lo,
                                                         std::int64_t hi, Diagnostics& d) {
  std::vector<std::int64_t> out;
  auto check = [&](const json& v, const std::string& at) -> std::optional<std::int64_t> {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || std::floor(v.get<double>()) != v.get<double>()) {
      d.error("TYPE_MISMATCH", at, "must be a whole number.");
      return std::nullopt;
    }
    const double x = v.get<double>();
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
      d.error("OUT_OF_RANGE", at, "must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ".");
      return std::nullopt;
    }
    return static_cast<std::int64_t>(x);
  };
  if (value.is_array()) {
    if (value.empty()) {
      d.error("SEARCH_EMPTY", path, "give at least one value.");
      return std::nullopt;
    }
    for (std::size_t i = 0; i < value.size() && i < static_cast<std::size_t>(kMaxSpace); ++i)
      if (auto v = check(value[i], path + "/" + std::to_string(i))) out.push_back(*v);
      else return std::nullopt;
  } else if (value.is_object()) {
    auto min = value.contains("min") ? check(value["min"], path + "/min") : std::nullopt;
    auto max = value.contains("max") ? check(value["max"], path + "/max") : std::nullopt;
    if (!min || !max) {
      if (!value.contains("min") || !value.contains("max"))
        d.error("REQUIRED", path, "a range needs \"min\" and \"max\".");
      return std::nullopt;
    }
    const std::int64_t step = value.contains("step") ? check(value["step"], path + "/step").value_or(0) : 0;
    const std::int64_t factor = value.contains("factor") ? check(value["factor"], path + "/factor").value_or(0) : 0;
    if ((step > 0) == (factor > 1) && (value.contains("step") || value.contains("factor"))) {
      d.error("SEARCH_RANGE", path, "a range takes either \"step\" (at least 1) or \"factor\" (at least 2).");
      return std::nullopt;
    }
    for (std::int64_t v = *min; v <= *max && static_cast<std::int64_t>(out.size()) < kMaxSpace;
         v = factor > 1 ? v * factor : v + std::max<std::int64_t>(step, 1))
      out.push_back(v);
    if (out.empty()) {
      d.error("SEARCH_EMPTY", path, "the range is empty (min above max).");
      return std::nullopt;
    }
  } else {
    d.error("TYPE_MISMATCH", path, "give a list of numbers or a range {\"min\", \"max\", \"step\" or \"factor\"}.");
    return std::nullopt;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<std::int64_t> optional_int(const json& section, const char* key, const std::string& path, Diagnostics& d) {
  if (!section.is_object() || !section.contains(key)) return std::nullopt;
  const json& v = section[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || std::floor(v.get<double>()) != v.get<double>() ||
      v.get<double>() < 1 || v.get<double>() > static_cast<double>(limits::max_batch)) {
    d.error("OUT_OF_RANGE", path + "/" + key, std::string(key) + " must be a whole number from 1 to " +
                                                  std::to_string(limits::max_batch) + ".");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v.get<double>());
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

struct SearchSession::Impl {
  std::string error;
  Request request;
  Diagnostics diagnostics;
  std::vector<int> recompute_options;
  std::vector<Combination> combinations;
  std::map<std::string, std::int64_t> skipped;  // reason -> count
  std::int64_t space = 0;
  std::size_t next = 0;
  std::vector<Evaluated> evaluated;
  std::int64_t top_k = 20;
  bool rank_per_sample = false;  // search.rank_by "time_per_sample"
  std::int64_t max_candidates = 10'000;
  double time_budget_ms = 60'000;
  double candidate_time_ms = 15;
  bool budget_hit = false;
  Clock::time_point started = Clock::now();
  double elapsed_ms = 0;  // time spent inside step()
  std::optional<std::int64_t> global_batch_size, micro_batch_size;

  void parse(const json& document);
  void enumerate(const json& section, const json& document);
  Evaluated evaluate(const Combination& c) const;
};

void SearchSession::Impl::parse(const json& document) {
  Diagnostics& d = diagnostics;
  request = parse_request(document, d);
  if (!d.ok()) return;
  const json section = document.contains("search") ? document["search"] : json::object();
  if (!section.is_object()) {
    d.error("TYPE_MISMATCH", "/search", "search must be an object.");
    return;
  }
  for (auto it = section.begin(); it != section.end(); ++it) {
    static const char* known[] = {"pp_degree", "vpp_degree", "micro_batch_num", "schedule", "recompute_options",
                                  "top_k", "max_candidates", "time_budget_ms", "candidate_time_ms", "rank_by"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return it.key() == k; }))
      d.warning("UNKNOWN_FIELD", "/search/" + pointer_token(it.key()), "field \"" + it.key() + "\" is not part of ppb.v1 and was ignored.");
  }
  // Recompute options PPB may use: the search's list, else balance's, else every option offered.
  for (std::size_t o = 0; o < request.model.recompute_options.size(); ++o) recompute_options.push_back(static_cast<int>(o));
  const json* options = section.contains("recompute_options") ? &section["recompute_options"]
                        : document.contains("balance") && document["balance"].is_object() &&
                                document["balance"].contains("recompute_options")
                            ? &document["balance"]["recompute_options"]
                            : nullptr;
  if (options) {
    const std::string path = section.contains("recompute_options") ? "/search/recompute_options" : "/balance/recompute_options";
    recompute_options.clear();
    if (!options->is_array()) d.error("TYPE_MISMATCH", path, "recompute_options must be a list of option names.");
    else
      for (std::size_t i = 0; i < options->size(); ++i) {
        const json& name = (*options)[i];
        const int index = name.is_string() ? request.model.option_index(name.get<std::string>()) : -1;
        if (name == "none") continue;
        if (index < 0)
          d.error("RECOMPUTE_OPTION_UNKNOWN", path + "/" + std::to_string(i),
                  "no layer of the model offers recompute option " + name.dump() + ".");
        else if (std::find(recompute_options.begin(), recompute_options.end(), index) == recompute_options.end())
          recompute_options.push_back(index);  // listed twice counts once
      }
  }
  if (auto v = optional_int(section, "top_k", "/search", d)) top_k = *v;
  if (section.contains("rank_by")) {
    const json& v = section["rank_by"];
    if (v == "time_per_sample") rank_per_sample = true;
    else if (v != "step_time")
      d.error("RANK_BY_UNKNOWN", "/search/rank_by",
              "rank_by is \"step_time\" (the default) or \"time_per_sample\" (step time over micro_batch_num x "
              "micro_batch_size x dp_degree, to compare candidates that process different batches).");
  }
  if (auto v = optional_int(section, "max_candidates", "/search", d)) max_candidates = *v;
  for (auto [key, target] : {std::pair{"time_budget_ms", &time_budget_ms}, std::pair{"candidate_time_ms", &candidate_time_ms}}) {
    if (!section.contains(key)) continue;
    const json& v = section[key];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 3'600'000)
      d.error("OUT_OF_RANGE", std::string("/search/") + key, std::string(key) + " must be above 0 and at most 3600000.");
    else
      *target = v.get<double>();
  }
  if (d.ok()) enumerate(section, document);
}

void SearchSession::Impl::enumerate(const json& section, const json& document) {
  Diagnostics& d = diagnostics;
  const Model& model = request.model;
  const std::int64_t units = model.body_count() + (model.pinned_first > 0 ? 1 : 0) + (model.pinned_last > 0 ? 1 : 0);
  std::vector<std::int64_t> pps, vpps, ms;
  if (section.contains("pp_degree")) {
    if (auto v = integer_choices(section["pp_degree"], "/search/pp_degree", 1, limits::max_pp_degree, d)) pps = *v;
  } else {
    for (std::int64_t p = 1; p <= std::min<std::int64_t>(units, 64); p *= 2) pps.push_back(p);
  }
  if (section.contains("vpp_degree")) {
    if (auto v = integer_choices(section["vpp_degree"], "/search/vpp_degree", 1, limits::max_vpp_degree, d)) vpps = *v;
  } else {
    vpps = {1};
  }
  std::vector<Schedule> schedules;
  if (section.contains("schedule")) {
    const json& s = section["schedule"];
    if (!s.is_array() || s.empty()) d.error("TYPE_MISMATCH", "/search/schedule", "schedule must be a non-empty list of names.");
    else
      for (std::size_t i = 0; i < s.size(); ++i) {
        auto schedule = s[i].is_string() ? schedule_from_name(s[i].get<std::string>()) : std::nullopt;
        if (!schedule)
          d.error("SCHEDULE_UNKNOWN", "/search/schedule/" + std::to_string(i),
                  "schedule " + s[i].dump() + " is not known; use gpipe, 1f1b, interleaved_1f1b or zb_h1.");
        else if (std::find(schedules.begin(), schedules.end(), *schedule) == schedules.end())
          schedules.push_back(*schedule);
      }
  } else {
    schedules = {Schedule::one_f_one_b};
  }
  // Coupling to the cluster: dp = world_size / (pp x tp x cp), m = global batch / (micro batch x dp).
  const json training = document.contains("training") ? document["training"] : json::object();
  const json parallel = document.contains("parallel") ? document["parallel"] : json::object();
  const auto world = optional_int(training, "world_size", "/training", d);
  const std::int64_t tp = optional_int(training, "tp_degree", "/training", d)
                              .value_or(optional_int(parallel, "tp_degree", "/parallel", d).value_or(1));
  const std::int64_t cp = optional_int(training, "cp_degree", "/training", d)
                              .value_or(optional_int(parallel, "cp_degree", "/parallel", d).value_or(1));
  // Expert parallelism is carved out of the data-parallel ranks (Megatron-LM): it takes no devices of
  // its own, but dp_degree must be a multiple of it.
  const auto training_ep = optional_int(training, "ep_degree", "/training", d);
  const std::int64_t ep = training_ep.value_or(optional_int(parallel, "ep_degree", "/parallel", d).value_or(1));
  if (!world && !request.training.dp_degree && training_ep && *training_ep > 1)
    d.warning("IGNORED_FIELD", "/training/ep_degree",
              "ep_degree only constrains dp_degree, which is not known here; give training.world_size or dp_degree, "
              "or leave ep_degree out.");
  global_batch_size = request.training.global_batch_size;
  micro_batch_size = request.training.micro_batch_size;
  if (world && !global_batch_size)
    d.error("REQUIRED", "/training/global_batch_size", "with training.world_size the search needs global_batch_size to derive micro_batch_num.");
  if (!world) {
    if (section.contains("micro_batch_num")) {
      if (auto v = integer_choices(section["micro_batch_num"], "/search/micro_batch_num", 1, limits::max_micro_batch_num, d)) ms = *v;
    } else {
      Diagnostics local;
      if (auto m = resolve_micro_batch_num(request.training, request.pipeline, local)) ms = {*m};
      else
        d.error("MICRO_BATCH_NUM_MISSING", "/search/micro_batch_num",
                "give search.micro_batch_num, pipeline.micro_batch_num, or training.global_batch_size (with world_size "
                "to couple it to pp_degree).");
    }
  } else if (section.contains("micro_batch_num")) {
    d.warning("IGNORED_FIELD", "/search/micro_batch_num",
              "with training.world_size, micro_batch_num follows from the global batch and dp_degree; the list is ignored.");
  }
  if (!d.ok()) return;

  const std::int64_t mbs = micro_batch_size.value_or(1);
  static const char* const kEpSkip = "dp_degree is not divisible by ep_degree";
  for (std::int64_t pp : pps)
    for (std::int64_t vpp : vpps)
      for (Schedule schedule : schedules) {
        std::vector<std::pair<std::int64_t, std::int64_t>> batch;  // (m, dp)
        std::string skip;
        if ((schedule == Schedule::interleaved_1f1b) != (vpp > 1)) {
          skip = schedule == Schedule::interleaved_1f1b ? "interleaved_1f1b needs vpp_degree of 2 or more"
                                                        : "vpp_degree above 1 needs interleaved_1f1b";
        } else if (world) {
          const std::int64_t devices = pp * tp * cp;
          if (*world % devices != 0) {
            skip = "world_size is not divisible by pp_degree x tp_degree x cp_degree";
          } else {
            const std::int64_t dp = *world / devices;
            if (dp % ep != 0) skip = kEpSkip;
            else if (*global_batch_size % (mbs * dp) != 0) skip = "global_batch_size is not divisible by micro_batch_size x dp_degree";
            else batch.emplace_back(*global_batch_size / (mbs * dp), dp);
          }
        } else {
          const std::int64_t dp = request.training.dp_degree.value_or(0);  // 0: not known
          if (dp > 0 && dp % ep != 0) skip = kEpSkip;
          else
            for (std::int64_t m : ms) batch.emplace_back(m, dp);
        }
        // A skipped shape stands for every micro_batch_num it would have paired with (one when coupled).
        const std::int64_t count = static_cast<std::int64_t>(skip.empty() ? batch.size() : world ? 1 : ms.size());
        space += count;
        if (!skip.empty()) {
          skipped[skip] += count;
          continue;
        }
        for (auto [m, dp] : batch) {
          if (static_cast<std::int64_t>(combinations.size()) >= kMaxSpace) {
            d.error("SEARCH_LIMIT", "/search", "the search has more than " + std::to_string(kMaxSpace) +
                                                   " combinations to evaluate; narrow the lists.");
            return;
          }
          combinations.push_back({static_cast<int>(pp), static_cast<int>(vpp), m, dp, schedule});
        }
      }
}

Evaluated SearchSession::Impl::evaluate(const Combination& c) const {
  const Model& model = request.model;
  Evaluated out;
  out.combination = c;
  json cand = {{"pp_degree", c.pp},
               {"vpp_degree", c.vpp},
               {"micro_batch_num", c.micro_batch_num},
               {"schedule", schedule_name(c.schedule)},
               {"dp_degree", c.dp_degree > 0 ? json(c.dp_degree) : json(nullptr)}};
  // Ruled out before balancing: no plan, so the figures of one are null (every candidate has the same keys).
  auto infeasible = [&](const std::string& group, const std::string& reason) {
    out.feasible = false;
    out.group = group;
    cand["feasible"] = false;
    cand["reasons"] = {reason};
    static const char* const figures_of_a_plan[] = {"step_time_ms", "time_per_sample_ms", "peak_mib", "bubble_fraction", "imbalance",
                                                    "plan", "proven_optimal", "within_tolerance",
                                                    "throughput_samples_per_s", "even_split", "gain_ms"};
    for (const char* key : figures_of_a_plan) cand[key] = nullptr;
    out.candidate = cand;
    return out;
  };
  const std::int64_t virtual_stages = static_cast<std::int64_t>(c.pp) * c.vpp;
  const std::int64_t units = model.body_count() + (model.pinned_first > 0 ? 1 : 0) + (model.pinned_last > 0 ? 1 : 0);
  if (virtual_stages > units && !request.pipeline.allow_empty_stages)
    return infeasible("more virtual stages than the model has layers to split",
                      std::to_string(virtual_stages) + " virtual stages, but the model splits into at most " +
                          std::to_string(units));
  if (c.schedule == Schedule::interleaved_1f1b && c.micro_batch_num % c.pp != 0)
    return infeasible("micro_batch_num is not a multiple of pp_degree (interleaved_1f1b)",
                      "interleaved_1f1b needs micro_batch_num (" + std::to_string(c.micro_batch_num) +
                          ") to be a multiple of pp_degree (" + std::to_string(c.pp) + ")");
  if (virtual_stages * c.micro_batch_num > limits::max_simulated_pairs)
    return infeasible("above the simulation cap", "pp_degree x vpp_degree x micro_batch_num = " +
                                                      std::to_string(virtual_stages * c.micro_batch_num) + " exceeds the cap of " +
                                                      std::to_string(limits::max_simulated_pairs));
  for (const auto& component : request.components)
    if ((component.step_ms.size() > 1 && component.step_ms.size() != static_cast<std::size_t>(c.pp)) ||
        (component.memory_mib.size() > 1 && component.memory_mib.size() != static_cast<std::size_t>(c.pp)))
      return infeasible("component lists do not match pp_degree",
                        "component \"" + component.name + "\" gives per-stage values for a different pp_degree");
  Plan shape;
  shape.pp_degree = c.pp;
  shape.vpp_degree = c.vpp;
  shape.micro_batch_num = c.micro_batch_num;
  shape.schedule = c.schedule;
  BalanceOptions options;
  options.recompute_options = recompute_options;
  options.allow_empty_stages = request.pipeline.allow_empty_stages;
  options.time_budget_ms = candidate_time_ms;
  options.components = request.components;
  const BalanceResult found = balance(model, request.device, shape, options);
  const Estimate e = estimate(model, request.device, found.plan, false, request.components);
  double peak = 0;
  for (const auto& s : e.stages) peak = std::max(peak, s.memory.peak_mib);
  out.feasible = e.feasible;
  out.step_time_ms = e.step_time_ms;
  // Samples per step: micro batches x micro batch size (default 1, as in the batch arithmetic) x
  // data-parallel replicas (1 when not known: then every candidate has the same replicas).
  const auto samples = static_cast<double>(c.micro_batch_num * micro_batch_size.value_or(1) * std::max<std::int64_t>(c.dp_degree, 1));
  out.time_per_sample_ms = e.step_time_ms / samples;
  out.peak_mib = peak;
  cand["feasible"] = e.feasible;
  cand["step_time_ms"] = e.step_time_ms;
  cand["time_per_sample_ms"] = out.time_per_sample_ms;
  cand["peak_mib"] = peak;
  cand["bubble_fraction"] = e.bubble_fraction;
  cand["imbalance"] = {{"max_over_mean", e.imbalance_max_over_mean}, {"max_minus_min_ms", e.imbalance_max_minus_min_ms}};
  json recompute = json::object();
  for (const auto& [k, v] : recompute_layers_of(found.plan, model)) recompute[k] = v;
  json counts = json::object();
  for (const auto& [k, v] : recompute_counts_of(found.plan, model)) counts[k] = v;
  cand["plan"] = {{"stage_layers", found.plan.stage_layers},
                  {"layer_offset", layer_offset_of(found.plan, model)},
                  {"layer_recompute", recompute},
                  {"recompute_counts", counts}};
  cand["proven_optimal"] = found.proven_optimal;
  cand["within_tolerance"] = found.within_tolerance ? json(*found.within_tolerance) : json(nullptr);
  if (c.dp_degree > 0)
    cand["throughput_samples_per_s"] = samples / (e.step_time_ms / 1000.0);
  else
    cand["throughput_samples_per_s"] = nullptr;
  // Gain over the even split without recompute, when that plan is valid.
  Plan even = shape;
  even.stage_layers = even_stage_layers(model, static_cast<int>(virtual_stages));
  even.recompute.assign(static_cast<std::size_t>(model.layer_count()), -1);
  const bool even_valid = request.pipeline.allow_empty_stages ||
                          std::none_of(even.stage_layers.begin(), even.stage_layers.end(), [](int n) { return n == 0; });
  if (even_valid) {
    const Estimate base = estimate(model, request.device, even, false, request.components);
    cand["even_split"] = {{"step_time_ms", base.step_time_ms}, {"feasible", base.feasible}};
    cand["gain_ms"] = base.step_time_ms - e.step_time_ms;
  } else {
    cand["even_split"] = nullptr;
    cand["gain_ms"] = nullptr;
  }
  if (!e.feasible) {
    json reasons = json::array();
    std::vector<int> over_stages;
    for (const auto& v : e.violations) {
      const double over = v.peak_mib - v.limit_mib;
      out.over_mib = std::max(out.over_mib, over);
      over_stages.push_back(v.stage);
      reasons.push_back("stage " + std::to_string(v.stage) + " needs " + std::to_string(std::llround(v.peak_mib)) +
                        " MiB, limit " + std::to_string(std::llround(v.limit_mib)) + " MiB (" +
                        std::to_string(static_cast<long long>(std::ceil(over))) + " MiB over)");
    }
    cand["reasons"] = reasons;
    out.group = over_stages.size() == static_cast<std::size_t>(c.pp) ? "every stage over the memory limit"
                                                                     : "stages " + join(over_stages) + " over the memory limit";
  }
  out.candidate = cand;
  return out;
}

SearchSession::SearchSession(std::string_view request_json) : impl_(std::make_unique<Impl>()) {
  try {
    // The same checked parse as every other command: size, depth, value count, number range.
    Diagnostics checks;
    const auto document = parse_json_text(request_json, checks);
    if (!document) {
      impl_->error = detail::invalid(checks).json;
      return;
    }
    impl_->parse(*document);
    if (!impl_->diagnostics.ok()) impl_->error = detail::invalid(impl_->diagnostics).json;
  } catch (const std::bad_alloc&) {
    impl_->error = json({{"ok", false}, {"errors", {{{"code", "OUT_OF_MEMORY"}, {"path", ""},
                                                     {"message", "the engine ran out of memory on this request."}}}}}).dump();
  } catch (const std::exception& e) {
    impl_->error = json({{"ok", false}, {"errors", {{{"code", "INTERNAL"}, {"path", ""}, {"message", e.what()}}}}}).dump();
  }
}

SearchSession::~SearchSession() = default;

const std::string& SearchSession::error() const { return impl_->error; }

SearchProgress SearchSession::step(double slice_ms) {
  Impl& s = *impl_;
  const auto total = static_cast<std::int64_t>(s.combinations.size());
  if (!s.error.empty()) return {0, 0, true};
  const Clock::time_point begin = Clock::now();
  try {
    do {
      if (s.next >= s.combinations.size()) break;
      if (static_cast<std::int64_t>(s.evaluated.size()) >= s.max_candidates || s.elapsed_ms + ms_since(begin) > s.time_budget_ms) {
        s.budget_hit = true;
        break;
      }
      s.evaluated.push_back(s.evaluate(s.combinations[s.next++]));
    } while (ms_since(begin) < slice_ms);
  } catch (const std::exception& e) {
    s.error = json({{"ok", false}, {"errors", {{{"code", "INTERNAL"}, {"path", ""}, {"message", e.what()}}}}}).dump();
  }
  s.elapsed_ms += ms_since(begin);
  return {static_cast<std::int64_t>(s.next), total, s.next >= s.combinations.size() || s.budget_hit || !s.error.empty()};
}

std::string SearchSession::result(bool cancelled) {
  Impl& s = *impl_;
  if (!s.error.empty()) return s.error;
  try {
    std::vector<const Evaluated*> feasible, infeasible;
    for (const auto& e : s.evaluated) (e.feasible ? feasible : infeasible).push_back(&e);
    // The time candidates are ranked and the Pareto front is drawn by (search.rank_by).
    const auto time_of = [&s](const Evaluated* e) { return s.rank_per_sample ? e->time_per_sample_ms : e->step_time_ms; };
    std::stable_sort(feasible.begin(), feasible.end(), [&](const Evaluated* a, const Evaluated* b) {
      return time_of(a) != time_of(b) ? time_of(a) < time_of(b) : a->peak_mib < b->peak_mib;
    });
    std::stable_sort(infeasible.begin(), infeasible.end(),
                     [](const Evaluated* a, const Evaluated* b) { return a->over_mib < b->over_mib; });
    // Pareto front of (step time, peak memory) among the feasible: sorted by time, a candidate is on
    // it when no faster-or-equal one has lower-or-equal memory with one of the two strictly lower.
    std::vector<const Evaluated*> front;
    for (const Evaluated* e : feasible) {
      const bool dominated = std::any_of(feasible.begin(), feasible.end(), [&](const Evaluated* o) {
        return time_of(o) <= time_of(e) && o->peak_mib <= e->peak_mib &&
               (time_of(o) < time_of(e) || o->peak_mib < e->peak_mib);
      });
      if (!dominated) front.push_back(e);
    }
    // Returned: the top_k feasible, any Pareto point beyond them, then up to top_k infeasible.
    std::vector<const Evaluated*> shown;
    for (std::size_t i = 0; i < feasible.size(); ++i)
      if (static_cast<std::int64_t>(i) < s.top_k || std::find(front.begin(), front.end(), feasible[i]) != front.end())
        shown.push_back(feasible[i]);
    for (std::size_t i = 0; i < infeasible.size() && static_cast<std::int64_t>(i) < s.top_k; ++i) shown.push_back(infeasible[i]);
    json candidates = json::array(), pareto = json::array();
    for (std::size_t i = 0; i < shown.size(); ++i) {
      candidates.push_back(shown[i]->candidate);
      if (std::find(front.begin(), front.end(), shown[i]) != front.end()) pareto.push_back(i);
    }
    std::map<std::string, std::int64_t> groups;
    for (const Evaluated* e : infeasible) ++groups[e->group];
    json infeasible_groups = json::array(), skipped_groups = json::array();
    for (const auto& [reason, count] : groups) infeasible_groups.push_back({{"reason", reason}, {"count", count}});
    for (const auto& [reason, count] : s.skipped) skipped_groups.push_back({{"reason", reason}, {"count", count}});
    std::int64_t skipped = 0;
    for (const auto& [_, count] : s.skipped) skipped += count;
    const bool unfinished = s.next < s.combinations.size();
    json result = {{"candidates", candidates},
                   {"pareto", pareto},
                   {"counts",
                    {{"space", s.space},
                     {"evaluated", s.evaluated.size()},
                     {"skipped", skipped},
                     {"infeasible", infeasible.size()},
                     {"feasible", feasible.size()},
                     {"shown", shown.size()}}},
                   {"infeasible_groups", infeasible_groups},
                   {"skipped_groups", skipped_groups},
                   {"elapsed_ms", s.elapsed_ms},
                   {"rank_by", s.rank_per_sample ? "time_per_sample" : "step_time"},
                   // A cancel after the last combination cut nothing: the result is whole.
                   {"partial", s.budget_hit || unfinished},
                   {"cancelled", cancelled && unfinished}};
    return detail::ok_response("search", result, s.diagnostics).json;
  } catch (const std::exception& e) {
    return json({{"ok", false}, {"errors", {{{"code", "INTERNAL"}, {"path", ""}, {"message", e.what()}}}}}).dump();
  }
}

namespace detail {

CommandOutput run_search(const json& document) {
  SearchSession session(document.dump());
  if (!session.error().empty()) {
    const bool internal = session.error().find("\"INTERNAL\"") != std::string::npos;
    return {session.error(), internal ? 1 : 2};
  }
  while (!session.step(1e9).finished) {
  }
  return {session.result(false), 0};
}

}  // namespace detail
}  // namespace ppb
