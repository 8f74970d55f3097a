#include "harness/pipeline_statistics.h"

#include <cctype>

#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

double statistic_value(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? 1.0 : 0.0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return static_cast<double>(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return static_cast<double>(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return s.value.f64;
    default: return 0.0;
  }
}

}  // namespace

std::vector<PipelineStatistic> query_pipeline_statistics(const Device& device, VkPipeline pipeline) {
  const auto& vk = device.vk();
  VkPipelineInfoKHR pipeline_info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipeline_info.pipeline = pipeline;
  uint32_t count = 0;
  PB_VK_CHECK(vk.vkGetPipelineExecutablePropertiesKHR(device.handle(), &pipeline_info, &count, nullptr));
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, VkPipelineExecutablePropertiesKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  PB_VK_CHECK(vk.vkGetPipelineExecutablePropertiesKHR(device.handle(), &pipeline_info, &count, executables.data()));

  std::vector<PipelineStatistic> result;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline;
    executable.executableIndex = e;
    uint32_t n = 0;
    PB_VK_CHECK(vk.vkGetPipelineExecutableStatisticsKHR(device.handle(), &executable, &n, nullptr));
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, VkPipelineExecutableStatisticKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    PB_VK_CHECK(vk.vkGetPipelineExecutableStatisticsKHR(device.handle(), &executable, &n, stats.data()));
    const std::string prefix = count > 1 ? std::string(executables[e].name) + "/" : "";
    for (uint32_t i = 0; i < n; ++i) {
      result.push_back({prefix + stats[i].name, stats[i].description, statistic_value(stats[i])});
    }
  }
  return result;
}

std::string statistic_key(const std::string& name) {
  std::string key;
  bool gap = false;
  for (const unsigned char ch : name) {
    if (std::isalnum(ch)) {
      if (gap && !key.empty()) key += '_';
      key += static_cast<char>(std::tolower(ch));
      gap = false;
    } else {
      gap = true;
    }
  }
  return key;
}

}  // namespace pb
