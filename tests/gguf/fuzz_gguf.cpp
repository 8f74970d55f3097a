// libFuzzer target for the GGUF reader. Any input must either parse or throw GgufError;
// anything else (a crash, a sanitizer report, another exception, a failed check below) is a
// bug. Inputs that parse are also written back out and read again: the writer must accept
// what the reader accepted, and a second round trip must reproduce the bytes exactly.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"

namespace {

using pb::gguf::GgufFile;
using pb::gguf::GgufWriter;

[[noreturn]] void bug(const char* what) {
  std::fprintf(stderr, "fuzz_gguf: %s\n", what);
  std::abort();
}

// Rebuilds a file from what the reader exposes, or returns false for what the writer cannot
// express (a ggml type it does not know).
bool rewrite(const GgufFile& f, std::vector<uint8_t>& out) {
  GgufWriter w(f.alignment());
  for (const auto& kv : f.metadata()) {
    if (kv.key != pb::gguf::kAlignmentKey) w.add(kv.key, kv.value);
  }
  for (const auto& t : f.tensors()) {
    if (!t.byte_size) return false;
    w.add_tensor(t.name, t.dims, static_cast<pb::gguf::GgmlType>(t.ggml_type), f.tensor_data(t));
  }
  out = w.to_bytes();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> first;
  try {
    const GgufFile f = GgufFile::from_memory({data, size}, "fuzz input");
    uint64_t sum = 0;  // touch every byte the reader hands out
    for (const auto& kv : f.metadata()) sum += kv.value.to_string().size();
    for (const auto& t : f.tensors()) {
      if (!t.byte_size) continue;
      for (uint8_t b : f.tensor_data(t)) sum += b;
    }
    if (sum == 0xdeadbeefcafeULL) std::fputc(' ', stderr);  // keep `sum` alive
    if (!rewrite(f, first)) return 0;
  } catch (const pb::gguf::GgufError&) {
    return 0;
  }
  try {
    const GgufFile again = GgufFile::from_memory(first, "rewritten");
    std::vector<uint8_t> second;
    if (!rewrite(again, second)) bug("a rewritten file lost a tensor size");
    if (second != first) bug("writing a rewritten file changed its bytes");
  } catch (const pb::gguf::GgufError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    bug("the reader rejected what the writer wrote");
  }
  return 0;
}
