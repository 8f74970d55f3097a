#include "engine/gguf/gguf_reader.h"

#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_parse.h"

namespace pb::gguf {
namespace {

std::string tensor_section(const GgufTensorInfo& t) {
  return "tensor info " + std::to_string(t.index) + " " + quote_name(t.name);
}

}  // namespace

GgufFile::GgufFile(Storage storage, std::span<const uint8_t> bytes, std::string name)
    : storage_(std::move(storage)), bytes_(bytes), name_(std::move(name)) {
  ParsedGguf p = parse_gguf(bytes_, name_);
  version_ = p.version;
  alignment_ = p.alignment;
  data_offset_ = p.data_offset;
  metadata_ = std::move(p.metadata);
  tensors_ = std::move(p.tensors);
  tensor_index_.reserve(tensors_.size());
  for (const GgufTensorInfo& t : tensors_) tensor_index_.emplace(t.name, t.index);
}

GgufFile GgufFile::open(const std::filesystem::path& path) {
  MappedFile mapping(path);
  const std::span<const uint8_t> bytes = mapping.bytes();
  return GgufFile(std::move(mapping), bytes, path.string());
}

GgufFile GgufFile::from_memory(std::span<const uint8_t> bytes, std::string name) {
  return GgufFile(std::monostate{}, bytes, std::move(name));
}

GgufFile GgufFile::from_buffer(std::vector<uint8_t> bytes, std::string name) {
  const std::span<const uint8_t> view(bytes);
  return GgufFile(std::move(bytes), view, std::move(name));
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const GgufTensorInfo& GgufFile::tensor(std::string_view name) const {
  if (const GgufTensorInfo* t = find_tensor(name)) return *t;
  throw GgufError(
      name_, "tensor " + quote_name(name), std::nullopt,
      "no tensor of that name in the file (" + std::to_string(tensors_.size()) + " tensors)");
}

std::span<const uint8_t> GgufFile::tensor_data(const GgufTensorInfo& info) const {
  // Only this file's infos carry offsets that were checked against this file's bytes.
  if (info.index >= tensors_.size() || tensors_[info.index].name != info.name ||
      tensors_[info.index].file_offset != info.file_offset) {
    throw GgufError(name_, tensor_section(info), std::nullopt,
                    "this tensor info does not belong to this file");
  }
  const GgufTensorInfo& t = tensors_[info.index];
  if (!t.byte_size) {
    throw GgufError(name_, tensor_section(t), t.file_offset,
                    "its ggml type " + std::to_string(t.ggml_type) +
                        " is unknown to phasebench, so the size of its data is unknown");
  }
  return bytes_.subspan(t.file_offset, *t.byte_size);
}

}  // namespace pb::gguf
