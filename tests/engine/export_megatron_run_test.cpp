// The Megatron-LM export of a whole run (export_megatron_run.cpp), checked against Megatron-LM's own
// argument names and the rules of its validate_args (megatron/training/arguments.py, NVIDIA/Megatron-LM
// of 2026-08) and its TransformerConfig (recompute_modules), restated here by hand.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// The arguments as flag -> value ("" for a flag without one), in order of appearance.
std::map<std::string, std::string> parsed(const json& args) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
    const bool valued = i + 1 < args.size() && args[i + 1].get<std::string>().rfind("--", 0) != 0;
    out[a] = valued ? args[++i].get<std::string>() : "";
  }
  return out;
}

std::int64_t number(const std::map<std::string, std::string>& a, const std::string& flag) {
  return std::stoll(a.at(flag));
}

// Megatron-LM's checks of a launch, as validate_args and TransformerConfig make them: the reasons it
// would refuse (empty: it runs). `world` and `experts` are what the launch script and the model give.
std::vector<std::string> megatron_refuses(const std::map<std::string, std::string>& a, std::int64_t world,
                                          std::int64_t experts) {
  std::vector<std::string> out;
  const std::int64_t tp = number(a, "--tensor-model-parallel-size"), pp = number(a, "--pipeline-model-parallel-size");
  const std::int64_t cp = number(a, "--context-parallel-size");
  if (world % (tp * pp * cp) != 0) return {"world size not divisible by tp x pp x cp"};  // asserted first
  const std::int64_t dp = world / (tp * pp * cp);
  if (number(a, "--global-batch-size") % (number(a, "--micro-batch-size") * dp) != 0)
    out.push_back("global batch not divisible by micro batch x dp");
  if (a.count("--expert-model-parallel-size") && experts % number(a, "--expert-model-parallel-size") != 0)
    out.push_back("experts not a multiple of ep");
  if (a.count("--sequence-parallel") && tp == 1) out.push_back("sequence parallel at tp 1 (turned off)");
  if (a.count("--tp-comm-overlap") && !a.count("--sequence-parallel")) out.push_back("tp comm overlap without SP");
  if (cp > 1 && number(a, "--seq-length") % (2 * cp) != 0) out.push_back("sequence not a multiple of 2 cp");
  // Virtual stages without a layout: the layers split evenly over pp x vpp.
  if (a.count("--num-virtual-stages-per-pipeline-rank") && !a.count("--pipeline-model-parallel-layout") &&
      number(a, "--num-layers") % (pp * number(a, "--num-virtual-stages-per-pipeline-rank")) != 0)
    out.push_back("layers not divisible by pp x vpp");
  if (a.count("--recompute-granularity")) {
    const std::string g = a.at("--recompute-granularity");
    if (g != "full" && g != "selective") out.push_back("unknown recompute granularity");
    if (g == "selective" && a.count("--recompute-method")) out.push_back("recompute method with selective");
    static const std::set<std::string> modules = {"core_attn", "moe_act", "layernorm",     "mla_up_proj",
                                                  "mlp",       "moe",     "shared_experts"};
    if (a.count("--recompute-modules") && !modules.count(a.at("--recompute-modules")))
      out.push_back("unknown recompute module");
  }
  return out;
}

// An MoE model of 8 decoders (16 experts, 2 a token) at TP 8 with sequence parallelism, EP 8, pp 4 x
// vpp 2 interleaved, selective recompute on every layer, on 256 devices with a global batch of 64:
// dp = 256 / (8 x 4 x 1) = 8 (stated: an estimate does not derive it) and m = 64 / (1 x 8) = 8 (a
// multiple of pp, as interleaving needs).
json moe_run() {
  return {{"transformer", tiny_transformer({{"num_layers", 8},
                                            {"hidden_size", 64},
                                            {"num_attention_heads", 8},
                                            {"ffn_hidden_size", 128},
                                            {"seq_length", 1024},
                                            {"moe", {{"num_experts", 16}, {"top_k", 2}}}})},
          {"parallel", {{"tp_degree", 8}, {"sequence_parallel", true}, {"ep_degree", 8}, {"dp_degree", 8}}},
          {"training",
           {{"world_size", 256},
            {"global_batch_size", 64},
            {"micro_batch_size", 1},
            {"precision", "bf16"},
            {"sharding", "optimizer"}}},
          {"device", {{"preset", "h100_sxm"}}},
          {"pipeline",
           {{"pp_degree", 4},
            {"vpp_degree", 2},
            {"schedule", "interleaved_1f1b"},
            {"recompute", {{"selective", {1, 1, 1, 1, 1, 1, 1, 1}}}}}},
          {"export", {{"to", "megatron"}}}};
}

