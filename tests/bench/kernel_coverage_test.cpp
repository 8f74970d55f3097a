// Every kernel compiled into phasebench has a benchmark in phasebench-kernels (or a stated
// reason it has none), and the benchmarks of the model families beyond the dense transformer
// (the mixture of experts, Gated DeltaNet) run, count what they claim and are validation-clean.
// A kernel added without deciding how it is measured fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/quant/weight_format.h"
#include "kernels/registry.h"
#include "tests/support/shell_command.h"

namespace {

using Result = pb::test::CommandResult;

Result run(const std::string& args, const char* stderr_to = "2>&1") {
  return pb::test::run_command(std::string(PHASEBENCH_KERNELS_BINARY) + " " + args + " " + stderr_to);
}

// The benchmark (a name prefix) that times each kernel. Kernels that need the device's
// cooperative matrices have their benchmarks registered only where the device has them.
struct Coverage {
  const char* kernel;
  const char* benchmark;
  bool needs_coopmat = false;
  bool needs_int8_matrix = false;  // the device's int8 16 x 8 x 32 matrices (dmmv_int8mat_supported)
};

const Coverage kCoverage[] = {
    {"add", "add/"},
    {"argmax", "argmax/"},
    {"argmax_slices", "argmax_slices/"},
    {"attn_decode", "attn_decode/"},
    {"attn_decode_rope", "attn_decode_rope/"},
    {"attn_merge", "attn_decode/"},  // the long contexts' splits
    {"attn_decode_quantize", "attn_decode_quantize/"},
    {"attn_decode_rope_quantize", "attn_decode_rope_quantize/"},
    {"attn_merge_quantize", "attn_decode_rope_quantize/"},
    {"attn_decode_quantize_gated", "attn_decode_quantize_gated/"},
    {"attn_decode_rope_quantize_gated", "attn_decode_rope_quantize_gated/"},
    {"attn_merge_quantize_gated", "attn_decode_rope_quantize_gated/"},
    {"attn_prefill", "attn_prefill/"},
    {"dmmv_f16", "dmmv/f16/"},
    {"dmmv_q8_0", "dmmv/q8_0/"},
    {"dmmv_q4_k", "dmmv/q4_k/"},
    {"dmmv_q6_k", "dmmv/q6_k/"},
    {"quantize_x", "dmmv_intdot/q4_k/quantize_dmmv/"},
    {"dmmv_intdot_q8_0", "dmmv_intdot/q8_0/dmmv/"},
    {"dmmv_intdot_q8_032", "dmmv_intdot/q8_0/dmmv/"},  // /chunk:32
    {"dmmv_intdot_q8_0_rms", "dmmv_intdot/q8_0/rms/"},
    {"dmmv_intdot_q8_0_norm", "dmmv_intdot/q8_0/norm/"},
    {"dmmv_intdot_q8_0_glu", "dmmv_intdot/q8_0/glu/"},
    {"dmmv_intdot_q8_0_gated", "dmmv_intdot/q8_0/gated/"},
    {"dmmv_intdot_q4_k", "dmmv_intdot/q4_k/dmmv/"},
    {"dmmv_intdot_q4_k16", "dmmv_intdot/q4_k/dmmv/"},  // /chunk:16
    {"dmmv_intdot_q4_k32", "dmmv_intdot/q4_k/dmmv/"},  // /chunk:32
    {"dmmv_intdot_q4_k_rms", "dmmv_intdot/q4_k/rms/"},
    {"dmmv_intdot_q4_k_norm", "dmmv_intdot/q4_k/norm/"},
    {"dmmv_intdot_q4_k_glu", "dmmv_intdot/q4_k/glu/"},
    {"dmmv_intdot_q4_k_gated", "dmmv_intdot/q4_k/gated/"},
    {"dmmv_intdot_q6_k", "dmmv_intdot/q6_k/dmmv/"},
    {"dmmv_intdot_q6_k_rms", "dmmv_intdot/q6_k/rms/"},
    {"dmmv_intdot_q6_k_norm", "dmmv_intdot/q6_k/norm/"},
    {"dmmv_intdot_q6_k_glu", "dmmv_intdot/q6_k/glu/"},
    {"dmmv_intdot_q6_k_gated", "dmmv_intdot/q6_k/gated/"},
    {"dmmv_coopmat_q8_0", "dmmv_coopmat_tuning/q8_0/", true},
    {"dmmv_coopmat_q4_k", "dmmv_coopmat_tuning/q4_k/", true},
    {"dmmv_int8mat_q8_0", "dmmv_int8mat_tuning/q8_0/", true, true},
    {"dmmv_int8mat_q4_k", "dmmv_int8mat_tuning/q4_k/", true, true},
    {"dmmv_int8mat_q8_0_split", "dmmv_int8mat_tuning/q8_0/ffn_down:", true, true},
    {"dmmv_int8mat_q4_k_split", "dmmv_int8mat_tuning/q4_k/ffn_down:", true, true},
    {"embed", "embed/"},
    {"embed_norm", "embed_norm/"},
    {"fill_zero", "dispatch_floor/fill_zero"},
    {"glu", "glu/"},
    {"glu_quantize", "glu_quantize/"},
    {"kv_write", "kv_write/"},
    {"matmul_f16", "matmul/f16/scalar/"},
    {"matmul_q8_0", "matmul/q8_0/scalar/"},
    {"matmul_q4_k", "matmul/q4_k/scalar/"},
    {"matmul_q6_k", "matmul/q6_k/scalar/"},
    {"matmul_coopmat_f16", "matmul/f16/coopmat/", true},
    {"matmul_coopmat_q8_0", "matmul/q8_0/coopmat/", true},
    {"matmul_coopmat_q4_k", "matmul/q4_k/coopmat/", true},
    {"matmul_coopmat_q6_k", "matmul/q6_k/coopmat/", true},
    // K split across workgroups where the tiles are few, as at 32 tokens, then the reduction
    {"matmul_coopmat_f16_split", "matmul/f16/coopmat/", true},
    {"matmul_coopmat_q8_0_split", "matmul/q8_0/coopmat/", true},
    {"matmul_coopmat_q4_k_split", "matmul/q4_k/coopmat/", true},
    {"matmul_coopmat_q6_k_split", "matmul/q6_k/coopmat/", true},
    {"matmul_split_reduce", "matmul/q4_k/coopmat/", true},
    {"matmul_split_reduce_glu", "matmul_split_reduce_glu/"},
    {"matmul_split_reduce_gated", "matmul_split_reduce_gated/"},
    {"moe_topk", "moe_topk/"},
    {"moe_group", "moe_group/"},
    {"moe_topk_group", "moe_topk_group/"},
    {"moe_topk_chunk_group", "moe_topk_chunk_group/"},
    {"moe_dmmv_f16", "moe_dmmv/f16/"},
    {"moe_dmmv_q8_0", "moe_dmmv/q8_0/"},
    {"moe_dmmv_q4_k", "moe_dmmv/q4_k/"},
    {"moe_dmmv_q6_k", "moe_dmmv/q6_k/"},
    {"moe_dmmv_intdot_q8_0", "moe_dmmv_intdot/q8_0/"},
    {"moe_dmmv_intdot_q4_k", "moe_dmmv_intdot/q4_k/"},
    {"moe_dmmv_intdot_q8_0_glu", "moe_dmmv_intdot_glu/q8_0/"},
    {"moe_dmmv_intdot_q4_k_glu", "moe_dmmv_intdot_glu/q4_k/"},
    {"moe_dmmv_intdot_q6_k", "moe_dmmv_intdot/q6_k/"},
    {"moe_dmmv_intdot_q6_k_glu", "moe_dmmv_intdot_glu/q6_k/"},
    {"moe_dmmv_intdot_q8_0_acc_norm", "moe_dmmv_intdot_acc_norm/q8_0/"},
    {"moe_dmmv_intdot_q4_k_acc_norm", "moe_dmmv_intdot_acc_norm/q4_k/"},
    {"moe_dmmv_intdot_q6_k_acc_norm", "moe_dmmv_intdot_acc_norm/q6_k/"},
    {"moe_matmul_f16", "moe_matmul/f16/scalar/"},
    {"moe_matmul_q8_0", "moe_matmul/q8_0/scalar/"},
    {"moe_matmul_q4_k", "moe_matmul/q4_k/scalar/"},
    {"moe_matmul_q6_k", "moe_matmul/q6_k/scalar/"},
    {"moe_matmul_coopmat_f16", "moe_matmul/f16/coopmat/", true},
    {"moe_matmul_coopmat_q8_0", "moe_matmul/q8_0/coopmat/", true},
    {"moe_matmul_coopmat_q4_k", "moe_matmul/q4_k/coopmat/", true},
    {"moe_matmul_coopmat_q6_k", "moe_matmul/q6_k/coopmat/", true},
    {"moe_acc", "moe_acc/"},
    {"moe_acc_norm", "moe_acc_norm/"},
    {"qk_norm_rope", "qk_norm_rope/"},
    {"qk_norm_rope_kv", "qk_norm_rope_kv/"},
    {"read_floor", "read_floor/"},
    {"rmsnorm", "rmsnorm/"},
    {"rmsnorm_quantize", "rmsnorm_quantize/"},
    {"sigmoid_mul", "sigmoid_mul/"},
    {"ssm_conv", "ssm_conv/"},
    {"ssm_delta", "ssm_delta/"},
    {"ssm_conv_delta", "ssm_conv_delta/"},
    {"ssm_conv_delta_gnorm", "ssm_conv_delta_gnorm/"},
    {"ssm_gnorm", "ssm_gnorm/"},
    {"ssm_gnorm_quantize", "ssm_gnorm_quantize/"},
};

// Kernels with no benchmark of their own, and why.
const std::set<std::string> kNotBenchmarked = {
    "copy_vec4",        // the copy-bandwidth probe: the roofline every benchmark is divided by
    "synth_weights",    // generates the synthetic weights and inputs before anything is timed
    "dequantize_rows",  // the tests' weight checks; no forward pass runs it
    "test_accumulate", "test_affine",  // the harness's own tests
    // F32 weights: the benchmarked formats are those models ship in (F16, Q8_0, Q4_K, Q6_K);
    // F32 runs the same kernels' float path at twice F16's bytes.
    "dmmv_f32", "matmul_f32", "matmul_coopmat_f32", "matmul_coopmat_f32_split", "moe_dmmv_f32",
};

std::vector<std::string> benchmark_names() {
  const Result r = run("--benchmark_list_tests=true", "2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  std::vector<std::string> names;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) names.push_back(line);
  return names;
}

TEST(KernelCoverage, EveryCompiledKernelHasABenchmarkOrAReason) {
  std::set<std::string> covered;
  for (const Coverage& c : kCoverage) covered.insert(c.kernel);
  for (const pb::Kernel* k : pb::all_kernels()) {
    EXPECT_TRUE(covered.contains(k->name) || kNotBenchmarked.contains(k->name))
        << k->name << " has no benchmark in phasebench-kernels: add one (kernels/bench/) and its line here";
  }
}

TEST(KernelCoverage, EachKernelsBenchmarkIsRegistered) {
  const std::vector<std::string> names = benchmark_names();
  ASSERT_FALSE(names.empty());
  // The device's cooperative matrices decide whether those benchmarks exist at all.
  const bool coopmat = std::any_of(names.begin(), names.end(),
                                   [](const std::string& n) { return n.find("/coopmat/") != std::string::npos; });
  // Registered with the kernel's default shape (dmmv_intdot/<fmt>/int8mat/) exactly where its
  // tuning sweep is, so this asks whether that sweep came with it.
  const bool int8_matrix = std::any_of(names.begin(), names.end(),
                                       [](const std::string& n) { return n.find("/int8mat/") != std::string::npos; });
  for (const Coverage& c : kCoverage) {
    if (pb::find_kernel(c.kernel) == nullptr) continue;  // not compiled in (needs a compiler feature)
    if (c.needs_coopmat && !coopmat) continue;
    if (c.needs_int8_matrix && !int8_matrix) continue;
    const bool found = std::any_of(names.begin(), names.end(),
                                   [&](const std::string& n) { return n.starts_with(c.benchmark); });
    EXPECT_TRUE(found) << c.kernel << ": no benchmark named " << c.benchmark << "...";
  }
}

// The expert DMMV's bytes model counts the experts its tokens chose, read back from the routing
// the engine's kernels built, not the whole stacked tensor: one token reads exactly K experts,
// a chunk between K and all E.
TEST(KernelCoverage, ExpertDmmvCountsTheExpertsItsTokensChose) {
  const Result r = run("--benchmark_filter='^moe_dmmv/q8_0/gate:' --benchmark_min_time=0.01 --benchmark_format=json",
                       "2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const std::regex shape("moe_dmmv/q8_0/gate:([0-9]+)x([0-9]+)x([0-9]+)/top:([0-9]+)/tokens:([0-9]+)/");
  size_t seen = 0;
  for (const auto& b : j.at("benchmarks")) {
    const std::string name = b.at("name");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(name, m, shape)) << name;
    const double experts = std::stod(m[1]), rows = std::stod(m[2]), cols = std::stod(m[3]);
    const double k = std::stod(m[4]), tokens = std::stod(m[5]);
    const double expert = double(pb::tensor_bytes(pb::WeightFormat::Q8_0, uint64_t(rows), uint64_t(cols)));
    const double io = 4.0 * cols * tokens + 4.0 * rows * tokens * k;  // x per token, y per assignment
    const double bytes = b.at("GB/s").get<double>() * 1e3 * b.at("real_time").get<double>();
    if (tokens == 1) {
      EXPECT_NEAR(bytes, k * expert + io, 0.01 * bytes) << name;
    } else {
      EXPECT_GE(bytes, 0.99 * (k * expert + io)) << name;
      EXPECT_LE(bytes, 1.01 * (std::min(experts, k * tokens) * expert + io)) << name;
    }
    EXPECT_GE(b.at("copies").get<double>(), 2.0) << name;
    ++seen;
  }
  EXPECT_EQ(seen, 4u) << r.out;  // a decode token and three prefill chunks (32, 64, 128)
}

// The new element-wise and MoE families' counters are their bytes models, taken from the names:
// the residual add reads x and b and writes x (12 bytes an element); the attention output gate
// the same; the MoE accumulation reads C*K outputs of n and their weights and reads and writes
// C residual columns.
TEST(KernelCoverage, ElementwiseAndAccumulationCountersAreTheirBytesModels) {
  const Result r = run("--benchmark_filter='^(add|sigmoid_mul)/n:[0-9]+/cols:1/|^moe_acc/n:[0-9]+/top:[0-9]+/tokens:64/' "
                       "--benchmark_min_time=0.01 --benchmark_format=json",
                       "2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const std::regex elementwise("^(add|sigmoid_mul)/n:([0-9]+)/cols:([0-9]+)/");
  const std::regex acc("^moe_acc/n:([0-9]+)/top:([0-9]+)/tokens:([0-9]+)/");
  size_t seen = 0;
  for (const auto& b : j.at("benchmarks")) {
    const std::string name = b.at("name");
    const double bytes = b.at("GB/s").get<double>() * 1e3 * b.at("real_time").get<double>();
    std::smatch m;
    double expected = 0;
    if (std::regex_search(name, m, elementwise)) {
      expected = 12.0 * std::stod(m[2]) * std::stod(m[3]);
    } else if (std::regex_search(name, m, acc)) {
      const double n = std::stod(m[1]), assignments = std::stod(m[2]) * std::stod(m[3]), tokens = std::stod(m[3]);
      expected = 4.0 * (assignments * n + assignments + 2.0 * n * tokens);
    }
    ASSERT_GT(expected, 0) << name;
    EXPECT_NEAR(bytes, expected, 0.01 * expected) << name;
    ++seen;
  }
  EXPECT_EQ(seen, 3u) << r.out;
}

// One benchmark of each family beyond the dense transformer under the Khronos validation layer
// with synchronization validation (a report fails the run).
TEST(KernelCoverage, MoeAndDeltaNetBenchmarksAreValidationClean) {
  const Result r = run(
      "--validate --benchmark_filter='^(moe_(topk|group|acc|topk_chunk_group)/.*/tokens:64|moe_dmmv/q4_k/down:.*/tokens:64|"
      "ssm_(conv|delta|gnorm)/.*/tokens:1)/' --benchmark_min_time=0.01 --benchmark_format=json",
      "2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  std::set<std::string> families;
  for (const auto& b : j.at("benchmarks")) {
    const std::string name = b.at("name");
    families.insert(name.substr(0, name.find('/')));
    EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>()) << name << ": " << b;
    EXPECT_GT(b.at("GB/s").get<double>(), 0) << name;
  }
  EXPECT_EQ(families, (std::set<std::string>{"moe_topk", "moe_group", "moe_topk_chunk_group", "moe_acc", "moe_dmmv",
                                             "ssm_conv", "ssm_delta", "ssm_gnorm"}))
      << r.out;
}

}  // namespace
