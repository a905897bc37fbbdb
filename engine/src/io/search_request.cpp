// The search section of a request, read into a SearchProblem, its enumerated space and settings.
#include "search_request.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/field_reader.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/io/io.hpp"
#include "ppb/plan/plan.hpp"
#include "ppb/schedule/shape_rules.hpp"
#include "ppb/simulate/caveats.hpp"
#include "recompute_option_list.hpp"

namespace ppb::detail {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxSpace = limits::max_search_candidates;

// A dimension of the space: a list of whole numbers, or a range {"min", "max", "step"} /
// {"min", "max", "factor"}; returned sorted, each value once.
std::optional<std::vector<std::int64_t>> read_dimension(FieldReader& section, const char* key,
                                                        const IntegerRange& range, Diagnostics& d) {
  const json* value = section.get(key);
  if (!value) return std::nullopt;
  const std::string path = section.at(key);
  std::vector<std::int64_t> out;
  if (value->is_array()) {
    if (value->empty()) {
      d.error("SEARCH_EMPTY", path, std::string(key) + " is an empty list; give at least one value.");
      return std::nullopt;
    }
    auto values = read_integers(*value, path, key, range, d);
    if (!values) return std::nullopt;
    out = std::move(*values);
  } else if (value->is_object()) {
    FieldReader r(*value, path, d);
    // Both checked, so that a range missing both hears about both.
    const bool has_min = r.require("min", "a range needs \"min\" and \"max\".");
    const bool has_max = r.require("max", "a range needs \"min\" and \"max\".");
    const auto min = r.integer("min", range);
    const auto max = r.integer("max", range);
    const auto step = r.integer("step", {1, range.max, "OUT_OF_RANGE"});
    const auto factor = r.integer("factor", {2, range.max, "OUT_OF_RANGE"});
    if (r.has("step") && r.has("factor")) {
      d.error("SEARCH_RANGE", path, "a range takes either \"step\" (at least 1) or \"factor\" (at least 2), not both.");
      return std::nullopt;
    }
    if (!has_min || !has_max || !min || !max || (r.has("step") && !step) || (r.has("factor") && !factor))
      return std::nullopt;
    for (std::int64_t v = *min; v <= *max && static_cast<std::int64_t>(out.size()) < kMaxSpace;
         v = factor ? v * *factor : v + step.value_or(1))
      out.push_back(v);
    if (out.empty()) {
      d.error("SEARCH_EMPTY", path,
              "the range is empty: min " + std::to_string(*min) + " is above max " + std::to_string(*max) + ".");
      return std::nullopt;
    }
  } else {
    d.error("TYPE_MISMATCH", path,
            std::string(key) +
                " must be a list of whole numbers or a range {\"min\", \"max\", \"step\" or \"factor\"}, not " +
                type_name(*value) + ".");
    return std::nullopt;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> as_ints(const std::vector<std::int64_t>& values) {
  return {values.begin(), values.end()};  // bounded by the degree caps
}

// The recompute options PPB may use: the search's list, else balance's, else every option offered.
std::vector<int> read_recompute_options(const json& document, FieldReader& section, const Model& model,
                                        Diagnostics& d) {
  std::vector<int> every;
  for (std::size_t o = 0; o < model.recompute_options.size(); ++o) every.push_back(static_cast<int>(o));
  if (section.has("recompute_options")) {
    const json* list = section.array("recompute_options", "option names");
    return list ? read_recompute_option_list(*list, section.at("recompute_options"), model, d) : every;
  }
  // balance.recompute_options, when given: the balance parser is not run by search, so the type of
  // the list is checked here; the rest of the section is balance's.
  Diagnostics not_ours;
  const json* balance = request_section(document, "balance", not_ours);
  if (!balance) return every;
  FieldReader b(*balance, "/balance", d);
  b.allow_all();
  const json* list = b.array("recompute_options", "option names");
  return list ? read_recompute_option_list(*list, b.at("recompute_options"), model, d) : every;
}

SearchSettings read_settings(FieldReader& section, SearchProblem& problem, Diagnostics& d) {
  SearchSettings settings;
  const IntegerRange count{1, limits::max_batch, "OUT_OF_RANGE"};
  const NumberRange budget{.min = 0, .min_exclusive = true, .max = 3'600'000, .over_code = "OUT_OF_RANGE"};
  settings.top_k = section.integer("top_k", count).value_or(settings.top_k);
  if (auto name = section.string("rank_by")) {
    if (auto rank_by = rank_by_from_name(*name))
      settings.rank_by = *rank_by;
    else
      d.error("RANK_BY_UNKNOWN", section.at("rank_by"),
              "rank_by is " + quoted_input(*name) +
                  "; it must be \"throughput\" (samples per second, the default with training.world_size), "
                  "\"time_per_sample\" (step time over micro_batch_num x micro_batch_size x dp_degree, the default "
                  "without it) or \"step_time\".");
  }
  settings.max_candidates = section.integer("max_candidates", count).value_or(settings.max_candidates);
  settings.tie_fraction =
      section.number("tie_fraction", {.max = 0.5, .over_code = "OUT_OF_RANGE"}).value_or(settings.tie_fraction);
  settings.time_budget_ms = section.number("time_budget_ms", budget).value_or(settings.time_budget_ms);
  problem.candidate_work =
      section.integer("candidate_work", {1, limits::max_work_budget, "OUT_OF_RANGE"}).value_or(problem.candidate_work);
  problem.candidate_time_ms = section.number("candidate_time_ms", budget).value_or(problem.candidate_time_ms);
  return settings;
}

// A vpp_degree pairs only with the schedules that run it. Without a vpp_degree list each schedule
// gets its own; with one, a listed value or schedule that pairs with nothing is left out with a
// warning, and nothing at all to pair is an error.
void pair_vpp_with_schedules(FieldReader& section, const std::optional<std::vector<std::int64_t>>& listed,
                             const std::vector<std::size_t>& schedule_index, SearchSpace& space, Diagnostics& d) {
  if (!listed) {
    if (section.has("vpp_degree")) return;  // reported
    space.vpp_degrees.clear();
    for (Schedule s : space.schedules) space.vpp_degrees.push_back(default_vpp_degree(s));
    std::sort(space.vpp_degrees.begin(), space.vpp_degrees.end());
    space.vpp_degrees.erase(std::unique(space.vpp_degrees.begin(), space.vpp_degrees.end()), space.vpp_degrees.end());
    return;
  }
  space.vpp_degrees = as_ints(*listed);
  if (space.schedules.empty()) return;  // reported
  std::string unpaired, why;
  for (int vpp : space.vpp_degrees) {
    bool runs = false;
    for (Schedule s : space.schedules) runs = runs || vpp_runs(vpp, s);
    if (runs) continue;
    unpaired += (unpaired.empty() ? "" : ", ") + std::to_string(vpp);
    if (why.empty()) why = vpp_rule_broken(vpp, space.schedules.front())->reason;
  }
  if (!unpaired.empty())
    d.warning("IGNORED_FIELD", section.at("vpp_degree"),
              "vpp_degree " + unpaired + " runs with none of the listed schedules and was left out: " + why + ".");
  bool any_pair = false;
  for (std::size_t k = 0; k < space.schedules.size(); ++k) {
    bool runs = false;
    for (int vpp : space.vpp_degrees) runs = runs || vpp_runs(vpp, space.schedules[k]);
    any_pair = any_pair || runs;
    if (!runs && k < schedule_index.size())
      d.warning("IGNORED_FIELD", section.at("schedule") + "/" + std::to_string(schedule_index[k]),
                std::string(schedule_name(space.schedules[k])) +
                    " runs with none of the listed vpp_degree values and was left out: " +
                    vpp_rule_broken(space.vpp_degrees.front(), space.schedules[k])->reason + ".");
  }
  if (!any_pair)
    d.error("SEARCH_EMPTY", section.at("vpp_degree"),
            "no listed vpp_degree runs with a listed schedule: each schedule runs its own (1; 2 or more for "
            "interleaved_1f1b, interleaved_1f1b_overlap, interleaved_zero_bubble and looped_bfs; 2 for zbv, "
            "dualpipev, v_half and v_min); list vpp_degree "
            "values for the schedules, or leave "
            "vpp_degree out.");
}

// The dimensions of the space and its coupling to the cluster.
SearchSpace read_space(const json& document, FieldReader& section, const Request& request, Diagnostics& d) {
  SearchSpace space;
  const Model& model = request.model;
  const std::int64_t units = splittable_units(model);
  if (auto v = read_dimension(section, "pp_degree", {1, limits::max_pp_degree, "PP_DEGREE_LIMIT"}, d))
    space.pp_degrees = as_ints(*v);
  else if (!section.has("pp_degree"))
    for (std::int64_t p = 1; p <= std::min<std::int64_t>(units, 64); p *= 2)
      space.pp_degrees.push_back(static_cast<int>(p));
  const auto vpp_degrees = read_dimension(section, "vpp_degree", {1, limits::max_vpp_degree, "VPP_DEGREE_LIMIT"}, d);
  std::vector<std::size_t> schedule_index;  // where each schedule is first listed
  if (const json* list = section.array("schedule", "schedule names")) {
    space.schedules.clear();
    if (list->empty())
      d.error("SEARCH_EMPTY", section.at("schedule"), "schedule is an empty list; give at least one name.");
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string at = section.at("schedule") + "/" + std::to_string(i);
      const auto name = read_string((*list)[i], at, "schedule[" + std::to_string(i) + "]", d);
      if (!name) continue;
      if (auto schedule = schedule_from_name(*name)) {
        if (std::find(space.schedules.begin(), space.schedules.end(), *schedule) == space.schedules.end()) {
          space.schedules.push_back(*schedule);
          schedule_index.push_back(i);
        }
      } else {
        d.error("SCHEDULE_UNKNOWN", at,
                "schedule " + quoted_input(*name) + " is not known; use " + schedule_name_list() + ".");
      }
    }
  }
  pair_vpp_with_schedules(section, vpp_degrees, schedule_index, space, d);
  // Coupling to the cluster: dp = world_size / (pp x tp x cp), m = global batch / (micro batch x dp).
  // training and parallel are the request parser's (and the transformer generator's) sections; only
  // the search's fields are read here.
  Diagnostics not_ours;
  FieldReader training(request_section(document, "training", not_ours), "/training", d);
  FieldReader parallel(request_section(document, "parallel", not_ours), "/parallel", d);
  training.allow_all();
  parallel.allow_all();
  const IntegerRange degree{1, limits::max_batch};
  const auto world = training.integer("world_size", degree);
  const auto training_tp = training.integer("tp_degree", degree);
  const auto parallel_tp = parallel.integer("tp_degree", degree);
  const auto training_cp = training.integer("cp_degree", degree);
  const auto parallel_cp = parallel.integer("cp_degree", degree);
  const auto training_ep = training.integer("ep_degree", degree);
  const auto parallel_ep = parallel.integer("ep_degree", degree);
  const std::int64_t tp = training_tp.value_or(parallel_tp.value_or(1));
  const std::int64_t cp = training_cp.value_or(parallel_cp.value_or(1));
  // Expert parallelism is carved out of the data-parallel ranks (Megatron-LM): it takes no devices of
  // its own, but dp_degree must be a multiple of it.
  space.ep_degree = training_ep.value_or(parallel_ep.value_or(1));
  space.tp_degree = tp;
  space.cp_degree = cp;
  space.max_in_flight = request.pipeline.max_in_flight;
  space.expert_tp_degree = parallel.integer("expert_tp_degree", degree).value_or(tp);
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
    if (auto v = read_dimension(section, "micro_batch_num", {1, limits::max_micro_batch_num, "MICRO_BATCH_LIMIT"}, d)) {
      space.micro_batch_nums = *v;
    } else if (!section.has("micro_batch_num")) {
      Diagnostics local;
      if (auto m = resolve_micro_batch_num(request.training, request.pipeline, local))
        space.micro_batch_nums = {*m};
      else
        d.error("MICRO_BATCH_NUM_MISSING", "/search/micro_batch_num",
                "give search.micro_batch_num, pipeline.micro_batch_num, or training.global_batch_size (with world_size "
                "to couple it to pp_degree).");
    }
  } else {
    if (section.has("micro_batch_num"))
      d.warning("IGNORED_FIELD", "/search/micro_batch_num",
                "with training.world_size, micro_batch_num follows from the global batch and dp_degree; the list is "
                "ignored.");
    if (global_batch_size)
      space.cluster = SearchCluster{
          *world, tp, cp, *global_batch_size, request.training.micro_batch_size.value_or(1), space.expert_tp_degree};
  }
  return space;
}

}  // namespace