TEST(MegatronRun, TpSpEpInterleavedSelectiveRecomputeLaunchesAsMegatronChecksIt) {
  const json r = run("export", moe_run());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(out["args"], json({"--num-layers",
                               "8",
                               "--pipeline-model-parallel-size",
                               "4",
                               "--num-virtual-stages-per-pipeline-rank",
                               "2",
                               "--tensor-model-parallel-size",
                               "8",
                               "--sequence-parallel",
                               "--context-parallel-size",
                               "1",
                               "--expert-model-parallel-size",
                               "8",
                               "--micro-batch-size",
                               "1",
                               "--global-batch-size",
                               "64",
                               "--seq-length",
                               "1024",
                               "--bf16",
                               "--use-distributed-optimizer",
                               "--recompute-granularity",
                               "selective",
                               "--recompute-modules",
                               "core_attn"}))
      << out.dump();
  EXPECT_TRUE(out["notes"].empty()) << out["notes"].dump();
  EXPECT_EQ(megatron_refuses(parsed(out["args"]), 256, 16), std::vector<std::string>{});
}

// What Megatron-LM would refuse is said in a note (and the checker above agrees): 250 devices are not
// a multiple of tp x pp x cp = 32. TP communication overlap without sequence parallelism is not
// written (Megatron-LM asserts against it), and said.
TEST(MegatronRun, WhatMegatronRefusesIsNoted) {
  json request = moe_run();
  request["training"]["world_size"] = 250;
  request["parallel"]["sequence_parallel"] = false;
  request["parallel"]["tp_comm_overlap"] = true;
  const json r = run("export", request);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& out = r["result"]["json"];
  EXPECT_EQ(megatron_refuses(parsed(out["args"]), 250, 16),
            (std::vector<std::string>{"world size not divisible by tp x pp x cp"}));
  EXPECT_EQ(out["notes"], json({"Megatron-LM refuses this run: world size 250 is not divisible by tensor x pipeline "
                                "x context parallel sizes = 32.",
                                "Megatron-LM overlaps tensor parallel communication only with sequence parallelism, "
                                "so --tp-comm-overlap is not written."}));
}

// FP8 and the ZeRO stages: fp8 runs bf16 weights with the hybrid FP8 format; ZeRO-2 and -3 are
// Megatron-LM's own FSDP with its sharding strategy. A model without a run section keeps the plan's
// arguments alone.
TEST(MegatronRun, PrecisionAndShardingFlags) {
  json request = moe_run();
  request["training"]["precision"] = "fp8";
  request["training"]["sharding"] = "full";
  request["device"]["peak_tflops_fp8"] = 1978.9;
  const auto a = parsed(run("export", request)["result"]["json"]["args"]);
  EXPECT_EQ(a.count("--bf16"), 1u);
  EXPECT_EQ(a.at("--fp8-format"), "hybrid");
  EXPECT_EQ(a.count("--use-distributed-optimizer"), 0u);
  EXPECT_EQ(a.count("--use-megatron-fsdp"), 1u);
  EXPECT_EQ(a.at("--data-parallel-sharding-strategy"), "optim_grads_params");
  const json bare = run("export", {{"model", uniform_model(8, 1, 2, 0, 1)},
                                   {"pipeline", {{"pp_degree", 4}, {"micro_batch_num", 4}}},
                                   {"export", {{"to", "megatron"}}}});
  EXPECT_EQ(bare["result"]["json"]["args"], json({"--num-layers", "8", "--pipeline-model-parallel-size", "4"}));
}

}  // namespace
}  // namespace ppb::test
