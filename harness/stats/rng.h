// Seeded pseudo-random numbers for the bootstrap and for simulations of the A/B gate.
//
// Why not <random>: the engines are specified, but the distributions (uniform_int_distribution,
// normal_distribution, ...) are not, so libstdc++, libc++ and MSVC draw different numbers from the
// same seed. A gate verdict or a simulation that depends on the standard library would not be
// reproducible across hosts. Here every step is spelled out:
//   - seeding: splitmix64 expands the 64-bit seed into the 256-bit state (Vigna's recommendation);
//   - generator: xoshiro256** 1.0 (Blackman & Vigna), period 2^256 - 1, passes BigCrush;
//   - uniform_int(n): Lemire's multiply-shift with rejection, exactly unbiased;
//   - uniform01(): the top 53 bits scaled by 2^-53, in [0, 1);
//   - normal(): Marsaglia's polar method with a log of our own (see portable_math.h).
// The integer and uniform streams are bit-identical on every platform. normal() and lognormal()
// are identical wherever doubles are IEEE-754 binary64; their arithmetic lives in rng.cpp, which
// is compiled with -ffp-contract=off so that no compiler fuses multiply-adds differently.
//
// Not for cryptography. One Rng per thread; it is a small value type and cheap to copy.
#pragma once

#include <cstdint>

namespace pb::stats {

namespace detail {
__extension__ typedef unsigned __int128 u128;  // GCC and Clang; Lemire's 64x64 → 128 multiply
}  // namespace detail

// splitmix64 (Steele, Lea & Flood; Vigna's public-domain code): one step of a 64-bit counter
// through a bijective mixer. Used to seed; also a decent stand-alone hash of a 64-bit value.
constexpr uint64_t splitmix64(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit constexpr Rng(uint64_t seed) {
    uint64_t sm = seed;
    for (auto& word : s_) word = splitmix64(sm);
  }

  // Next 64 raw bits (xoshiro256**).
  constexpr uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (Lemire 2019, "Fast random integer
  // generation in an interval"). n == 0 returns 0.
  constexpr uint64_t uniform_int(uint64_t n) {
    if (n == 0) return 0;
    detail::u128 m = static_cast<detail::u128>(next_u64()) * n;
    auto low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
      while (low < threshold) {
        m = static_cast<detail::u128>(next_u64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) on the 2^-53 grid.
  constexpr double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform double in [a, b).
  constexpr double uniform(double a, double b) { return a + (b - a) * uniform01(); }

  // Standard normal draw (Marsaglia polar method; values come in pairs, the second is cached).
  double normal();

  // Normal draw with the given mean and standard deviation.
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

  // exp(N(mu, sigma^2)): median exp(mu). For a coefficient of variation cv, use
  // sigma = lognormal_sigma_for_cv(cv).
  double lognormal(double mu, double sigma);

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4]{};
  double cached_normal_ = 0.0;
  bool has_cached_normal_ = false;
};

// sigma of a lognormal whose coefficient of variation (stddev / mean) is cv:
// sqrt(log(1 + cv^2)). Throws std::invalid_argument for cv < 0 or not finite.
double lognormal_sigma_for_cv(double cv);

}  // namespace pb::stats
