// The writer and the reader together: every metadata type and several tensors survive a
// write to disk and a read back, at several alignments; the write is atomic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/gguf/gguf_test_util.h"

namespace pb::gguf {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterized test names
    path_ = fs::temp_directory_path() / ("pb_gguf_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
  return v;
}

class RoundTrip : public ::testing::TestWithParam<uint32_t> {};

TEST_P(RoundTrip, EveryValueTypeAndSeveralTensors) {
  const uint32_t alignment = GetParam();
  TempDir dir;
  GgufWriter w(alignment);
  test::add_every_type(w);
  const auto embd = pattern(8 * 3 * 4, 1);
  const auto q8 = pattern(4 * 34, 2);
  const auto norm = pattern(5 * 2, 3);  // 10 bytes: the next tensor needs padding
  const auto q4k = pattern(2 * 144, 4);
  w.add_tensor("token_embd.weight", {8, 3}, GgmlType::F32, embd);
  w.add_tensor("blk.0.attn_q.weight", {64, 2}, GgmlType::Q8_0, q8);
  w.add_tensor("output_norm.weight", {5}, GgmlType::F16, norm);
  w.add_tensor("blk.0.ffn_down.weight", {256, 2}, GgmlType::Q4_K,
               [&](uint64_t offset, std::span<uint8_t> out) {
                 std::copy_n(q4k.begin() + static_cast<ptrdiff_t>(offset), out.size(), out.begin());
               });
  w.add_tensor("empty", {0, 4}, GgmlType::F32, std::span<const uint8_t>{});

  const fs::path path = dir / "model.gguf";
  w.write(path);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  EXPECT_EQ(fs::file_size(path), w.file_size());
  EXPECT_EQ(read_all(path), w.to_bytes());

  const GgufFile f = GgufFile::open(path);
  EXPECT_EQ(f.name(), path.string());
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), alignment);
  EXPECT_EQ(f.data_offset() % alignment, 0u);

  // Metadata: general.alignment comes first when it is not the default, then the rest in order.
  auto md = f.metadata().entries();
  if (alignment != 32) {
    ASSERT_FALSE(md.empty());
    EXPECT_EQ(md[0].key, "general.alignment");
    EXPECT_EQ(md[0].value, GgufValue(alignment));
    md = md.subspan(1);
  } else {
    EXPECT_EQ(f.find("general.alignment"), nullptr);
  }
  ASSERT_EQ(md.size(), w.metadata().size());
  for (size_t i = 0; i < md.size(); ++i) {
    EXPECT_EQ(md[i].key, w.metadata().entries()[i].key);
    EXPECT_EQ(md[i].value, w.metadata().entries()[i].value) << md[i].key;
  }
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_u64("t.u64"), uint64_t{1} << 63);
  EXPECT_EQ(f.get_array<std::string>("a.string")[3], "\xe2\x96\x81the");
  EXPECT_EQ(f.get_array<bool>("a.bool"), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(f.get_string("t.string").size(), 12u);

  // Tensors, in file order and by name, with their bytes in the mapping.
  ASSERT_EQ(f.tensors().size(), 5u);
  const std::vector<std::vector<uint8_t>> want = {embd, q8, norm, q4k, {}};
  for (const GgufTensorInfo& t : f.tensors()) {
    EXPECT_EQ(f.find_tensor(t.name), &t);
    EXPECT_EQ(t.offset % alignment, 0u) << t.name;
    EXPECT_EQ(t.file_offset, f.data_offset() + t.offset);
    const auto data = f.tensor_data(t);
    EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), want[t.index]) << t.name;
  }
  const GgufTensorInfo& q = f.tensor("blk.0.attn_q.weight");
  EXPECT_EQ(q.dims, (std::vector<uint64_t>{64, 2}));
  EXPECT_EQ(q.ggml_type, 8u);
  EXPECT_EQ(q.type_name(), "Q8_0");
  EXPECT_EQ(q.element_count, 128u);
  EXPECT_EQ(q.byte_size, 136u);
  // Data pointers share the file's alignment (the mapping is page-aligned).
  const uint8_t* base = f.tensor_data(f.tensors()[0]).data() - f.tensors()[0].file_offset;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(base) % 4096, 0u);
}

INSTANTIATE_TEST_SUITE_P(Alignments, RoundTrip, ::testing::Values(32u, 64u, 8u, 1u, 4096u));

