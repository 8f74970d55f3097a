// A VkPipelineCache persisted on disk, one file per device and driver version, so the second
// run of a sweep does not pay for shader compilation again.
#pragma once

#include <volk.h>

#include <filesystem>
#include <string>

#include "harness/device_object.h"

namespace pb {

class Device;

class PipelineCache {
 public:
  // `directory` empty = no file (an in-memory cache only, what --no-pipeline-cache gives).
  PipelineCache(Device& device, std::filesystem::path directory);
  ~PipelineCache();  // saves (best effort: a destructor must not throw)
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_.get(); }
  bool loaded_from_disk() const { return loaded_bytes_ > 0; }
  size_t loaded_bytes() const { return loaded_bytes_; }
  const std::filesystem::path& file() const { return file_; }

  // Writes the cache atomically (temporary file, then rename). Throws on I/O failure.
  void save();

  // The file for this device: <directory>/<device uuid>-<driver version>.bin
  static std::filesystem::path file_for(const Device& device, const std::filesystem::path& dir);
  // $HOME/.cache/phasebench/pipelines, or empty when HOME is unset.
  static std::filesystem::path default_directory();

 private:
  Device& device_;
  std::filesystem::path file_;
  DeviceObject<VkPipelineCache> cache_;
  size_t loaded_bytes_ = 0;
};

}  // namespace pb
