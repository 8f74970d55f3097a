// log and exp from +, -, *, / and exact IEEE operations only, so that simulations and seeded
// draws give the same bits on every platform.
//
// Why: the C library's log/exp are not required to be correctly rounded, and glibc, musl,
// macOS and MSVC differ in the last bit for some inputs. A lognormal draw that goes through
// std::exp would then differ between hosts, and a seeded simulation would not reproduce.
// Method: argument reduction by frexp/ldexp (exact) and a fixed polynomial (atanh series for log,
// Taylor series for exp) evaluated in a fixed order; pb_stats is compiled with
// -ffp-contract=off, so no multiply-add is fused behind our back.
// Limits: accurate to a few ulp (not correctly rounded), slower than libm; use libm where
// reproducibility across hosts does not matter.
#pragma once

namespace pb::stats {

// Natural logarithm. x == 0 → -inf; x < 0 or NaN → NaN; +inf → +inf.
double portable_log(double x);

// e^x. Overflows to +inf above ~709.78, underflows to 0 below ~-745.13; NaN → NaN.
double portable_exp(double x);

}  // namespace pb::stats
