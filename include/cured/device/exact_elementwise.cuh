#pragma once
// The kernels of the elementwise exact sum across ranks (cured::nccl::exact_all_reduce): each
// element's terms (every rank's rows) as integers on a scale shared by all ranks, so that an
// integer reduce-scatter adds them exactly, and each element rounded once where its sum is
// decided.
//
//   exponents_kernel     this rank's largest exponent per block of elements, and whether the
//                        block holds a NaN or an infinity; a max all-reduce makes them every
//                        rank's (with the call's header, which tells the ranks' calls apart)
//   encode_kernel        each element's terms truncated to integers in units of 2^L, L fixed by
//                        the block's exponent, summed over the rank's rows, packed with two
//                        counts: the terms that lost bits, and those other than -0
//   (reduce-scatter, integer sum: each rank gets a chunk of elements, summed over the ranks)
//   round_kernel         the chunk rounded: exact when no term lost bits, else decided when both
//                        ends of the interval the lost bits allow round alike; undecided
//                        elements (and those of blocks with NaN or infinities) are written as
//                        NaN and counted, for the exact pass (segmented exact sums) to finish
//
// Packing, for c = ranks * (most rows of a rank) terms an element and h = bit_width(c): the
// value sum(q) * 2^(2h) + (terms other than -0) * 2^h + (terms that lost bits), as one int64
// (Limbs 1: q below 2^(62 - 3h)) or as two (Limbs 2: q below 2^(124 - 4h)), the low limb a digit
// below 2^(63 - h) and the high limb the rest, so that the ranks' limbs add without overflow.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace cured::device::elementwise {

/// The elements' blocks sharing one scale: at most this many per call.
constexpr int max_blocks = 8192;
/// The record: its header, then each block's exponent, then each block's special flag.
enum header_word { tag_max, tag_min, m_low_max, m_low_min, m_high_max, m_high_min, rows_max, header_words };
/// A block's biased exponent: ilogb(|x|) + bias over its nonzero finite terms (0: none).
constexpr int exponent_bias = 1200;

using wide = __int128;
using uwide = unsigned __int128;

template <class T>
__device__ __forceinline__ double as_double(T x) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
    return double(float(x));
  else
    return double(x);
}

__device__ __forceinline__ int warp_max(int v) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v = ::max(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}

/// record[header]: the call's header; the blocks' exponents and special flags, maxima of the
/// rank's terms. Threads cover the elements in whole warps, and a block's length is a multiple
/// of 32, so each warp lies in one block.
template <class T>
__global__ void exponents_kernel(const T* in, std::int64_t rows, std::int64_t row_stride, std::int64_t m,
                                 std::int64_t block_len, std::int32_t* record, std::int32_t tag, std::int64_t mm,
                                 std::int32_t rows_here) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    record[tag_max] = tag;
    record[tag_min] = -tag;
    record[m_low_max] = std::int32_t(mm & 0x3fffffff);
    record[m_low_min] = -std::int32_t(mm & 0x3fffffff);
    record[m_high_max] = std::int32_t(mm >> 30);
    record[m_high_min] = -std::int32_t(mm >> 30);
    record[rows_max] = rows_here;
  }
  const std::int64_t end = (m + 31) / 32 * 32;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < end; i += stride) {
    int e = 0;
    bool special = false;
    if (i < m)
      for (std::int64_t j = 0; j < rows; ++j) {
        const double d = as_double(in[j * row_stride + i]);
        if (!isfinite(d))
          special = true;
        else if (d != 0)
          e = ::max(e, ilogb(d) + exponent_bias);
      }
    e = warp_max(e);
    const bool any_special = __any_sync(0xffffffffu, special);
    if (threadIdx.x % 32 == 0) {
      const std::int64_t b = i / block_len;
      if (e > 0) atomicMax(record + header_words + b, e);
      if (any_special) atomicMax(record + header_words + max_blocks + b, 1);
    }
  }
}