// Found by fuzz_gguf: a tensor-less file that names a 2^31 alignment. Its reader accepts it
// (gguf-py writes vocab-only files without the padding), and a rewrite that padded its head to
// the alignment asked for 2 GiB. Without tensors there is nothing to align, so none is written.
TEST(GgufWriter, PadsOnlyWhereDataFollowsAndInBoundedBlocks) {
  for (const uint32_t alignment : {32u, 4096u, 1u << 31}) {
    GgufWriter w(alignment);
    w.add("general.name", std::string("vocab only"));
    const std::vector<uint8_t> bytes = w.to_bytes();
    EXPECT_LT(bytes.size(), 128u) << alignment;
    EXPECT_EQ(w.file_size(), bytes.size()) << alignment;
    const GgufFile f = GgufFile::from_memory(bytes, "tensorless");
    EXPECT_EQ(f.alignment(), alignment);
    EXPECT_TRUE(f.tensors().empty());
    GgufWriter again(f.alignment());
    again.add("general.name", std::string("vocab only"));
    EXPECT_EQ(again.to_bytes(), bytes) << alignment;
  }
  // With tensors the head and each tensor are padded, here by more than the writer's 4 MiB
  // block of zeros at a time.
  const uint32_t alignment = 8u << 20;
  GgufWriter w(alignment);
  w.add_tensor("a", {8}, GgmlType::F32, pattern(32, 1));
  w.add_tensor("b", {8}, GgmlType::F32, pattern(32, 2));
  const std::vector<uint8_t> bytes = w.to_bytes();
  EXPECT_EQ(bytes.size(), 3u * alignment);
  EXPECT_EQ(w.file_size(), bytes.size());
  const GgufFile f = GgufFile::from_memory(bytes, "two tensors");
  EXPECT_EQ(f.data_offset(), alignment);
  EXPECT_EQ(f.tensor("b").file_offset, 2u * alignment);
  const auto b = f.tensor_data(f.tensor("b"));
  EXPECT_TRUE(std::equal(b.begin(), b.end(), pattern(32, 2).begin()));
  EXPECT_TRUE(std::all_of(bytes.begin() + alignment + 32, bytes.begin() + 2 * alignment,
                          [](uint8_t x) { return x == 0; }));
}

TEST(GgufWriter, StreamsLargeTensorsInChunks) {
  TempDir dir;
  GgufWriter w;
  const uint64_t elements = (uint64_t{9} << 20) / 4 + 3;  // 9 MiB + 12 bytes of F32: 3 chunks
  std::vector<std::pair<uint64_t, size_t>> calls;
  w.add_tensor("big", {elements}, GgmlType::F32, [&](uint64_t offset, std::span<uint8_t> out) {
    calls.emplace_back(offset, out.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>((offset + i) % 251);
  });
  w.write(dir / "big.gguf");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].first, 0u);
  EXPECT_EQ(calls[1].first, calls[0].second);
  EXPECT_EQ(calls[2].first + calls[2].second, elements * 4);

  const GgufFile f = GgufFile::open(dir / "big.gguf");
  const auto data = f.tensor_data(f.tensor("big"));
  ASSERT_EQ(data.size(), elements * 4);
  for (size_t i = 0; i < data.size(); i += 4093) ASSERT_EQ(data[i], i % 251) << i;
  EXPECT_EQ(data.back(), (data.size() - 1) % 251);
}

TEST(GgufWriter, WriteIsAtomic) {
  TempDir dir;
  const fs::path path = dir / "model.gguf";
  GgufWriter first;
  first.add("version", uint32_t{1});
  first.write(path);
  const auto before = read_all(path);

  // A producer that fails midway: the exception propagates, the old file stays as it was,
  // and no temporary is left behind.
  GgufWriter failing;
  failing.add("version", uint32_t{2});
  failing.add_tensor("t", {1024}, GgmlType::F32,
                     [](uint64_t, std::span<uint8_t>) { throw std::runtime_error("no data"); });
  EXPECT_THROW(failing.write(path), std::runtime_error);
  EXPECT_EQ(read_all(path), before);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));

  GgufWriter second;
  second.add("version", uint32_t{2});
  second.write(path);  // replaces the file
  EXPECT_EQ(GgufFile::open(path).get_u32("version"), 2u);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));

  EXPECT_THROW(second.write(dir / "no_such_dir" / "x.gguf"), std::system_error);
}

