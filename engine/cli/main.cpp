// ppb: the command-line face of the engine. Reads a request (file or stdin), runs one command,
// prints the contract's JSON on stdout and one line per error on stderr.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ppb/commands/commands.hpp"
#include "ppb/core/limits.hpp"
#include "ppb/core/version.hpp"

namespace {

constexpr const char* kUsage = R"(usage: ppb COMMAND FILE|- [--pretty] [--output FILE]
       ppb --help | --version

Commands (the request is JSON, read from FILE or from stdin with "-"; see docs/contract.md):
  estimate   evaluate the plan in "pipeline": per-stage memory and time, step time, bubble,
             violations of device.memory_limit_mib; "include_timeline": true adds every operation
  balance    PPB: the partition and recompute with the lowest simulated step time that fit memory,
             beside the even split ("baseline"); "balance": {"mode": "offset", "offset_range": k}
             ranks every layer_offset within +-k instead
  search     pp_degree x vpp_degree x micro_batch_num x schedule, each balanced by PPB: candidates
             ranked by throughput, the Pareto front against peak memory, why the first wins,
             infeasible reasons and, when nothing fits, what would
  import     a MindFormers/HyperParallel SAPP layer file or a "transformer" description in,
             a ppb.model.v1 document out
  export     an estimate request with "export": {"to": "mindformers" | "megatron" | "chrome-trace" |
             "pytorch" | "torchtitan"}
  compare    an estimate request under every schedule: step, span, bubbles, largest peak, fits,
             or why a schedule cannot run
  cluster    what a cluster (training.world_size, tp, cp, global batch) gives one pp_degree:
             dp_degree and micro_batch_num, or the rule it breaks

Examples:
  ppb estimate request.json --pretty
  echo '{"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
         "pipeline": {"pp_degree": 4, "micro_batch_num": 8}}' | ppb balance -
  ppb import examples/sapp-llama-80l.json --output model.json

Exit status: 0 result (feasible or not), 2 invalid request, 1 internal failure.
Errors: the JSON on stdout names each with a code and a JSON Pointer; stderr has a count, then one
line each ("ppb: CODE at PATH: message", PATH "the request" for the request as a whole).
"ppb COMMAND --help" shows a command's request with an example.
)";

struct CommandHelp {
  const char* name;
  const char* text;
};

