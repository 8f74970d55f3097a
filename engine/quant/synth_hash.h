// The counter-based hash behind synthetic weights. Only 32-bit unsigned integer operations
// (xor, shift, wrapping multiply and add), so kernels/include/synth_hash.glsl, which must stay
// identical to this file, reproduces every bit on the GPU.
//
//   mix(x)          = Chris Wellons' "lowbias32" integer finalizer
//   key(seed, t)    = mix(mix(seed ^ 0x5EED5EED) ^ t)        one per (seed, tensor)
//   state(key, b)   = mix(mix(b + 0x2545F491) ^ key)          one per block b of the tensor
//   word(state, i)  = mix(state + i * 0x9E3779B9)             the i-th random word of a block
//
// key is a bijection of the tensor id for a fixed seed (and of the seed for a fixed tensor id),
// so two tensors of one model never share a key.
#pragma once

#include <cstdint>

namespace pb::synth {

constexpr uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

constexpr uint32_t key(uint32_t seed, uint32_t tensor_id) {
  return mix(mix(seed ^ 0x5EED5EEDu) ^ tensor_id);
}

constexpr uint32_t block_state(uint32_t key, uint32_t block) {
  return mix(mix(block + 0x2545F491u) ^ key);
}

constexpr uint32_t word(uint32_t state, uint32_t i) { return mix(state + i * 0x9E3779B9u); }

}  // namespace pb::synth
