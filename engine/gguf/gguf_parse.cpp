// The GGUF v3 parser: header, metadata, tensor infos, then the checks that tie the tensor
// infos to the bytes of the file (alignment, bounds, overlap).
#include "engine/gguf/gguf_parse.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <unordered_map>

namespace pb::gguf {
namespace {

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string out;
  for (uint8_t x : b) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%s%02x", out.empty() ? "" : " ", x);
    out += buf;
  }
  return out;
}

struct Header {
  uint32_t version = 0;
  uint64_t tensor_count = 0;
  uint64_t kv_count = 0;
};

Header read_header(ByteCursor& c) {
  c.set_section("header");
  const auto magic = c.read_bytes(4, "magic");
  if (!std::equal(magic.begin(), magic.end(), kMagic.begin())) {
    c.fail_at(0,
              "not a GGUF file: expected magic \"GGUF\" (47 47 55 46), found " + hex_bytes(magic));
  }
  Header h;
  h.version = c.read<uint32_t>("version");
  if (h.version != kVersion) {
    std::string why = "unsupported GGUF version " + std::to_string(h.version) +
                      "; phasebench reads version 3 only";
    if (h.version == 1 || h.version == 2) {
      why += " (versions 1 and 2 are obsolete; convert the model again with a current llama.cpp)";
    } else if (const uint32_t swapped = __builtin_bswap32(h.version);
               swapped >= 1 && swapped <= kVersion) {
      why += " (this looks like a big-endian file, which is not supported)";
    }
    c.fail_at(4, why);
  }
  const uint64_t tensors_at = c.offset();
  h.tensor_count = c.read<uint64_t>("tensor_count");
  const uint64_t kvs_at = c.offset();
  h.kv_count = c.read<uint64_t>("metadata_kv_count");

  // Plausibility before any allocation: every pair and every tensor info takes a minimum
  // number of bytes, so the counts cannot exceed what the rest of the file could hold.
  const uint64_t left = c.remaining();
  if (h.kv_count > left / kMinKeyValueBytes) {
    c.fail_at(kvs_at, "metadata_kv_count " + std::to_string(h.kv_count) + " is impossible: the " +
                          std::to_string(left) + " bytes after the header hold at most " +
                          std::to_string(left / kMinKeyValueBytes) +
                          " key/value pairs (is the file truncated?)");
  }
  const uint64_t left_for_tensors = left - h.kv_count * kMinKeyValueBytes;
  if (h.tensor_count > left_for_tensors / kMinTensorInfoBytes) {
    c.fail_at(tensors_at, "tensor_count " + std::to_string(h.tensor_count) +
                              " is impossible: the bytes after the header hold at most " +
                              std::to_string(left_for_tensors / kMinTensorInfoBytes) +
                              " tensor infos besides the metadata (is the file truncated?)");
  }
  return h;
}

void read_metadata(ByteCursor& c, uint64_t kv_count, GgufMetadata& out) {
  for (uint64_t i = 0; i < kv_count; ++i) {
    c.set_section("metadata pair " + std::to_string(i));
    const uint64_t key_at = c.offset();
    std::string key = c.read_string("key");
    c.set_section("metadata key " + quote_name(key));
    const uint64_t type_at = c.offset();
    const uint32_t type = c.read<uint32_t>("value type");
    GgufValue value = read_gguf_value(c, type, type_at);
    if (const GgufKeyValue* first = out.insert(key, std::move(value), key_at)) {
      c.fail_at(key_at, "duplicate key (first defined at byte " +
                            std::to_string(first->offset.value_or(0)) + ")");
    }
  }
}

uint32_t alignment_of(const ByteCursor& c, const GgufMetadata& md) {
  const GgufKeyValue* kv = md.find_entry(kAlignmentKey);
  if (!kv) return kDefaultAlignment;
  const std::string section = "metadata key " + quote_name(kAlignmentKey);
  const auto* a = std::get_if<uint32_t>(&kv->value.data());
  if (!a) {
    throw GgufError(c.source(), section, kv->offset,
                    "expected uint32, found " + kv->value.type_description());
  }
  // The spec asks for a multiple of 8; ggml accepts any power of two, and so does phasebench.
  if (*a == 0 || !std::has_single_bit(*a)) {
    throw GgufError(c.source(), section, kv->offset,
                    "alignment must be a non-zero power of two, found " + std::to_string(*a));
  }
  return *a;
}

// A tensor info plus where its fields were, for error messages about its data.
struct PendingTensor {
  GgufTensorInfo info;
  uint64_t info_at = 0;
  uint64_t offset_at = 0;
  std::string section;
};