constexpr CommandHelp kCommands[] = {
    {"estimate", R"(ppb estimate FILE|-: evaluate the plan given in "pipeline".

Request: {"model": ppb.model.v1 | "transformer": {...}, "training": {...}, "device": {...},
          "pipeline": {"pp_degree", "vpp_degree", "micro_batch_num", "schedule",
                       one of "stage_partition" | "stage_layers" | "layer_offset",
                       "recompute": {"full": [count per virtual stage]} | {"layers": {"full": [indices]}},
                       "include_timeline": true}}
Result: step_time_ms, bubble, imbalance, every partition form, layer_recompute, stages[] with
memory and time breakdowns, violations[], and with include_timeline the timeline and memory_timeline.

Example:
  echo '{"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1, "activation_mib": 100}]},
         "pipeline": {"pp_degree": 4, "micro_batch_num": 8, "layer_offset": [1, 0, 0, -1]}}' | ppb estimate - --pretty
)"},
    {"balance", R"(ppb balance FILE|-: PPB, the plan with the lowest simulated step time within memory.

Request: as estimate (its partition and recompute are ignored), plus
  "device": {"memory_limit_mib": N}, "balance": {"recompute_options": ["full", "selective"],
  "work_budget": 8000000, "time_budget_ms": 60000, "tolerance": 0, "mode": "optimal" | "offset",
  "offset_range": k}
  work_budget (units of about one search node, ~2 s natively) decides the answer, so every machine
  gives the same plan. time_budget_ms is a wall-clock safety cap from the request's arrival, its
  reading included; an answer it cuts says "stopped early on this machine".
Result: the estimate of the chosen plan, "baseline" (the even split), "gain", "method"
(proven_optimal, lower_bound_ms, within_tolerance), "infeasibility" (when the plan does not fit:
why, and the pp_degree, recompute option or memory that would), and in offset mode the ranked
"offsets".

Example:
  echo '{"model": {"layers": [{"name": "emb", "pin": "first", "forward_ms": 6},
                              {"name": "l", "count": 8, "forward_ms": 2},
                              {"name": "head", "pin": "last", "forward_ms": 8}]},
         "pipeline": {"pp_degree": 4, "micro_batch_num": 16}}' | ppb balance - --pretty
)"},
    {"search", R"(ppb search FILE|-: search pipeline shapes, each balanced by PPB.

Request: as balance, plus "search": {"pp_degree": [..] | {"min", "max", "step" | "factor"},
  "vpp_degree", "micro_batch_num", "schedule": [..], "recompute_options", "top_k",
  "max_candidates", "time_budget_ms", "candidate_work", "candidate_time_ms", "rank_by": "throughput" |
  "time_per_sample" | "step_time"}; with the cluster, "training": {"world_size", "global_batch_size",
  "micro_batch_size", "tp_degree", "cp_degree", "ep_degree"}, dp_degree = world_size / (pp x tp x cp)
  and micro_batch_num follow for every pp_degree. A vpp_degree pairs only with the schedules that run it.
Result: candidates (feasible first by throughput with a cluster, by time per sample without one),
pareto (indices), best (why the first wins and how far the next is), infeasibility (when nothing
fits: why, and what would), counts, infeasible_groups, skipped_groups, elapsed_ms, rank_by, partial,
stopped_early (candidates the wall-clock cap candidate_time_ms cut before their candidate_work).

Example:
  echo '{"model": {"layers": [{"name": "l", "count": 16, "forward_ms": 1, "static_mib": 1000}]},
         "training": {"global_batch_size": 64, "world_size": 8},
         "device": {"memory_limit_mib": 10000},
         "search": {"pp_degree": [1, 2, 4, 8]}}' | ppb search - --pretty
)"},
    {"import", R"(ppb import FILE|-: a ppb.model.v1 document from another description.

Request: a MindFormers/HyperParallel SAPP layer file (with "layers_description"), {"sapp": file},
a request with a "transformer" section (see docs/transformer-model.md), or a ppb.model.v1 document.
Result: {"model": ppb.model.v1, "source": "sapp" | "transformer" | "ppb.model.v1"}.

Example:
  ppb import examples/sapp-llama-80l.json --pretty
)"},
    {"export", R"(ppb export FILE|-: estimate a plan and write it for another tool.

Request: as estimate, plus "export": {"to": "mindformers" | "megatron" | "chrome-trace" | "pytorch" |
"torchtitan"}.
Result: {"to", "json", "text", "exported"}: MindFormers offset/recompute lists and YAML, Megatron-LM
arguments and the command-line fragment, a Chrome trace (open it in Perfetto), every rank's
schedule as PyTorch pipelining actions and the CSV torch.distributed.pipelining loads, or
torchtitan's [parallelism] keys (TOML and --parallelism flags) with that CSV. With a parallel,
training or transformer section, Megatron-LM, MindFormers and torchtitan also get the run's
parallel sizes, batch sizes, precision and optimizer sharding, and whatever Megatron-LM's own
checks would refuse is said in the notes.
An export never changes the plan silently: "exported" is the estimate of the plan the written
settings run ({"plan_kept", "feasible", "step_time_ms", "peak_mib", "peak_stage", "changes"}).
Megatron-LM takes one recompute setting for every layer and MindFormers recomputes the first N
layers of a stage; when what they can run differs from the plan and is over the memory limit, the
fastest plan they can express that fits is written instead (the changes say what differs), and
when none fits the export is refused with EXPORT_PLAN_DOES_NOT_FIT. The PyTorch CSV does not carry
recompute (said in changes).

Example:
  echo '{"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
         "pipeline": {"pp_degree": 2, "micro_batch_num": 4},
         "export": {"to": "megatron"}}' | ppb export - --pretty
)"},
    {"compare", R"(ppb compare FILE|-: the request's plan under every schedule, side by side.

Request: as estimate; pipeline.schedule is not read. Each schedule runs with its own chunk count
(2 for interleaved_1f1b, interleaved_1f1b_overlap, interleaved_zero_bubble and looped_bfs unless
vpp_degree is larger, for zbv, dualpipev, v_half and v_min; 1 for the others); the
partition and recompute counts are kept where they fit that shape, else the even split is used.
Result: {"schedules": [{"schedule", "vpp_degree", "runs", "problems", "partition_as_given",
"feasible", "step_time_ms", "span_ms", "bubble_fraction", "bubble_span_fraction", "peak_mib",
"peak_stage"}], "fastest", "fastest_by_span"} (figures null where a schedule cannot run).

Example:
  echo '{"model": {"layers": [{"name": "l", "count": 8, "forward_ms": 1}]},
         "pipeline": {"pp_degree": 2, "micro_batch_num": 4}}' | ppb compare - --pretty
)"},
    {"cluster", R"(ppb cluster FILE|-: what a cluster gives one pipeline depth, by the search's rule.

Request: {"training": {"world_size", "tp_degree", "cp_degree", "ep_degree", "global_batch_size",
          "micro_batch_size"}, "pipeline": {"pp_degree"}}; world_size required, pp_degree 1 by
         default.
Result: {"world_size", "pp_degree", "tp_degree", "cp_degree", "ep_degree", "dp_degree",
"global_batch_size", "micro_batch_size", "micro_batch_num", "problems"}: dp_degree =
world_size / (pp x tp x cp), micro_batch_num = global_batch_size / (micro_batch_size x dp_degree),
each null when it does not divide (or, for micro_batch_num, without a global batch), and the rule
broken in problems ([{"code", "path", "message"}]), as the search skips such a pp_degree.

Example:
  echo '{"training": {"world_size": 256, "tp_degree": 8, "global_batch_size": 256},
         "pipeline": {"pp_degree": 8}}' | ppb cluster - --pretty
)"},
};

