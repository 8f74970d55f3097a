#include "engine/model/gguf_tokenizer.h"

#include <cstdio>
#include <string>
#include <vector>

namespace pb {
namespace {

// llama.cpp's token types (llama_token_type in llama-vocab.h).
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;
constexpr uint32_t kUnkId = 0, kBosId = 1, kEosId = 2, kFirstByteId = 3;

}  // namespace

void add_placeholder_tokenizer(gguf::GgufWriter& w, uint32_t vocab) {
  const bool bytes = vocab >= kFirstByteId + 256;
  std::vector<std::string> tokens(vocab);
  std::vector<int32_t> types(vocab, kNormal);
  for (uint32_t id = 0; id < vocab; ++id) {
    if (bytes && id >= kFirstByteId && id < kFirstByteId + 256) {
      char text[8];
      std::snprintf(text, sizeof text, "<0x%02X>", id - kFirstByteId);
      tokens[id] = text;
      types[id] = kByte;
    } else {
      tokens[id] = "<t" + std::to_string(id) + ">";
    }
  }
  const char* specials[] = {"<unk>", "<s>", "</s>"};
  for (uint32_t id = 0; id < 3 && id < vocab; ++id) {
    tokens[id] = specials[id];
    types[id] = id == kUnkId ? kUnknown : kControl;
  }
  w.add("tokenizer.ggml.model", "llama");
  w.add("tokenizer.ggml.tokens", std::move(tokens));
  w.add("tokenizer.ggml.scores", std::vector<float>(vocab, 0.0f));
  w.add("tokenizer.ggml.token_type", std::move(types));
  if (vocab > kEosId) {
    w.add("tokenizer.ggml.unknown_token_id", gguf::GgufValue(kUnkId));
    w.add("tokenizer.ggml.bos_token_id", gguf::GgufValue(kBosId));
    w.add("tokenizer.ggml.eos_token_id", gguf::GgufValue(kEosId));
  }
  // Prompts are token ids chosen by the benchmark; a BOS the engine adds on its own would make
  // the two engines' inputs differ.
  w.add("tokenizer.ggml.add_bos_token", gguf::GgufValue(false));
}

}  // namespace pb
