// Point-to-point transfer time over the device link.
#include "ppb/model/device.hpp"

namespace ppb {

double transfer_ms(const Device& device, double send_mib) {
  double ms = device.p2p_latency_ms;
  if (device.p2p_bandwidth_gbs) ms += send_mib * 1048576.0 / (*device.p2p_bandwidth_gbs * 1e9) * 1000.0;
  return ms;
}

}  // namespace ppb
