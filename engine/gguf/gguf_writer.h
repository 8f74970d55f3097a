// Builds a GGUF v3 file: metadata of every value type, tensors given as bytes or produced in
// chunks by a callback (so a large tensor streams to disk without being held in memory), the
// alignment padding, and an atomic write (temporary file, fsync, rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/gguf/ggml_types.h"
#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_format.h"
#include "engine/gguf/gguf_metadata.h"

namespace pb::gguf {

class GgufWriter {
 public:
  // Fills `out` with the tensor's bytes [offset, offset + out.size()). It is called with
  // consecutive chunks, in order, until the tensor is complete; it may throw to abort.
  using TensorFiller = std::function<void(uint64_t offset, std::span<uint8_t> out)>;

  // `alignment` must be a power of two; general.alignment is written when it is not 32.
  explicit GgufWriter(uint32_t alignment = kDefaultAlignment);

  // Adds a metadata pair, written in the order added. Throws GgufError on a duplicate key,
  // on general.alignment (set it through the constructor), or on arrays nested too deep.
  void add(std::string key, GgufValue value);

  // Adds a tensor, written in the order added. `dims` is ggml's ne (ne0 innermost first).
  // Throws GgufError on a duplicate name, more than kMaxDims dims, rows that are not whole
  // blocks, or (bytes forms) a byte count that does not match the shape and type.
  // The span is borrowed: it must stay valid until write() or to_bytes() has returned.
  void add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type,
                  std::span<const uint8_t> data);
  // The writer keeps the bytes (a temporary vector cannot dangle).
  void add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type,
                  std::vector<uint8_t>&& data);
  void add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type, TensorFiller fill);

  uint32_t alignment() const { return alignment_; }
  const GgufMetadata& metadata() const { return metadata_; }
  size_t tensor_count() const { return tensors_.size(); }
  uint64_t file_size() const;  // of the file write() produces

  // Writes atomically to `path` (via `path.tmp`). Throws std::system_error on I/O failure,
  // leaving any previous file at `path` untouched.
  void write(const std::filesystem::path& path) const;
  // The same bytes, in memory (tests, fuzz corpora).
  std::vector<uint8_t> to_bytes() const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    GgmlType type;
    uint64_t bytes = 0;
    uint64_t offset = 0;            // relative to the data section
    std::span<const uint8_t> data;  // borrowed bytes (or a view of `owned`), or
    TensorFiller fill;              // their producer
    std::vector<uint8_t> owned;     // moving it keeps its buffer, so `data` stays valid
  };
  // Receives the file's bytes in order.
  using Sink = std::function<void(std::span<const uint8_t>)>;

  // Validates and lays out a tensor (not yet added).
  Tensor make_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type) const;
  void push_tensor(Tensor t);
  std::vector<uint8_t> encode_head() const;  // header, metadata, tensor infos, padding if any
  void emit(const Sink& sink) const;

  uint32_t alignment_;
  GgufMetadata metadata_{"GGUF writer"};
  std::vector<Tensor> tensors_;
  std::unordered_set<std::string> tensor_names_;
  uint64_t data_size_ = 0;  // bytes of the data section so far, padded
};

}  // namespace pb::gguf
