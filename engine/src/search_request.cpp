// The search section of a request, read into a SearchProblem, its enumerated space and settings.
#include "search_request.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ppb/io.hpp"
#include "ppb/limits.hpp"
#include "ppb/plan.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

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
      if (auto v = check(value[i], path + "/" + std::to_string(i)))
        out.push_back(*v);
      else
        return std::nullopt;
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

std::optional<std::int64_t> optional_int(const json& section, const char* key, const std::string& path,
                                         Diagnostics& d) {
  if (!section.is_object() || !section.contains(key)) return std::nullopt;
  const json& v = section[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || std::floor(v.get<double>()) != v.get<double>() ||
      v.get<double>() < 1 || v.get<double>() > static_cast<double>(limits::max_batch)) {
    d.error("OUT_OF_RANGE", path + "/" + key,
            std::string(key) + " must be a whole number from 1 to " + std::to_string(limits::max_batch) + ".");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v.get<double>());
}

std::vector<int> as_ints(const std::vector<std::int64_t>& values) {
  return {values.begin(), values.end()};  // bounded by the degree caps
}

// The recompute options PPB may use: the search's list, else balance's, else every option offered.
std::vector<int> read_recompute_options(const json& document, const json& section, const Model& model, Diagnostics& d) {
  std::vector<int> options;
  for (std::size_t o = 0; o < model.recompute_options.size(); ++o) options.push_back(static_cast<int>(o));
  const json* listed = section.contains("recompute_options") ? &section["recompute_options"]
                       : document.contains("balance") && document["balance"].is_object() &&
                               document["balance"].contains("recompute_options")
                           ? &document["balance"]["recompute_options"]
                           : nullptr;
  if (!listed) return options;
  const std::string path =
      section.contains("recompute_options") ? "/search/recompute_options" : "/balance/recompute_options";
  options.clear();
  if (!listed->is_array()) {
    d.error("TYPE_MISMATCH", path, "recompute_options must be a list of option names.");
    return options;
  }
  for (std::size_t i = 0; i < listed->size(); ++i) {
    const json& name = (*listed)[i];
    const int index = name.is_string() ? model.option_index(name.get<std::string>()) : -1;
    if (name == "none") continue;
    if (index < 0)
      d.error("RECOMPUTE_OPTION_UNKNOWN", path + "/" + std::to_string(i),
              "no layer of the model offers recompute option " + name.dump() + ".");
    else if (std::find(options.begin(), options.end(), index) == options.end())
      options.push_back(index);  // listed twice counts once
  }
  return options;
}

SearchSettings read_settings(const json& section, double& candidate_time_ms, Diagnostics& d) {
  SearchSettings settings;
  if (auto v = optional_int(section, "top_k", "/search", d)) settings.top_k = *v;
  if (section.contains("rank_by")) {
    const json& v = section["rank_by"];
    if (v == "time_per_sample")
      settings.rank_by = RankBy::time_per_sample;
    else if (v != "step_time")
      d.error("RANK_BY_UNKNOWN", "/search/rank_by",
              "rank_by is \"step_time\" (the default) or \"time_per_sample\" (step time over micro_batch_num x "
              "micro_batch_size x dp_degree, to compare candidates that process different batches).");
  }
  if (auto v = optional_int(section, "max_candidates", "/search", d)) settings.max_candidates = *v;
  for (auto [key, target] :
       {std::pair{"time_budget_ms", &settings.time_budget_ms}, std::pair{"candidate_time_ms", &candidate_time_ms}}) {
    if (!section.contains(key)) continue;
    const json& v = section[key];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 3'600'000)
      d.error("OUT_OF_RANGE", std::string("/search/") + key,
              std::string(key) + " must be above 0 and at most 3600000.");
    else
      *target = v.get<double>();
  }
  return settings;
}

