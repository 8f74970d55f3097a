// Writes the GGUF fuzz seed corpus: gguf_make_corpus <dir> (normally tests/gguf/corpus).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/gguf/corpus_files.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& file : pb::gguf::test::gguf_seed_corpus()) {
    std::ofstream out(dir / file.name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.bytes.data()),
              static_cast<std::streamsize>(file.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", (dir / file.name).c_str());
      return 1;
    }
    std::printf("%s (%zu bytes)\n", (dir / file.name).c_str(), file.bytes.size());
  }
  return 0;
}
