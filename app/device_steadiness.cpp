#include "app/device_steadiness.h"

#include <cmath>
#include <cstdio>

#include "harness/bandwidth.h"
#include "kernels/registry.h"
#include "results/result_file.h"

namespace pb::app {

void state_device_steadiness(GpuSession& gpu, const std::filesystem::path& result, std::ostream& out) {
  if (gpu.copy_bandwidth_gbps <= 0 || !std::filesystem::exists(result)) return;
  const double end = measure_copy_bandwidth(gpu.device(), find_kernel("copy_vec4")).roofline_gbps;
  ResultFile file = ResultFile::load(result);
  file.document()["device"]["copy_bandwidth_end_gbps"] = end;
  file.save(result);
  const double change = end / gpu.copy_bandwidth_gbps - 1;
  char line[160];
  std::snprintf(line, sizeof line, "  copy bandwidth: %.1f GB/s at the start, %.1f GB/s at the end (%+.2f%%)\n",
                gpu.copy_bandwidth_gbps, end, change * 100);
  out << line;
  if (gpu.device().info().type == "cpu") {
    // lavapipe's copies run on the host's cores, beside everything else on them: its figure
    // moves with their load, and its runs are for correctness, not a record.
    if (std::abs(change) > kSteadyBandwidthChange) {
      out << "  (the CPU device's copy bandwidth follows the host's load)\n";
    }
    return;
  }
  if (std::abs(change) > kSteadyBandwidthChange) {
    out << "  warning: the copy bandwidth moved by more than " << kSteadyBandwidthChange * 100
        << "% while this ran: another process may be using the device, or its clocks changed; these figures "
           "may not compare with another run's\n";
  }
}

}  // namespace pb::app
