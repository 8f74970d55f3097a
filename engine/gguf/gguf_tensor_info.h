// What a GGUF file says about one tensor: name, shape, ggml type and where its bytes are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/gguf/ggml_types.h"

namespace pb::gguf {

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ggml's ne: dims[0] = ne0 is the innermost, contiguous one
  uint32_t ggml_type = 0;      // as stored; may be an id phasebench does not know
  uint64_t offset = 0;         // relative to the data section, as stored
  uint64_t file_offset = 0;    // absolute offset of the first byte in the file
  uint64_t element_count = 0;  // product of dims
  // Bytes of data. Unknown for a ggml type phasebench does not know: such a file still
  // opens (its metadata and other tensors are usable), but its data cannot be taken.
  std::optional<uint64_t> byte_size;
  size_t index = 0;  // position in the file's tensor list

  // The type's traits, or nullptr when the id is unknown.
  const GgmlTypeInfo* type_info() const { return find_ggml_type(ggml_type); }
  std::string type_name() const { return ggml_type_name(ggml_type); }
};

}  // namespace pb::gguf
