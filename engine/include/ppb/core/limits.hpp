// Explicit caps on what one request may ask for. Each is sized so that every real model and plan
// fits, while the worst case still finishes in seconds with bounded memory in a browser tab.
// docs/limits.md lists them with their error codes and the reasoning behind each number.
#pragma once

#include <cstdint>

namespace ppb::limits {

// ---- the request text, checked before it is parsed (INPUT_TOO_LARGE, JSON_TOO_DEEP, JSON_TOO_MANY_VALUES)
inline constexpr std::int64_t max_input_bytes = 64LL * 1024 * 1024;
// Nested arrays and objects. A request needs 6; the cap keeps every recursive walk of the document
// (copy, comparison, serialisation) far from the stack's end, in WASM too.
inline constexpr int max_json_depth = 64;
// Arrays, objects and list entries (opening brackets plus commas). A parsed value costs up to ~100
// bytes, so this bounds the parsed document to a few hundred MiB; a 100,000-entry model needs ~1.5M.
inline constexpr std::int64_t max_json_values = 4'000'000;

// ---- the model
inline constexpr std::int64_t max_layers = 100'000;        // expanded layers (LAYER_LIMIT)
inline constexpr std::int64_t max_recompute_options = 32;  // distinct option names (RECOMPUTE_OPTION_LIMIT)
inline constexpr double max_quantity = 1e12;               // any ms, MiB, GB/s or bytes figure (TOO_LARGE)
inline constexpr double max_flops = 1e21;                  // a layer's flops per micro batch (TOO_LARGE)
inline constexpr std::int64_t max_name_length = 1'000;     // names and option names (TOO_LONG)

// ---- the plan
inline constexpr std::int64_t max_pp_degree = 4'096;         // PP_DEGREE_LIMIT
inline constexpr std::int64_t max_vpp_degree = 64;           // VPP_DEGREE_LIMIT
inline constexpr std::int64_t max_virtual_stages = 8'192;    // pp_degree x vpp_degree (VIRTUAL_STAGE_LIMIT)
inline constexpr std::int64_t max_micro_batch_num = 65'536;  // given or derived (MICRO_BATCH_LIMIT)
inline constexpr std::int64_t max_batch = 1'000'000'000;     // global/micro batch sizes, dp_degree (TOO_LARGE)
// Virtual stages x micro batches: the simulator keeps two times per pair (16 bytes) and runs two or
// three operations per pair, about 1 s per million pairs natively (SIMULATION_LIMIT).
inline constexpr std::int64_t max_simulated_pairs = 4'194'304;
// Actions of a pipeline.program (SIMULATION_LIMIT at /pipeline/program), as JSON lists or CSV text: as
// many as the request's JSON values may be, so that the CSV form holds no more than the lists can (a
// program holds 2 or 3 actions per pair, so this admits programs of up to 1.3 to 2 million pairs).
inline constexpr std::int64_t max_program_actions = 4'000'000;

// ---- the response
// Operations returned in a timeline (and a Chrome trace). A longer simulation is still run and
// estimated in full; only the returned timeline stops here, and the result says so
// (timeline_truncated). Not an error.
inline constexpr std::int64_t max_timeline_ops = 100'000;
// Errors (and, separately, warnings) listed in one response; the rest are counted in a final
// TOO_MANY_ERRORS / TOO_MANY_WARNINGS entry.
inline constexpr std::int64_t max_diagnostics = 1'000;

// ---- balance and search
// Virtual stages x (expanded layers + 1): the size of the balancer's bound tables (BALANCE_LIMIT).
inline constexpr std::int64_t max_balance_cells = 4'000'000;
// A balance's work budget (balance.work_budget, search.candidate_work), in units of about one search
// node: 10^10 is hours natively.
inline constexpr std::int64_t max_work_budget = 10'000'000'000;
// Candidates (pp x vpp x micro_batch_num x schedule combinations) one search may span (SEARCH_LIMIT).
inline constexpr std::int64_t max_search_candidates = 100'000;

}  // namespace ppb::limits
