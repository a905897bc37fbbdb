// Point-to-point transfer time over the device link, and whether a peak leaves the margin free.
#include "ppb/model/device.hpp"

namespace ppb {

double transfer_ms(const Device& device, double send_mib) {
  double ms = device.p2p_latency_ms;
  if (device.p2p_bandwidth_gbs) ms += send_mib * 1048576.0 / (*device.p2p_bandwidth_gbs * 1e9) * 1000.0;
  return ms;
}

bool tight(const Device& device, double peak_mib) {
  if (!device.memory_limit_mib) return false;
  const double limit = *device.memory_limit_mib;
  return peak_mib <= limit && limit - peak_mib < device.memory_margin * limit;
}

}  // namespace ppb