/// The scale of block b: its terms are integers times 2^L.
__device__ __forceinline__ int scale_of(const std::int32_t* record, std::int64_t b, int pq) {
  const int e = record[header_words + b];
  return e == 0 ? 0 : e - exponent_bias + 1 - pq;
}

/// An integer-valued double as a wide integer.
__device__ __forceinline__ wide to_wide(double t) {
  if (fabs(t) < 4.0e18) return wide(static_cast<long long>(t));
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(t));
  const int shift = int((bits >> 52) & 0x7ff) - 1075;  // >= 9 here: t is an integer >= 2^61
  const wide w = wide((bits & ((1ull << 52) - 1)) | (1ull << 52)) << shift;
  return (bits >> 63) ? -w : w;
}

/// v[i * Limbs ...] = element i's packed terms, for i in [0, padded) (zero past m); with `keep`,
/// also keep[i] = in[i] (an in-place call's input, for the exact pass).
template <class T, int Limbs>
__global__ void encode_kernel(const T* in, std::int64_t rows, std::int64_t row_stride, std::int64_t m,
                              std::int64_t padded, std::int64_t block_len, const std::int32_t* record, int h, int pq,
                              std::int64_t* v, T* keep) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < padded; i += stride) {
    wide sum = 0;
    std::int64_t lost = 0, nonnegative = 0;
    if (i < m) {
      const int L = scale_of(record, i / block_len, pq);
      for (std::int64_t j = 0; j < rows; ++j) {
        const T x = in[j * row_stride + i];
        if (keep) keep[i] = x;
        const double d = as_double(x);
        if (d == 0) {
          nonnegative += !signbit(d);
        } else if (isfinite(d)) {  // a block with a NaN or an infinity goes to the exact pass
          ++nonnegative;
          const double s = ldexp(d, -L), t = trunc(s);
          lost += t != s || t == 0;  // (t == 0: below the unit, or lost to underflow in ldexp)
          sum += to_wide(t);
        }
      }
    }
    const wide packed = wide(uwide(sum) << (2 * h)) + (wide(nonnegative) << h) + lost;
    if constexpr (Limbs == 1) {
      v[i] = std::int64_t(packed);
    } else {
      const int digit = 63 - h;
      v[2 * i] = std::int64_t(packed & ((wide(1) << digit) - 1));
      v[2 * i + 1] = std::int64_t(packed >> digit);
    }
  }
}

/// s * 2^L rounded to nearest-even as R (float or double): subnormals exact, beyond the largest
/// finite value inf; zero is -0 when minus_zero.
template <class R>
__device__ __forceinline__ R round_scaled(wide s, int L, bool minus_zero) {
  if (s == 0) return minus_zero ? R(-0.0) : R(0.0);
  const bool negative = s < 0;
  const uwide a = negative ? uwide(0) - uwide(s) : uwide(s);
  constexpr int p = std::numeric_limits<R>::digits;
  constexpr int min_lsb = std::numeric_limits<R>::min_exponent - p;  // float -149, double -1074
  const auto high = static_cast<unsigned long long>(a >> 64), low = static_cast<unsigned long long>(a);
  const int bits = high ? 128 - __clzll(static_cast<long long>(high)) : 64 - __clzll(static_cast<long long>(low));
  const int lsb = ::max(L + bits - p, min_lsb);
  const int shift = lsb - L;
  unsigned long long mantissa;
  int exponent = lsb;
  if (shift <= 0) {
    mantissa = low;  // below 2^p: exact
    exponent = L;
  } else if (shift > bits) {
    mantissa = 0;  // below half the smallest subnormal
  } else {
    const uwide kept = a >> shift, rest = a - (kept << shift), half = uwide(1) << (shift - 1);
    mantissa = static_cast<unsigned long long>(kept);
    if (rest > half || (rest == half && (mantissa & 1))) ++mantissa;
  }
  const double r = ldexp(double(mantissa), exponent);  // exact, or inf beyond R's range
  return R(negative ? -r : r);
}

