// The seed corpus of the GGUF fuzz target: a few tiny valid files made by the writer.
// gguf_make_corpus writes them to tests/gguf/corpus; a test checks the committed copies
// still match what the writer produces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pb::gguf::test {

struct CorpusFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

std::vector<CorpusFile> gguf_seed_corpus();

}  // namespace pb::gguf::test