template <class F>
std::string writer_error(F&& f) {
  try {
    f();
  } catch (const GgufError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GgufWriter, RejectsWhatAReaderWouldReject) {
  GgufWriter w;
  w.add("k", uint32_t{1});
  EXPECT_EQ(writer_error([&] { w.add("k", uint32_t{2}); }),
            "GGUF writer: metadata key \"k\": duplicate key");
  EXPECT_NE(writer_error([&] {
              w.add("general.alignment", uint32_t{64});
            }).find("set the alignment through the GgufWriter constructor"),
            std::string::npos);
  GgufArray deep(std::vector<uint8_t>{1});
  for (int i = 0; i < 8; ++i) deep = GgufArray(std::vector<GgufArray>{deep});  // 9 levels
  EXPECT_NE(writer_error([&] { w.add("deep", deep); }).find("nested more than 8 levels"),
            std::string::npos);

  const std::vector<uint8_t> bytes(34);
  w.add_tensor("t", {32}, GgmlType::Q8_0, bytes);
  EXPECT_EQ(writer_error([&] { w.add_tensor("t", {32}, GgmlType::Q8_0, bytes); }),
            "GGUF writer: tensor \"t\": duplicate tensor name");
  EXPECT_EQ(writer_error([&] { w.add_tensor("u", {64}, GgmlType::Q8_0, bytes); }),
            "GGUF writer: tensor \"u\": expected 68 bytes of Q8_0 data for its shape, got 34");
  EXPECT_EQ(writer_error([&] { w.add_tensor("v", {100}, GgmlType::Q4_K, bytes); }),
            "GGUF writer: tensor \"v\": row length ne0 = 100 is not a multiple of the Q4_K "
            "block size 256");
  EXPECT_EQ(writer_error([&] {
              w.add_tensor("w", {1, 1, 1, 1, 1, 1, 1, 1, 1}, GgmlType::F32, bytes);
            }),
            "GGUF writer: tensor \"w\": 9 dimensions; at most 8");
  EXPECT_EQ(writer_error([&] { w.add_tensor("x", {1}, static_cast<GgmlType>(99), bytes); }),
            "GGUF writer: tensor \"x\": unknown ggml type 99");
  EXPECT_EQ(w.tensor_count(), 1u);  // the rejected ones were not added
  EXPECT_EQ(writer_error([] { GgufWriter bad(48); }),
            "GGUF writer: alignment: alignment must be a non-zero power of two, found 48");
  EXPECT_NE(writer_error([] { GgufWriter bad(0); }).find("found 0"), std::string::npos);
}

TEST(GgufFile, OpenErrorsNameThePath) {
  TempDir dir;
  const fs::path missing = dir / "missing.gguf";
  try {
    (void)GgufFile::open(missing);
    FAIL() << "opened a missing file";
  } catch (const GgufError& e) {
    EXPECT_EQ(std::string(e.what()),
              missing.string() + ": file: cannot open: No such file or directory");
  }
  EXPECT_THROW((void)GgufFile::open(dir.path()), GgufError);  // a directory
  const fs::path empty = dir / "empty.gguf";
  std::ofstream(empty).close();
  try {
    (void)GgufFile::open(empty);
    FAIL() << "opened an empty file";
  } catch (const GgufError& e) {
    EXPECT_NE(std::string(e.what()).find("header, at byte 0: file is truncated: magic needs 4"),
              std::string::npos)
        << e.what();
  }
}

TEST(GgufFile, TensorLookupErrors) {
  GgufWriter w;
  w.add_tensor("a", {4}, GgmlType::F32, std::vector<uint8_t>(16));
  GgufFile f = test::parse_copy(w.to_bytes());
  EXPECT_EQ(f.find_tensor("b"), nullptr);
  EXPECT_THROW((void)f.tensor("b"), GgufError);
  GgufTensorInfo foreign = f.tensors()[0];
  foreign.name = "other";
  EXPECT_THROW((void)f.tensor_data(foreign), GgufError);
  // The file stays usable after a move (the bytes do not move).
  const GgufFile moved = std::move(f);
  EXPECT_EQ(moved.tensor_data(moved.tensor("a")).size(), 16u);
}

}  // namespace
}  // namespace pb::gguf
