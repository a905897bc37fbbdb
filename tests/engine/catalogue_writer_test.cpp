// The device presets and caps the page reads instead of copies of its own. Expected values from the
// vendors' datasheets as docs/devices.md quotes them (H100 SXM5: 80 GB of HBM3, 989.4 dense bf16
// TFLOP/s, 1,978.9 in FP8; A100 SXM4: 312 bf16 TFLOP/s and no FP8 units) and from docs/limits.md
// (64 MiB of request text, 100,000 layers).
#include "ppb/io/catalogue_writer.hpp"

#include <gtest/gtest.h>

#include "helpers.hpp"

namespace ppb::test {
namespace {

TEST(CatalogueWriter, EveryDevicePresetWithTheFiguresItFills) {
  const json devices = json::parse(device_presets_json())["devices"];
  ASSERT_EQ(devices.size(), 7u);
  const json& h100 = devices[0];
  EXPECT_EQ(h100["id"], "h100_sxm");
  EXPECT_EQ(h100["name"], "NVIDIA H100 SXM5 80 GB");
  EXPECT_DOUBLE_EQ(h100["memory_limit_mib"].get<double>(), 80 * 1024);  // 80 GiB
  EXPECT_DOUBLE_EQ(h100["peak_tflops"].get<double>(), 989.4);
  EXPECT_DOUBLE_EQ(h100["peak_tflops_fp8"].get<double>(), 1978.9);
  EXPECT_EQ(h100["gpus_per_node"], 8);
  const json* a100 = nullptr;
  for (const json& d : devices)
    if (d["id"] == "a100_80gb") a100 = &d;
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ((*a100)["peak_tflops"].get<double>(), 312);
  EXPECT_TRUE((*a100)["peak_tflops_fp8"].is_null());
}

TEST(CatalogueWriter, TheCapsACallerChecksBeforeSending) {
  const json limits = json::parse(limits_json());
  EXPECT_EQ(limits["max_input_bytes"], 64 * 1024 * 1024);
  EXPECT_EQ(limits["max_layers"], 100000);
  EXPECT_EQ(limits.size(), 2u);
}

}  // namespace
}  // namespace ppb::test