/// The chunk [first, first + count) of the elements rounded into out[0, count) (zero past m);
/// undecided elements are NaN, counted in *undecided.
template <class R, int Limbs>
__global__ void round_kernel(const std::int64_t* v, std::int64_t count, std::int64_t first, std::int64_t m,
                             std::int64_t block_len, const std::int32_t* record, int h, int pq, bool any_terms,
                             R* out, unsigned long long* undecided) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t end = (count + 31) / 32 * 32;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < end; i += stride) {
    bool open = false;
    if (i < count) {
      const std::int64_t g = first + i;
      R r = R(0);
      if (g < m) {
        wide packed;
        if constexpr (Limbs == 1)
          packed = v[i];
        else
          packed = wide(uwide(wide(v[2 * i + 1])) << (63 - h)) + wide(v[2 * i]);
        const wide mask = (wide(1) << h) - 1;
        const auto lost = std::int64_t(packed & mask), nonnegative = std::int64_t((packed >> h) & mask);
        const wide sum = packed >> (2 * h);
        const std::int64_t b = g / block_len;
        const int L = scale_of(record, b, pq);
        if (record[header_words + max_blocks + b] != 0) {
          open = true;
        } else if (lost == 0) {
          r = round_scaled<R>(sum, L, nonnegative == 0 && any_terms);
        } else {
          const R low = round_scaled<R>(sum - lost, L, false), high = round_scaled<R>(sum + lost, L, false);
          if (low == high && signbit(low) == signbit(high))
            r = low;
          else
            open = true;
        }
        if (open) r = std::numeric_limits<R>::quiet_NaN();
      }
      out[i] = r;
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, open);
    if (threadIdx.x % 32 == 0 && ballot) atomicAdd(undecided, static_cast<unsigned long long>(__popc(ballot)));
  }
}

/// Whether out[i] is an undecided element (NaN: no decided element is).
template <class R>
struct undecided_at {
  const R* out;
  __device__ bool operator()(std::int64_t i) const { return isnan(out[i]); }
};

/// The exact pass's terms: this rank's rows of the undecided elements, as G (float or double:
/// the segmented exact sum's input), row j of element u at terms[u * rows_max + j]; rows this
/// rank lacks are -0 (which changes no sum).
template <class T, class G>
__global__ void gather_kernel(const T* in, std::int64_t rows, std::int64_t row_stride, const std::int64_t* index,
                              std::int64_t count, std::int64_t rows_max, G* terms) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x, total = count * rows_max;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const std::int64_t u = k / rows_max, j = k % rows_max;
    const std::int64_t i = index ? index[u] : u;
    terms[k] = j < rows ? G(as_double(in[j * row_stride + i])) : G(-0.0);
  }
}

/// gathered[r][u][j] (every rank's gather_kernel output, in rank order) into segments:
/// segment u = terms[u * ranks * rows_max, ...); offsets[u] = u * ranks * rows_max.
template <class G>
__global__ void transpose_kernel(const G* gathered, std::int64_t ranks, std::int64_t count, std::int64_t rows_max,
                                 G* terms, std::int64_t* offsets) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x, per = count * rows_max;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < ranks * per; k += stride) {
    const std::int64_t r = k / per, u = (k % per) / rows_max, j = k % rows_max;
    terms[(u * ranks + r) * rows_max + j] = gathered[k];
    if (k < count) offsets[k] = k * ranks * rows_max;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) offsets[count] = count * ranks * rows_max;
}

/// out[index[u]] = sums[u].
template <class R>
__global__ void scatter_kernel(const R* sums, const std::int64_t* index, std::int64_t count, R* out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t u = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < count; u += stride)
    out[index ? index[u] : u] = sums[u];
}

}  // namespace cured::device::elementwise
