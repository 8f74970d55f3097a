#include "engine/gguf/gguf_writer.h"

#include <algorithm>
#include <bit>

#include "engine/gguf/atomic_file.h"
#include "engine/gguf/gguf_error.h"

namespace pb::gguf {
namespace {

constexpr const char* kWriterName = "GGUF writer";
// Tensors produced by a filler stream through a buffer of this size.
constexpr uint64_t kChunkBytes = uint64_t{4} << 20;

std::string key_section(const std::string& key) { return "metadata key " + quote_name(key); }
std::string tensor_section(const std::string& name) { return "tensor " + quote_name(name); }

[[noreturn]] void fail_tensor(const std::string& name, const std::string& why) {
  throw GgufError(kWriterName, tensor_section(name), std::nullopt, why);
}

// Appends little-endian encodings to a byte vector.
class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>& out) : out_(out) {}

  template <class T>
  void put(T v) {
    const size_t n = out_.size();
    out_.resize(n + sizeof(T));
    store_le(out_.data() + n, v);
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  // The payload of a value (without its type id): what follows the type in a pair, and what
  // each element of an array is.
  template <class T>
  void put_payload(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      put_string(v);
    } else if constexpr (std::is_same_v<T, bool>) {
      put<uint8_t>(v ? 1 : 0);
    } else if constexpr (std::is_same_v<T, GgufArray>) {
      put<uint32_t>(static_cast<uint32_t>(v.element_type()));
      put<uint64_t>(v.size());
      std::visit(
          [&](const auto& vec) {
            using E = typename std::decay_t<decltype(vec)>::value_type;
            for (const E& e : vec) put_payload(e);
          },
          v.data());
    } else {
      put<T>(v);
    }
  }
  void put_value(const GgufValue& v) {
    put<uint32_t>(static_cast<uint32_t>(v.type()));
    std::visit([&](const auto& x) { put_payload(x); }, v.data());
  }

 private:
  std::vector<uint8_t>& out_;
};

// Nesting depth of an array value: 1 for an array of scalars.
int array_depth(const GgufArray& a) {
  int deepest = 0;
  if (const auto* nested = std::get_if<std::vector<GgufArray>>(&a.data())) {
    for (const GgufArray& n : *nested) deepest = std::max(deepest, array_depth(n));
  }
  return 1 + deepest;
}

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment) : alignment_(alignment) {
  if (alignment == 0 || !std::has_single_bit(alignment)) {
    throw GgufError(
        kWriterName, "alignment", std::nullopt,
        "alignment must be a non-zero power of two, found " + std::to_string(alignment));
  }
}

void GgufWriter::add(std::string key, GgufValue value) {
  if (key == kAlignmentKey) {
    throw GgufError(kWriterName, key_section(key), std::nullopt,
                    "set the alignment through the GgufWriter constructor, so that the "
                    "layout and the key cannot disagree");
  }
  if (const auto* a = std::get_if<GgufArray>(&value.data());
      a && array_depth(*a) > kMaxArrayDepth) {
    throw GgufError(kWriterName, key_section(key), std::nullopt,
                    "arrays are nested more than " + std::to_string(kMaxArrayDepth) +
                        " levels deep; readers reject that");
  }
  const std::string section = key_section(key);
  if (metadata_.insert(std::move(key), std::move(value))) {
    throw GgufError(kWriterName, section, std::nullopt, "duplicate key");
  }
}

GgufWriter::Tensor GgufWriter::make_tensor(std::string name, std::vector<uint64_t> dims,
                                           GgmlType type) const {
  auto fail = [&](const std::string& why) { fail_tensor(name, why); };
  if (tensor_names_.contains(name)) fail("duplicate tensor name");
  if (dims.size() > kMaxDims) {
    fail(std::to_string(dims.size()) + " dimensions; at most " + std::to_string(kMaxDims));
  }
  const GgmlTypeInfo* info = find_ggml_type(static_cast<uint32_t>(type));
  if (!info) fail_tensor(name, "unknown ggml type " + std::to_string(static_cast<uint32_t>(type)));
  const TensorBytes bytes = ggml_tensor_bytes(*info, dims);
  if (!bytes.error.empty()) fail(bytes.error);
  const std::optional<uint64_t> end = bytes.bytes <= UINT64_MAX - data_size_
                                          ? align_up(data_size_ + bytes.bytes, alignment_)
                                          : std::nullopt;
  if (!end) fail("the data section would exceed 64 bits");
  return Tensor{std::move(name), std::move(dims), type, bytes.bytes, data_size_, {}, {}, {}};
}

