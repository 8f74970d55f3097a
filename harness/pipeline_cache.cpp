#include "harness/pipeline_cache.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

// A file written by another driver or device is ignored rather than handed to the driver:
// the header (VkPipelineCacheHeaderVersionOne) must name this device's vendor, device and
// pipeline-cache UUID.
bool header_matches(const std::vector<uint8_t>& data, const DeviceInfo& info) {
  if (data.size() < 32) return false;
  uint32_t header_length, version, vendor, device;
  std::memcpy(&header_length, data.data(), 4);
  std::memcpy(&version, data.data() + 4, 4);
  std::memcpy(&vendor, data.data() + 8, 4);
  std::memcpy(&device, data.data() + 12, 4);
  return header_length >= 32 && version == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         vendor == info.vendor_id && device == info.device_id &&
         std::memcmp(data.data() + 16, info.pipeline_cache_uuid.data(), VK_UUID_SIZE) == 0;
}

}  // namespace

std::filesystem::path PipelineCache::default_directory() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return {};
  return std::filesystem::path(home) / ".cache" / "phasebench" / "pipelines";
}

std::filesystem::path PipelineCache::file_for(const Device& device,
                                              const std::filesystem::path& dir) {
  return dir / (format_uuid(device.info().device_uuid) + "-" +
                std::to_string(device.info().driver_version_raw) + ".bin");
}

PipelineCache::PipelineCache(Device& device, std::filesystem::path directory) : device_(device) {
  std::vector<uint8_t> data;
  if (!directory.empty()) {
    file_ = file_for(device, directory);
    std::ifstream in(file_, std::ios::binary);
    if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!header_matches(data, device.info())) data.clear();
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  PB_VK_CHECK(device.vk().vkCreatePipelineCache(device.handle(), &info, nullptr, &cache));
  cache_ = DeviceObject<VkPipelineCache>(device.handle(), cache, device.vk().vkDestroyPipelineCache);
  loaded_bytes_ = data.size();
}

PipelineCache::~PipelineCache() {
  try {
    save();
  } catch (...) {
    // The cache only saves time; failing to write it must not fail the run.
  }
}

void PipelineCache::save() {
  if (file_.empty()) return;
  const auto& vk = device_.vk();
  size_t size = 0;
  PB_VK_CHECK(vk.vkGetPipelineCacheData(device_.handle(), cache_.get(), &size, nullptr));
  std::vector<uint8_t> data(size);
  PB_VK_CHECK(vk.vkGetPipelineCacheData(device_.handle(), cache_.get(), &size, data.data()));
  data.resize(size);
  std::filesystem::create_directories(file_.parent_path());
  const auto temp = file_.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("cannot write pipeline cache " + temp);
  }
  std::filesystem::rename(temp, file_);
}

}  // namespace pb