std::optional<SearchRequest> parse_search_request(const json& document, Diagnostics& d) {
  Request request = parse_request(document, d);
  refuse_program(document, "search", d);
  if (!d.ok()) return std::nullopt;
  const json* section_json = request_section(document, "search", d);
  if (!d.ok()) return std::nullopt;
  SearchRequest out;
  {
    // Every field of the section is read in this scope; the reader warns about the others at its end.
    FieldReader section(section_json, "/search", d);
    out.problem.recompute_options = read_recompute_options(document, section, request.model, d);
    out.settings = read_settings(section, out.problem, d);
    const SearchSpace space = read_space(document, section, request, d);
    if (!d.ok()) return std::nullopt;
    out.enumeration = enumerate_search_space(space, kMaxSpace);
  }
  if (out.enumeration.over_limit) {
    d.error("SEARCH_LIMIT", "/search",
            "the search has more than " + std::to_string(kMaxSpace) + " combinations to evaluate; narrow the lists.");
    return std::nullopt;
  }
  out.problem.caveats = estimate_caveats(request, nullptr);
  out.problem.model = std::move(request.model);
  out.problem.device = request.device;
  out.problem.components = std::move(request.components);
  out.problem.allow_empty_stages = request.pipeline.allow_empty_stages;
  out.problem.micro_batch_size = request.training.micro_batch_size;
  out.problem.state_rule = request.training.state_rule;
  return out;
}

}  // namespace ppb::detail
