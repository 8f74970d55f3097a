// A parsed GGUF v3 file: header fields, metadata in file order, tensor infos in file order and
// by name, and tensor data as spans into the file's memory mapping (a 20 GB model costs no
// 20 GB of heap). Opening validates the whole layout; what is returned is consistent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_metadata.h"
#include "engine/gguf/gguf_tensor_info.h"
#include "engine/gguf/mapped_file.h"

namespace pb::gguf {

class GgufFile {
 public:
  // Maps `path` read-only and parses it. Throws GgufError on any malformation.
  static GgufFile open(const std::filesystem::path& path);
  // Parses bytes the caller keeps alive and unchanged for the life of the GgufFile.
  static GgufFile from_memory(std::span<const uint8_t> bytes, std::string name = "<memory>");
  // Parses bytes the GgufFile then owns.
  static GgufFile from_buffer(std::vector<uint8_t> bytes, std::string name = "<memory>");

  GgufFile(GgufFile&&) noexcept = default;
  GgufFile& operator=(GgufFile&&) noexcept = default;

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute start of the data section
  uint64_t file_size() const { return bytes_.size(); }

  const GgufMetadata& metadata() const { return metadata_; }
  const GgufValue* find(std::string_view key) const { return metadata_.find(key); }
  uint32_t get_u32(std::string_view key) const { return metadata_.get_u32(key); }
  uint64_t get_u64(std::string_view key) const { return metadata_.get_u64(key); }
  uint64_t get_unsigned(std::string_view key) const { return metadata_.get_unsigned(key); }
  float get_f32(std::string_view key) const { return metadata_.get_f32(key); }
  bool get_bool(std::string_view key) const { return metadata_.get_bool(key); }
  const std::string& get_string(std::string_view key) const { return metadata_.get_string(key); }
  const GgufArray& get_array(std::string_view key) const { return metadata_.get_array(key); }
  template <class T>
  const std::vector<T>& get_array(std::string_view key) const {
    return metadata_.get_array<T>(key);
  }

  std::span<const GgufTensorInfo> tensors() const { return tensors_; }
  const GgufTensorInfo* find_tensor(std::string_view name) const;
  const GgufTensorInfo& tensor(std::string_view name) const;  // throws GgufError when absent

  // The tensor's bytes, pointing into the mapping (or buffer). Throws GgufError when `info`
  // is not one of this file's tensors, or when its ggml type is unknown (size unknown).
  std::span<const uint8_t> tensor_data(const GgufTensorInfo& info) const;

 private:
  using Storage = std::variant<std::monostate, MappedFile, std::vector<uint8_t>>;
  GgufFile(Storage storage, std::span<const uint8_t> bytes, std::string name);

  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  // Moving a MappedFile or a vector keeps the bytes' address, so `bytes_` survives moves.
  Storage storage_;
  std::span<const uint8_t> bytes_;
  std::string name_;
  uint32_t version_ = 0;
  uint32_t alignment_ = 0;
  uint64_t data_offset_ = 0;
  GgufMetadata metadata_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> tensor_index_;
};

}  // namespace pb::gguf