void GgufWriter::push_tensor(Tensor t) {
  data_size_ = *align_up(t.offset + t.bytes, alignment_);  // checked by make_tensor
  tensor_names_.insert(t.name);
  tensors_.push_back(std::move(t));
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type,
                            std::span<const uint8_t> data) {
  Tensor t = make_tensor(std::move(name), std::move(dims), type);
  if (data.size() != t.bytes) {
    fail_tensor(t.name, "expected " + std::to_string(t.bytes) + " bytes of " +
                            ggml_type_name(static_cast<uint32_t>(type)) +
                            " data for its shape, got " + std::to_string(data.size()));
  }
  t.data = data;
  push_tensor(std::move(t));
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type,
                            std::vector<uint8_t>&& data) {
  add_tensor(std::move(name), std::move(dims), type, std::span<const uint8_t>(data));
  tensors_.back().owned = std::move(data);  // same buffer, so the span stays valid
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, GgmlType type,
                            TensorFiller fill) {
  Tensor t = make_tensor(std::move(name), std::move(dims), type);
  if (!fill && t.bytes > 0) {
    fail_tensor(t.name, "no filler given");
  }
  t.fill = std::move(fill);
  push_tensor(std::move(t));
}

std::vector<uint8_t> GgufWriter::encode_head() const {
  std::vector<uint8_t> out(kMagic.begin(), kMagic.end());
  Encoder e(out);
  const bool write_alignment = alignment_ != kDefaultAlignment;
  e.put<uint32_t>(kVersion);
  e.put<uint64_t>(tensors_.size());
  e.put<uint64_t>(metadata_.size() + (write_alignment ? 1 : 0));
  if (write_alignment) {  // first, so a reader meets it before anything it governs
    e.put_string(kAlignmentKey);
    e.put_value(GgufValue(alignment_));
  }
  for (const GgufKeyValue& kv : metadata_) {
    e.put_string(kv.key);
    e.put_value(kv.value);
  }
  for (const Tensor& t : tensors_) {
    e.put_string(t.name);
    e.put<uint32_t>(static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) e.put<uint64_t>(d);
    e.put<uint32_t>(static_cast<uint32_t>(t.type));
    e.put<uint64_t>(t.offset);
  }
  // The padding aligns the tensor data that follows. A file without tensors has none, and ends
  // here, as gguf-py's vocab-only files do (readers accept both). Padding it anyway would let a
  // tensor-less file that names a 2 GiB alignment grow to 2 GiB on a rewrite.
  if (!tensors_.empty()) out.resize(*align_up(out.size(), alignment_), 0);
  return out;
}

uint64_t GgufWriter::file_size() const { return encode_head().size() + data_size_; }

void GgufWriter::emit(const Sink& sink) const {
  sink(encode_head());
  std::vector<uint8_t> buffer;
  // Padding comes from one bounded block of zeros: an alignment may be as large as 2 GiB.
  const std::vector<uint8_t> zeros(
      static_cast<size_t>(std::min<uint64_t>(alignment_, kChunkBytes)), 0);
  for (const Tensor& t : tensors_) {
    if (!t.fill) {
      sink(t.data);
    } else {
      buffer.resize(static_cast<size_t>(std::min(t.bytes, kChunkBytes)));
      for (uint64_t off = 0; off < t.bytes; off += buffer.size()) {
        const std::span<uint8_t> chunk(
            buffer.data(), static_cast<size_t>(std::min<uint64_t>(buffer.size(), t.bytes - off)));
        t.fill(off, chunk);
        sink(chunk);
      }
    }
    for (uint64_t pad = *align_up(t.bytes, alignment_) - t.bytes; pad > 0;) {
      const uint64_t n = std::min<uint64_t>(pad, zeros.size());
      sink(std::span<const uint8_t>(zeros.data(), static_cast<size_t>(n)));
      pad -= n;
    }
  }
}

void GgufWriter::write(const std::filesystem::path& path) const {
  AtomicFile file(path);
  emit([&](std::span<const uint8_t> bytes) { file.write(bytes); });
  file.commit();
}

std::vector<uint8_t> GgufWriter::to_bytes() const {
  std::vector<uint8_t> out;
  emit([&](std::span<const uint8_t> bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); });
  return out;
}

}  // namespace pb::gguf
