#include "engine/gguf/gguf_metadata.h"

#include "engine/gguf/gguf_error.h"

namespace pb::gguf {
namespace {

std::string key_section(std::string_view key) { return "metadata key " + quote_name(key); }

}  // namespace

const GgufKeyValue* GgufMetadata::insert(std::string key, GgufValue value,
                                         std::optional<uint64_t> offset) {
  auto [it, added] = index_.try_emplace(key, entries_.size());
  if (!added) return &entries_[it->second];
  entries_.push_back({std::move(key), std::move(value), offset});
  return nullptr;
}

const GgufKeyValue* GgufMetadata::find_entry(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const GgufValue* GgufMetadata::find(std::string_view key) const {
  const GgufKeyValue* kv = find_entry(key);
  return kv ? &kv->value : nullptr;
}

const GgufKeyValue& GgufMetadata::entry(std::string_view key) const {
  if (const GgufKeyValue* kv = find_entry(key)) return *kv;
  throw GgufError(source_, key_section(key), std::nullopt, "required key is missing");
}

const GgufValue& GgufMetadata::get(std::string_view key) const { return entry(key).value; }

uint64_t GgufMetadata::get_unsigned(std::string_view key) const {
  const GgufKeyValue& kv = entry(key);
  try {
    return kv.value.as_unsigned();
  } catch (const GgufError& e) {
    // Re-issue with the file, key and offset that the value itself does not know.
    throw GgufError(source_, key_section(key), kv.offset, e.detail());
  }
}

void GgufMetadata::throw_mismatch(const GgufKeyValue& kv, const std::string& expected) const {
  throw GgufError(source_, key_section(kv.key), kv.offset,
                  "expected " + expected + ", found " + kv.value.type_description());
}

}  // namespace pb::gguf
