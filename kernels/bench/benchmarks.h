// The benchmark families, each registered programmatically for the device's shape set. The
// names are family/format/variant/shape/size, so --benchmark_filter picks subsets by any part:
//   dmmv/q4_k/spec/ffn_down:4096x14336/num_cols:1
//   matmul/q4_k/coopmat/ffn_up:14336x4096/tokens:512
//   attn_decode/h32kv8d128/ctx:4096, attn_prefill/h32kv8d128/tokens:512
//   rmsnorm/n:4096/cols:1, qk_norm_rope/h32kv8d128/cols:1, glu/n:14336/cols:1,
//   argmax/vocab:151936/cols:1, read_floor/q4_k/ffn_up:14336x4096/threads:256/loads:8
//   moe_dmmv/q4_k/gate:128x768x2048/top:8/tokens:1, moe_topk/e:128/top:8/tokens:1,
//   ssm_delta/hk16hv32dk128dv128/tokens:1
#pragma once

#include "kernels/bench/gpu_benchmark.h"

namespace pb::bench {

void register_dmmv_benchmarks(GpuBenchmarks& benchmarks);
void register_dmmv_intdot_benchmarks(GpuBenchmarks& benchmarks);
void register_matmul_benchmarks(GpuBenchmarks& benchmarks);
void register_attention_benchmarks(GpuBenchmarks& benchmarks);
void register_elementwise_benchmarks(GpuBenchmarks& benchmarks);
void register_embed_benchmarks(GpuBenchmarks& benchmarks);
void register_moe_benchmarks(GpuBenchmarks& benchmarks);
void register_ssm_benchmarks(GpuBenchmarks& benchmarks);
void register_read_floor_benchmarks(GpuBenchmarks& benchmarks);
// After the others: its sequences are made of their benchmarks.
void register_sequence_benchmarks(GpuBenchmarks& benchmarks);

}  // namespace pb::bench
