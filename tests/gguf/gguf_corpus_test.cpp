// The committed seed corpus is what the writer produces today, and every seed parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/gguf/gguf_reader.h"
#include "tests/gguf/corpus_files.h"

namespace pb::gguf {
namespace {

TEST(GgufCorpus, CommittedSeedsMatchTheWriter) {
  const std::filesystem::path dir = PB_GGUF_CORPUS_DIR;
  for (const test::CorpusFile& file : test::gguf_seed_corpus()) {
    SCOPED_TRACE(file.name);
    EXPECT_LE(file.bytes.size(), 512u) << "keep seeds tiny";
    EXPECT_NO_THROW((void)GgufFile::from_memory(file.bytes, file.name));
    std::ifstream in(dir / file.name, std::ios::binary);
    const std::vector<uint8_t> committed{std::istreambuf_iterator<char>(in),
                                         std::istreambuf_iterator<char>()};
    EXPECT_EQ(committed, file.bytes)
        << "tests/gguf/corpus/" << file.name << " is stale or missing; regenerate it with "
        << "`ninja -C <build> gguf_make_corpus && <build>/tests/gguf/gguf_make_corpus "
        << "tests/gguf/corpus`";
  }
}

}  // namespace
}  // namespace pb::gguf
