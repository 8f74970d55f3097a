// The GGUF v3 parser, internal to pb_gguf: turns a byte span into header fields, metadata and
// tensor infos, validating every count, length and range against the bytes it has.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/gguf/gguf_cursor.h"
#include "engine/gguf/gguf_metadata.h"
#include "engine/gguf/gguf_tensor_info.h"

namespace pb::gguf {

struct ParsedGguf {
  uint32_t version = 0;
  uint32_t alignment = kDefaultAlignment;
  uint64_t data_offset = 0;  // absolute offset of the data section
  GgufMetadata metadata;
  std::vector<GgufTensorInfo> tensors;
};

// Throws GgufError for anything malformed; `source` names the file in messages.
ParsedGguf parse_gguf(std::span<const uint8_t> bytes, const std::string& source);

// Reads one metadata value of on-disk type `type` (whose id was read at `type_at`).
GgufValue read_gguf_value(ByteCursor& cursor, uint32_t type, uint64_t type_at);

}  // namespace pb::gguf
