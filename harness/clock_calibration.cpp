#include "harness/clock_calibration.h"

#include "harness/device.h"
#include "harness/timestamp_math.h"
#include "harness/vk_check.h"

namespace pb {

ClockCalibration calibrate_clocks(Device& device) {
  ClockCalibration result;
  if (!device.info().caps.calibrated_timestamps || !device.vk().vkGetCalibratedTimestampsEXT) {
    return result;
  }
  VkCalibratedTimestampInfoEXT infos[2] = {{VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT},
                                           {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT}};
  infos[0].timeDomain = VK_TIME_DOMAIN_DEVICE_EXT;
  infos[1].timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
  uint64_t values[2] = {};
  uint64_t deviation = 0;
  PB_VK_CHECK(device.vk().vkGetCalibratedTimestampsEXT(device.handle(), 2, infos, values, &deviation));
  result.calibrated = true;
  result.gpu_ticks = values[0] & timestamp_mask(device.info().timestamp_valid_bits);
  result.host_ns = static_cast<int64_t>(values[1]);
  result.max_deviation_ns = deviation;
  return result;
}

}  // namespace pb