// The dimensions of the space and its coupling to the cluster.
SearchSpace read_space(const json& document, const json& section, const Request& request, Diagnostics& d) {
  SearchSpace space;
  const Model& model = request.model;
  const std::int64_t units = model.body_count() + (model.pinned_first > 0 ? 1 : 0) + (model.pinned_last > 0 ? 1 : 0);
  if (section.contains("pp_degree")) {
    if (auto v = integer_choices(section["pp_degree"], "/search/pp_degree", 1, limits::max_pp_degree, d))
      space.pp_degrees = as_ints(*v);
  } else {
    for (std::int64_t p = 1; p <= std::min<std::int64_t>(units, 64); p *= 2)
      space.pp_degrees.push_back(static_cast<int>(p));
  }
  if (section.contains("vpp_degree"))
    if (auto v = integer_choices(section["vpp_degree"], "/search/vpp_degree", 1, limits::max_vpp_degree, d))
      space.vpp_degrees = as_ints(*v);
  if (section.contains("schedule")) {
    space.schedules.clear();
    const json& s = section["schedule"];
    if (!s.is_array() || s.empty())
      d.error("TYPE_MISMATCH", "/search/schedule", "schedule must be a non-empty list of names.");
    else
      for (std::size_t i = 0; i < s.size(); ++i) {
        auto schedule = s[i].is_string() ? schedule_from_name(s[i].get<std::string>()) : std::nullopt;
        if (!schedule)
          d.error("SCHEDULE_UNKNOWN", "/search/schedule/" + std::to_string(i),
                  "schedule " + s[i].dump() + " is not known; use gpipe, 1f1b, interleaved_1f1b or zb_h1.");
        else if (std::find(space.schedules.begin(), space.schedules.end(), *schedule) == space.schedules.end())
          space.schedules.push_back(*schedule);
      }
  }
  // Coupling to the cluster: dp = world_size / (pp x tp x cp), m = global batch / (micro batch x dp).
  const json training = document.contains("training") ? document["training"] : json::object();
  const json parallel = document.contains("parallel") ? document["parallel"] : json::object();
  const auto world = optional_int(training, "world_size", "/training", d);
  const std::int64_t tp = optional_int(training, "tp_degree", "/training", d)
                              .value_or(optional_int(parallel, "tp_degree", "/parallel", d).value_or(1));
  const std::int64_t cp = optional_int(training, "cp_degree", "/training", d)
                              .value_or(optional_int(parallel, "cp_degree", "/parallel", d).value_or(1));
  const auto training_ep = optional_int(training, "ep_degree", "/training", d);
  space.ep_degree = training_ep.value_or(optional_int(parallel, "ep_degree", "/parallel", d).value_or(1));
  if (!world && !request.training.dp_degree && training_ep && *training_ep > 1)
    d.warning("IGNORED_FIELD", "/training/ep_degree",
              "ep_degree only constrains dp_degree, which is not known here; give training.world_size or dp_degree, "
              "or leave ep_degree out.");
  const auto& global_batch_size = request.training.global_batch_size;
  if (world && !global_batch_size)
    d.error("REQUIRED", "/training/global_batch_size",
            "with training.world_size the search needs global_batch_size to derive micro_batch_num.");
  if (!world) {
    space.dp_degree = request.training.dp_degree;
    if (section.contains("micro_batch_num")) {
      if (auto v =
              integer_choices(section["micro_batch_num"], "/search/micro_batch_num", 1, limits::max_micro_batch_num, d))
        space.micro_batch_nums = *v;
    } else {
      Diagnostics local;
      if (auto m = resolve_micro_batch_num(request.training, request.pipeline, local))
        space.micro_batch_nums = {*m};
      else
        d.error("MICRO_BATCH_NUM_MISSING", "/search/micro_batch_num",
                "give search.micro_batch_num, pipeline.micro_batch_num, or training.global_batch_size (with world_size "
                "to couple it to pp_degree).");
    }
  } else {
    if (section.contains("micro_batch_num"))
      d.warning("IGNORED_FIELD", "/search/micro_batch_num",
                "with training.world_size, micro_batch_num follows from the global batch and dp_degree; the list is "
                "ignored.");
    if (global_batch_size)
      space.cluster = SearchCluster{*world, tp, cp, *global_batch_size, request.training.micro_batch_size.value_or(1)};
  }
  return space;
}

}  // namespace

std::optional<SearchRequest> parse_search_request(const json& document, Diagnostics& d) {
  Request request = parse_request(document, d);
  if (!d.ok()) return std::nullopt;
  const json section = document.contains("search") ? document["search"] : json::object();
  if (!section.is_object()) {
    d.error("TYPE_MISMATCH", "/search", "search must be an object.");
    return std::nullopt;
  }
  for (auto it = section.begin(); it != section.end(); ++it) {
    static const char* known[] = {"pp_degree",         "vpp_degree", "micro_batch_num", "schedule",
                                  "recompute_options", "top_k",      "max_candidates",  "time_budget_ms",
                                  "candidate_time_ms", "rank_by"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return it.key() == k; }))
      d.warning("UNKNOWN_FIELD", "/search/" + pointer_token(it.key()),
                "field \"" + it.key() + "\" is not part of ppb.v1 and was ignored.");
  }
  SearchRequest out;
  out.problem.recompute_options = read_recompute_options(document, section, request.model, d);
  out.settings = read_settings(section, out.problem.candidate_time_ms, d);
  if (!d.ok()) return std::nullopt;
  const SearchSpace space = read_space(document, section, request, d);
  if (!d.ok()) return std::nullopt;
  out.enumeration = enumerate_search_space(space, kMaxSpace);
  if (out.enumeration.over_limit) {
    d.error("SEARCH_LIMIT", "/search",
            "the search has more than " + std::to_string(kMaxSpace) + " combinations to evaluate; narrow the lists.");
    return std::nullopt;
  }
  out.problem.model = std::move(request.model);
  out.problem.device = request.device;
  out.problem.components = std::move(request.components);
  out.problem.allow_empty_stages = request.pipeline.allow_empty_stages;
  out.problem.micro_batch_size = request.training.micro_batch_size;
  return out;
}

}  // namespace ppb::detail