// Reads at most one byte more than the engine's input cap: enough for it to say INPUT_TOO_LARGE,
// without reading all of an endless or huge input (ppb estimate /dev/zero) into memory first.
std::string read_request(std::istream& in) {
  std::string text;
  const auto cap = static_cast<std::size_t>(ppb::limits::max_input_bytes) + 1;
  std::size_t size = 0;
  while (in && size < cap) {
    text.resize(std::min(cap, size + (1u << 20)));
    in.read(text.data() + size, static_cast<std::streamsize>(text.size() - size));
    size += static_cast<std::size_t>(in.gcount());
  }
  text.resize(size);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command, input, output;
  bool pretty = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      for (const auto& c : kCommands)
        if (command == c.name) {
          std::cout << c.text;
          return 0;
        }
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "ppb " << ppb::version() << "\n";
      return 0;
    }
    if (arg == "--pretty")
      pretty = true;
    else if (arg == "--output" && i + 1 < argc)
      output = argv[++i];
    else if (arg.rfind("--", 0) == 0) {
      std::cerr << "ppb: unknown option " << arg << "\n" << kUsage;
      return 2;
    } else if (command.empty())
      command = arg;
    else if (input.empty())
      input = arg;
    else {
      std::cerr << "ppb: unexpected argument " << arg << "\n" << kUsage;
      return 2;
    }
  }
  if (command.empty() || input.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  std::string text;
  if (input == "-") {
    text = read_request(std::cin);
  } else {
    std::ifstream file(input, std::ios::binary);
    if (!file) {
      std::cerr << "ppb: cannot read " << input << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    text = read_request(file);
  }
  const ppb::CommandOutput result = ppb::run_command(command, text);
  std::string out = result.json;
  // Read back only to indent it or to list its errors: a large plan's answer takes a while to parse.
  const auto response = pretty || result.exit_code != 0 ? nlohmann::json::parse(out) : nlohmann::json::object();
  if (pretty) out = response.dump(2);
  if (response.contains("errors")) {
    const std::size_t n = response["errors"].size();
    std::cerr << "ppb: " << (result.exit_code == 1 ? "internal failure" : "invalid request") << ", " << n
              << (n == 1 ? " error" : " errors") << "\n";
    for (const auto& e : response["errors"])
      std::cerr << "ppb: " << e.value("code", "") << " at "
                << (e.value("path", "").empty() ? "the request" : e.value("path", "")) << ": " << e.value("message", "")
                << "\n";
  }
  if (output.empty())
    std::cout << out << "\n";
  else {
    std::ofstream file(output, std::ios::binary);
    if (!file || !(file << out << "\n")) {
      std::cerr << "ppb: cannot write " << output << "\n";
      return 1;
    }
  }
  return result.exit_code;
}
