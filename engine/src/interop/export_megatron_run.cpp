// A Megatron-LM launch beyond the plan: the parallel sizes, batch sizes, sequence length, precision
// and optimizer sharding a request states, written as Megatron-LM's arguments, and Megatron-LM's own
// checks of them (megatron/training/arguments.py, validate_args, NVIDIA/Megatron-LM of 2026-08):
// world_size divisible by tp x pp x cp; global batch divisible by micro batch x dp; experts divisible
// by ep; sequence parallelism dropped at tp 1; TP communication overlap only with sequence
// parallelism; the sequence a multiple of 2 cp with context parallelism.
#include <string>

#include "ppb/interop/export.hpp"

namespace ppb {

using nlohmann::json;

namespace {

std::string str(std::int64_t n) { return std::to_string(n); }

// A whole number at `key` of `section` when it is one (the request reader has checked its range).
std::optional<std::int64_t> whole(const json& request, const char* section, const char* key) {
  const auto s = request.find(section);
  if (s == request.end() || !s->is_object()) return std::nullopt;
  const auto v = s->find(key);
  if (v == s->end() || !v->is_number_integer()) return std::nullopt;
  return v->get<std::int64_t>();
}

bool flag(const json& request, const char* section, const char* key) {
  const auto s = request.find(section);
  if (s == request.end() || !s->is_object()) return false;
  const auto v = s->find(key);
  return v != s->end() && v->is_boolean() && v->get<bool>();
}

std::string text(const json& request, const char* section, const char* key) {
  const auto s = request.find(section);
  if (s == request.end() || !s->is_object()) return "";
  const auto v = s->find(key);
  return v != s->end() && v->is_string() ? v->get<std::string>() : "";
}

}  // namespace

MegatronRun megatron_run(const json& request) {
  MegatronRun run;
  if (!request.is_object()) return run;
  // The run is stated by a transformer description, a parallel section, or training figures of the run
  // (a training section may hold only recompute options).
  run.stated = request.contains("transformer") || (request.contains("parallel") && !request["parallel"].empty());
  if (const auto t = request.find("training"); t != request.end() && t->is_object())
    for (const char* key : {"world_size", "global_batch_size", "micro_batch_size", "dp_degree", "tp_degree",
                            "cp_degree", "ep_degree", "precision", "sharding", "distributed_optimizer"})
      run.stated = run.stated || t->contains(key);
  // Where the contract takes a degree in either section, training's wins (as the request reader).
  const auto degree = [&](const char* key) {
    auto v = whole(request, "training", key);
    return v ? v : whole(request, "parallel", key);
  };
  run.tp = degree("tp_degree").value_or(1);
  run.cp = degree("cp_degree").value_or(1);
  run.ep = degree("ep_degree").value_or(1);
  run.expert_tp = whole(request, "parallel", "expert_tp_degree");
  run.dp = degree("dp_degree");
  run.sequence_parallel = flag(request, "parallel", "sequence_parallel");
  run.tp_comm_overlap = flag(request, "parallel", "tp_comm_overlap");
  run.micro_batch_size = whole(request, "training", "micro_batch_size");
  run.global_batch_size = whole(request, "training", "global_batch_size");
  run.world_size = whole(request, "training", "world_size");
  run.seq_length = whole(request, "transformer", "seq_length");
  if (const auto t = request.find("transformer"); t != request.end() && t->is_object())
    run.num_experts = whole(*t, "moe", "num_experts");
  run.precision = text(request, "training", "precision");
  run.sharding = text(request, "training", "sharding");
  if (run.sharding.empty() && flag(request, "training", "distributed_optimizer")) run.sharding = "optimizer";
  return run;
}

std::vector<std::string> megatron_run_args(const Plan& plan, const MegatronRun& run, json& notes) {
  const std::int64_t pp = plan.pp_degree;
  std::vector<std::string> args = {"--tensor-model-parallel-size", str(run.tp)};
  if (run.sequence_parallel && run.tp > 1) args.emplace_back("--sequence-parallel");
  if (run.sequence_parallel && run.tp == 1)
    notes.push_back(
        "Megatron-LM turns sequence parallelism off at tensor parallel size 1, so --sequence-parallel "
        "is not written.");
  args.insert(args.end(), {"--context-parallel-size", str(run.cp)});
  const bool moe = run.num_experts.value_or(0) > 0 || run.ep > 1;
  if (moe) {
    args.insert(args.end(), {"--expert-model-parallel-size", str(run.ep)});
    // Megatron-LM's default expert tensor parallel size is the tensor parallel size.
    if (run.expert_tp && *run.expert_tp != run.tp)
      args.insert(args.end(), {"--expert-tensor-parallel-size", str(*run.expert_tp)});
  }
  // Data-parallel ranks: stated, or world_size / (tp x pp x cp) as Megatron-LM derives them.
  std::optional<std::int64_t> dp = run.dp;
  if (run.world_size) {
    const std::int64_t model_size = run.tp * pp * run.cp;
    if (*run.world_size % model_size != 0)
      notes.push_back("Megatron-LM refuses this run: world size " + str(*run.world_size) +
                      " is not divisible by tensor x pipeline x context parallel sizes = " + str(model_size) + ".");
    else
      dp = *run.world_size / model_size;
  }
  const std::int64_t mbs = run.micro_batch_size.value_or(1);
  args.insert(args.end(), {"--micro-batch-size", str(mbs)});
  std::optional<std::int64_t> gbs = run.global_batch_size;
  if (!gbs && dp) gbs = plan.micro_batch_num * mbs * *dp;
  if (gbs) {
    args.insert(args.end(), {"--global-batch-size", str(*gbs)});
    if (dp && *gbs % (mbs * *dp) != 0)
      notes.push_back("Megatron-LM refuses this run: global batch " + str(*gbs) + " is not divisible by micro batch " +
                      str(mbs) + " x data parallel size " + str(*dp) + ".");
    else if (dp && *gbs / (mbs * *dp) != plan.micro_batch_num)
      notes.push_back("the global batch gives " + str(*gbs / (mbs * *dp)) + " micro batches per pipeline, the plan " +
                      str(plan.micro_batch_num) + ".");
  } else {
    notes.push_back("no --global-batch-size: Megatron-LM would run one micro batch a step, not the plan's " +
                    str(plan.micro_batch_num) + "; give training.global_batch_size or the data parallel size.");
  }
  if (run.seq_length) {
    args.insert(args.end(), {"--seq-length", str(*run.seq_length)});
    if (run.cp > 1 && *run.seq_length % (2 * run.cp) != 0)
      notes.push_back("Megatron-LM refuses this run: the sequence length " + str(*run.seq_length) +
                      " is not a multiple of 2 x context parallel size.");
  }
  if (moe && run.num_experts && *run.num_experts % run.ep != 0)
    notes.push_back("Megatron-LM refuses this run: " + str(*run.num_experts) +
                    " experts are not a multiple of the expert parallel size " + str(run.ep) + ".");
  if (run.precision == "bf16" || run.precision.empty()) args.emplace_back("--bf16");
  if (run.precision == "fp16") args.emplace_back("--fp16");
  if (run.precision == "fp8") args.insert(args.end(), {"--bf16", "--fp8-format", "hybrid"});
  if (run.sharding == "optimizer") args.emplace_back("--use-distributed-optimizer");
  if (run.sharding == "optimizer_and_grads")
    args.insert(args.end(), {"--use-megatron-fsdp", "--data-parallel-sharding-strategy", "optim_grads"});
  if (run.sharding == "full")
    args.insert(args.end(), {"--use-megatron-fsdp", "--data-parallel-sharding-strategy", "optim_grads_params"});
  if (run.tp_comm_overlap) {
    if (run.sequence_parallel && run.tp > 1)
      args.emplace_back("--tp-comm-overlap");
    else
      notes.push_back(
          "Megatron-LM overlaps tensor parallel communication only with sequence parallelism, so "
          "--tp-comm-overlap is not written.");
  }
  return args;
}

}  // namespace ppb
