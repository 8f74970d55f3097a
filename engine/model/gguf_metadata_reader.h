// Typed reads of one architecture's GGUF metadata keys (`<arch>.<suffix>`, and `phasebench.*`),
// with errors that name the file and the full key: what a user needs to fix a converted file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gguf/gguf_reader.h"

namespace pb {

class GgufMetadataReader {
 public:
  // general.architecture; throws UsageError when it is missing or not a string.
  static std::string architecture(const gguf::GgufFile& file);

  GgufMetadataReader(const gguf::GgufFile& file, std::string arch) : file_(file), arch_(std::move(arch)) {}

  bool has(std::string_view suffix) const { return file_.find(key(suffix)) != nullptr; }
  // A count: any non-negative integer type up to UINT32_MAX, or an array of equal ones (llama.cpp
  // allows per-layer arrays; phasebench runs equal layers). Throws UsageError when missing.
  uint32_t u32(std::string_view suffix) const;
  uint32_t u32_or(std::string_view suffix, uint32_t fallback) const;
  // float32 or float64.
  float f32_or(std::string_view suffix, float fallback) const;
  bool bool_or(std::string_view suffix, bool fallback) const;
  // An array of bools (or of integers, non-zero meaning true); nullopt when absent.
  std::optional<std::vector<bool>> bool_array(std::string_view suffix) const;

  // `phasebench.<name>`: fields llama.cpp has no key for.
  uint32_t phasebench_u32_or(std::string_view name, uint32_t fallback) const;
  float phasebench_f32_or(std::string_view name, float fallback) const;

  // Throws UsageError: "<file>: metadata key "<arch>.<suffix>": <what>".
  [[noreturn]] void fail(std::string_view suffix, const std::string& what) const;

 private:
  std::string key(std::string_view suffix) const { return arch_ + "." + std::string(suffix); }
  [[noreturn]] void fail_key(const std::string& key, const std::string& what) const;
  uint32_t count_of(const std::string& key, const gguf::GgufValue& value) const;
  float float_of(const std::string& key, const gguf::GgufValue& value) const;

  const gguf::GgufFile& file_;
  std::string arch_;
};

}  // namespace pb
