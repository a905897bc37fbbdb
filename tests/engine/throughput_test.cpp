// result.throughput: samples per second, MFU and tokens per second per device (docs/contract.md), on a uniform case
// worked out by hand from the 1F1B step formula, and from the transformer generator's FLOPs.
#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

// Four layers of 1 ms forward (2 ms backward by default), 10^12 forward FLOPs each, on pp 2 with
// m 4 under 1F1B: (m + p - 1) x (F + B) = 5 x (2 + 4) = 30 ms. The step's model FLOPs are
// 3 x 4 x 10^12 x 4 = 4.8 x 10^13 on 2 devices of 1,000 TFLOP/s for 30 ms (6 x 10^13): MFU 0.8.
// 1,000 tokens a device a micro batch: 4 x 1,000 / (2 x 0.03 s) = 66,666.7 tokens/s a device.
TEST(Throughput, MfuOfAUniformOneFOneBPlan) {
  const json request = {{"model",
                         {{"format", "ppb.model.v1"},
                          {"device_tokens_per_micro_batch", 1000},
                          {"layers", {{{"name", "l"}, {"count", 4}, {"forward_ms", 1}, {"flops", 1e12}}}}}},
                        {"pipeline", {{"pp_degree", 2}, {"micro_batch_num", 4}, {"schedule", "1f1b"}}},
                        {"device", {{"peak_tflops", 1000}}}};
  const json r = run("estimate", request);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(r["result"]["step_time_ms"].get<double>(), 30);
  const json& throughput = r["result"]["throughput"];
  EXPECT_NEAR(throughput["mfu"].get<double>(), 0.8, 1e-12);
  EXPECT_NEAR(throughput["tokens_per_s_per_device"].get<double>(), 4000 / 0.06, 1e-6);
  // One sample a micro batch on one replica when the request states no batch size or dp: 4 / 0.03 s.
  EXPECT_NEAR(throughput["samples_per_s"].get<double>(), 4 / 0.03, 1e-9);
  // Micro batches of 2 samples on 4 data-parallel replicas: 4 x 2 x 4 / 0.03 s.
  json batched = request;
  batched["training"] = {{"micro_batch_size", 2}, {"dp_degree", 4}};
  const json b = run("estimate", batched);
  ASSERT_TRUE(b["ok"].get<bool>()) << b.dump();
  EXPECT_NEAR(b["result"]["throughput"]["samples_per_s"].get<double>(), 32 / 0.03, 1e-9);

  // Without a peak, or with a layer that states no FLOPs, the MFU is not known.
  json no_peak = request;
  no_peak.erase("device");
  EXPECT_TRUE(run("estimate", no_peak)["result"]["throughput"]["mfu"].is_null());
  json partial = request;
  partial["model"]["layers"].push_back({{"name", "head"}, {"forward_ms", 1}});
  EXPECT_TRUE(run("estimate", partial)["result"]["throughput"]["mfu"].is_null());
  // Nor are tokens without the model's device_tokens_per_micro_batch.
  json no_tokens = request;
  no_tokens["model"].erase("device_tokens_per_micro_batch");
  EXPECT_TRUE(run("estimate", no_tokens)["result"]["throughput"]["tokens_per_s_per_device"].is_null());
}

// The generator's FLOPs: a small dense model on one stage. A decoder of 4 h^2 + 2 h f = 2,048 weights
// (h 16, f 32) at 8 tokens is 32,768 matmul FLOPs plus the causal core b s^2 a 2d / 2... = 2,048;
// the head 2 V h x 8 = 32,768; the embedding none. With pp 1 and m 1 the MFU is 3 x the sum over
// the step time at 989 TFLOP/s: the compute-only step is that sum / 0.5 of peak, so MFU 0.5.
TEST(Throughput, GeneratedModelsStateTheirFlops) {
  const json request = {{"transformer",
                         {{"num_layers", 2},
                          {"hidden_size", 16},
                          {"num_attention_heads", 4},
                          {"ffn_hidden_size", 32},
                          {"normalization", "rmsnorm"},
                          {"dropout", false},
                          {"vocab_size", 128},
                          {"seq_length", 8}}},
                        {"pipeline", {{"pp_degree", 1}, {"micro_batch_num", 1}}},
                        {"device", {{"peak_tflops", 989}}}};
  const json imported = run("import", request);
  ASSERT_TRUE(imported["ok"].get<bool>()) << imported.dump();
  const json& layers = imported["result"]["model"]["layers"];
  EXPECT_DOUBLE_EQ(layers[1]["flops"].get<double>(), 32768 + 2048);
  EXPECT_DOUBLE_EQ(layers[2]["flops"].get<double>(), 32768);
  EXPECT_DOUBLE_EQ(imported["result"]["model"]["device_tokens_per_micro_batch"].get<double>(), 8);
  const json r = run("estimate", request);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NEAR(r["result"]["throughput"]["mfu"].get<double>(), 0.5, 1e-9);
}

}  // namespace
}  // namespace ppb::test
