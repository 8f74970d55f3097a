// The pipeline cache round-trips through disk, and a file from another device is ignored.
#include "harness/pipeline_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/pipeline.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

std::filesystem::path fresh_dir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / ("phasebench-test-" + std::string(name) + "-" +
                                                       std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

class PipelineCacheTest : public GpuTest {};

TEST_F(PipelineCacheTest, RoundTripsThroughDisk) {
  const auto dir = fresh_dir("cache");
  const auto file = PipelineCache::file_for(device(), dir);
  {
    PipelineCache cache(device(), dir);
    EXPECT_FALSE(cache.loaded_from_disk());
    PipelineSet pipelines(device(), &cache);
    pipelines.get({&kernel("test_affine"), SpecConstants{}.set(0, 7)});
    cache.save();
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto size = std::filesystem::file_size(file);
  EXPECT_GE(size, 32u);  // at least the header (lavapipe stores nothing else)
  PipelineCache warm(device(), dir);
  EXPECT_TRUE(warm.loaded_from_disk());
  EXPECT_EQ(warm.loaded_bytes(), size);
  PipelineSet pipelines(device(), &warm);
  EXPECT_NO_THROW(pipelines.get({&kernel("test_affine"), SpecConstants{}.set(0, 7)}));
  std::filesystem::remove_all(dir);
}

TEST_F(PipelineCacheTest, IgnoresAFileFromAnotherDevice) {
  const auto dir = fresh_dir("foreign");
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(PipelineCache::file_for(device(), dir), std::ios::binary);
    std::vector<char> junk(64, 'x');
    out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  PipelineCache cache(device(), dir);
  EXPECT_FALSE(cache.loaded_from_disk());
  std::filesystem::remove_all(dir);
}

TEST_F(PipelineCacheTest, EmptyDirectoryMeansNoFile) {
  PipelineCache cache(device(), {});
  EXPECT_TRUE(cache.file().empty());
  EXPECT_NO_THROW(cache.save());
}

}  // namespace
}  // namespace pb::test
