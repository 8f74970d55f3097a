// Helpers for the GGUF model tests: a per-test temporary directory, exported tiny presets, and a
// rewriter that copies a GGUF file with one thing changed (a key, a tensor's presence, shape or
// type), to make the bad files a user might meet.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/gguf/gguf_reader.h"
#include "engine/model/model_config.h"
#include "engine/model/tensor_plan.h"

namespace pb::test {

class TempDir {
 public:
  TempDir();  // named after the running test
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Writes preset `name` with synthetic weights to `path` through the export path.
std::filesystem::path export_preset(const std::filesystem::path& path, const std::string& name,
                                    const WeightChoice& weights = {}, uint32_t seed = 1);

// What to change when copying a GGUF file.
struct GgufEdit {
  std::set<std::string> drop_keys;
  std::map<std::string, gguf::GgufValue> set_keys;   // replaced in place, or added at the end
  std::set<std::string> drop_tensors;
  std::map<std::string, std::vector<uint64_t>> reshape;  // new dims (contents zero)
  std::map<std::string, gguf::GgmlType> retype;          // new type (contents zero)
  std::map<std::string, std::vector<uint8_t>> replace_data;  // same shape and type, new bytes
  std::vector<std::pair<std::string, std::vector<float>>> add_f32;  // extra 1-D F32 tensors
};
void rewrite_gguf(const std::filesystem::path& from, const std::filesystem::path& to, const GgufEdit& edit);

// Whether `text` contains `part`, saying both when not.
::testing::AssertionResult contains(const std::string& text, const std::string& part);

// Every field of the configs equal (floats exactly), each difference reported by name.
void expect_same_config(const ModelConfig& actual, const ModelConfig& expected);

}  // namespace pb::test
