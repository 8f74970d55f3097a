// The counter-based hash behind synthetic weights: a copy of engine/quant/synth_hash.h, which
// documents it. 32-bit unsigned integer operations only, so the bytes match the CPU exactly.
#ifndef PB_SYNTH_HASH_GLSL
#define PB_SYNTH_HASH_GLSL

uint synth_mix(uint x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

uint synth_key(uint seed, uint tensor_id) { return synth_mix(synth_mix(seed ^ 0x5EED5EEDu) ^ tensor_id); }

uint synth_block_state(uint key, uint block) { return synth_mix(synth_mix(block + 0x2545F491u) ^ key); }

uint synth_word(uint state, uint i) { return synth_mix(state + i * 0x9E3779B9u); }

#endif