PendingTensor read_tensor_info(ByteCursor& c, uint64_t i) {
  PendingTensor t;
  t.info.index = static_cast<size_t>(i);
  t.info_at = c.offset();
  c.set_section("tensor info " + std::to_string(i));
  t.info.name = c.read_string("name");
  t.section = "tensor info " + std::to_string(i) + " " + quote_name(t.info.name);
  c.set_section(t.section);

  const uint64_t ndims_at = c.offset();
  const uint32_t n_dims = c.read<uint32_t>("n_dims");
  if (n_dims > kMaxDims) {
    c.fail_at(ndims_at, "n_dims " + std::to_string(n_dims) + " exceeds the maximum of " +
                            std::to_string(kMaxDims) + " (ggml uses at most 4)");
  }
  const uint64_t dims_at = c.offset();
  t.info.dims.resize(n_dims);  // at most kMaxDims, so no hostile allocation
  for (uint32_t d = 0; d < n_dims; ++d) {
    t.info.dims[d] = c.read<uint64_t>("dimension ne" + std::to_string(d));
  }
  const ElementCount n = ggml_element_count(t.info.dims);
  if (!n.error.empty()) c.fail_at(dims_at, n.error);
  t.info.element_count = n.count;

  t.info.ggml_type = c.read<uint32_t>("ggml type");
  if (const GgmlTypeInfo* type = t.info.type_info()) {
    const TensorBytes bytes = ggml_tensor_bytes(*type, t.info.dims);
    if (!bytes.error.empty()) c.fail_at(dims_at, bytes.error);
    t.info.byte_size = bytes.bytes;
  }
  // An unknown type is accepted here (see GgufTensorInfo::byte_size).
  t.offset_at = c.offset();
  t.info.offset = c.read<uint64_t>("data offset");
  return t;
}

// Bytes a tensor certainly occupies: its size, or for an unknown type one byte unless empty
// (its true extent cannot be checked, but its first byte can).
uint64_t known_extent(const GgufTensorInfo& t) {
  if (t.byte_size) return *t.byte_size;
  return t.element_count == 0 ? 0 : 1;
}

void check_data_ranges(const ByteCursor& c, uint32_t alignment, uint64_t data_offset,
                       std::vector<PendingTensor>& pending) {
  const uint64_t file_size = c.size();
  for (PendingTensor& t : pending) {
    if (t.info.offset % alignment != 0) {
      throw GgufError(c.source(), t.section, t.offset_at,
                      "data offset " + std::to_string(t.info.offset) +
                          " is not a multiple of the alignment " + std::to_string(alignment));
    }
    const uint64_t extent = known_extent(t.info);
    const std::string where = "data offset " + std::to_string(t.info.offset) + " (file byte " +
                              std::to_string(data_offset) + " + offset)";
    if (t.info.offset > file_size || data_offset > file_size - t.info.offset ||
        extent > file_size - data_offset - t.info.offset) {
      throw GgufError(c.source(), t.section, t.offset_at,
                      where + " with " + std::to_string(extent) +
                          " bytes of data lies past the end of the file (size " +
                          std::to_string(file_size) + ")");
    }
    t.info.file_offset = data_offset + t.info.offset;
  }

  // Overlap: sort the non-empty ranges by start; if any two overlap, two neighbours do.
  std::vector<const PendingTensor*> order;
  for (const PendingTensor& t : pending) {
    if (known_extent(t.info) > 0) order.push_back(&t);
  }
  std::sort(order.begin(), order.end(), [](const PendingTensor* a, const PendingTensor* b) {
    return a->info.file_offset != b->info.file_offset ? a->info.file_offset < b->info.file_offset
                                                      : a->info.index < b->info.index;
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const GgufTensorInfo& a = order[k - 1]->info;
    const GgufTensorInfo& b = order[k]->info;
    const uint64_t a_end = a.file_offset + known_extent(a);
    if (a_end > b.file_offset) {
      const PendingTensor& later = a.index > b.index ? *order[k - 1] : *order[k];
      const GgufTensorInfo& other = a.index > b.index ? b : a;
      throw GgufError(c.source(), later.section, later.offset_at,
                      "data bytes [" + std::to_string(later.info.file_offset) + ", " +
                          std::to_string(later.info.file_offset + known_extent(later.info)) +
                          ") overlap those of tensor " + std::to_string(other.index) + " " +
                          quote_name(other.name) + " [" + std::to_string(other.file_offset) + ", " +
                          std::to_string(other.file_offset + known_extent(other)) + ")");
    }
  }
}

}  // namespace

ParsedGguf parse_gguf(std::span<const uint8_t> bytes, const std::string& source) {
  ByteCursor c(bytes, source);
  ParsedGguf out;
  out.metadata = GgufMetadata(source);
  const Header h = read_header(c);
  out.version = h.version;
  read_metadata(c, h.kv_count, out.metadata);
  out.alignment = alignment_of(c, out.metadata);

  std::vector<PendingTensor> pending;
  pending.reserve(static_cast<size_t>(h.tensor_count));  // bounded in read_header
  std::unordered_map<std::string, size_t> names;
  for (uint64_t i = 0; i < h.tensor_count; ++i) {
    pending.push_back(read_tensor_info(c, i));
    const PendingTensor& t = pending.back();
    auto [it, added] = names.try_emplace(t.info.name, t.info.index);
    if (!added) {
      throw GgufError(
          source, t.section, t.info_at,
          "duplicate tensor name (first used by tensor info " + std::to_string(it->second) + ")");
    }
  }

  c.set_section("data section");
  const std::optional<uint64_t> data_offset = align_up(c.offset(), out.alignment);
  if (!data_offset) c.fail("aligning the data section overflows 64 bits");  // unreachable
  out.data_offset = *data_offset;
  check_data_ranges(c, out.alignment, out.data_offset, pending);

  out.tensors.reserve(pending.size());
  for (PendingTensor& t : pending) out.tensors.push_back(std::move(t.info));
  return out;
}

}  // namespace pb::gguf
