#include "tests/gguf/corpus_files.h"

#include "engine/gguf/gguf_writer.h"

namespace pb::gguf::test {

// Each file is small (libFuzzer mutates small inputs best) and shows the fuzzer a different
// part of the format.
std::vector<CorpusFile> gguf_seed_corpus() {
  std::vector<CorpusFile> out;

  out.push_back({"empty.gguf", GgufWriter().to_bytes()});

  GgufWriter scalars;
  scalars.add("u8", uint8_t{1});
  scalars.add("i16", int16_t{-2});
  scalars.add("u32", uint32_t{3});
  scalars.add("f32", 0.5f);
  scalars.add("b", true);
  scalars.add("s", "llama");
  scalars.add("u64", uint64_t{4});
  scalars.add("f64", 0.25);
  out.push_back({"scalars.gguf", scalars.to_bytes()});

  GgufWriter arrays;
  arrays.add("tok", std::vector<std::string>{"<s>", "a"});
  arrays.add("score", std::vector<float>{-1.0f, 0.0f});
  arrays.add("flag", std::vector<bool>{true, false});
  arrays.add("nest", std::vector<GgufArray>{GgufArray(std::vector<int8_t>{-1})});
  out.push_back({"arrays.gguf", arrays.to_bytes()});

  GgufWriter f32;
  f32.add("general.architecture", "llama");
  f32.add_tensor("w", {2, 2}, GgmlType::F32, std::vector<uint8_t>(16, 0x3f));
  out.push_back({"f32_tensor.gguf", f32.to_bytes()});

  GgufWriter quant(16);
  quant.add_tensor("q", {32}, GgmlType::Q8_0, std::vector<uint8_t>(34, 7));
  quant.add_tensor("h", {3}, GgmlType::F16, std::vector<uint8_t>(6, 1));
  out.push_back({"align16_q8_f16.gguf", quant.to_bytes()});

  // What fuzz_gguf once rewrote into 2 GiB: a tensor-less file naming the largest alignment.
  GgufWriter huge_alignment(uint32_t{1} << 31);
  huge_alignment.add("general.name", "vocab only");
  out.push_back({"tensorless_align2g.gguf", huge_alignment.to_bytes()});

  return out;
}

}  // namespace pb::gguf::test
