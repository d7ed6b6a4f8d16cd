#pragma once
// The kernels' tuning, one policy per launch. Beside each value: why, the figure, where it was
// measured (H200; the evidence under the named headings of docs/PERF.md). Other GPUs take the
// same values; what differs between them (SMs, L2 size, warps per SM, the blocks a kernel keeps
// resident) is read from the device at run time (workspace, detail/launch.cuh).

#include <cstddef>
#include <cstdint>

namespace cured::detail {

/// The L2 policy of the loads (thread/load.cuh, l2_policy).
struct load_policy {
  /// Inputs of at most this many L2 sizes are read with evict_first priority: read once, they
  /// displace each other rather than the L2's other lines. Larger inputs are read with
  /// evict_unchanged, which measures as plain loads; evict_first is slower than plain loads from
  /// 8 L2 sizes up on the H200 (PERF.md#the-l2-policy-of-the-loads).
  static constexpr std::int64_t stream_first_limit = 4;
};

/// Whether inputs of `bytes` are read with evict_first on a device of `l2_bytes` of L2.
inline bool stream_first(double bytes, std::size_t l2_bytes) {
  return bytes <= double(load_policy::stream_first_limit) * double(l2_bytes);
}

/// single_pass_kernel beyond one small block.
struct single_pass_policy {
  /// One block per SM: as many loads in flight as eight blocks of 256, a grid 8x smaller, and one
  /// block covers 64 KiB without a hand-over (2^13/2^14 floats 5.5/5.9 -> 4.4/4.7 us;
  /// PERF.md#one-block-of-1024-threads-per-multiprocessor).
  static constexpr unsigned block = 1024;
  /// 16-byte loads in flight per thread: 64 KiB per SM (PERF.md#one-block-of-1024-threads-per-multiprocessor).
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 1;
};

/// small_kernel: inputs one round of its loads covers (16 KiB).
struct small_policy {
  /// 256 threads start and finish sooner than 1024 (0.1-0.2 us at 2^10..2^12
  /// floats; PERF.md#small_kernel-for-inputs-of-16-kib-and-less).
  static constexpr unsigned block = 256;
  static constexpr int unroll = 4;
};

/// arg_kernel (argmin, argmax).
struct arg_policy {
  static constexpr unsigned block = 256;
  static constexpr int unroll = 4;
  /// Four blocks: 64 KiB in flight per SM; at eight (32 registers) the float kernel spilled and
  /// split each tile's loads in two trips (2^22 floats 13.8 -> 12.1 us at four; PERF.md#the-arg-kernel).
  static constexpr int min_blocks_per_sm = 4;
};

/// The axis kernels (rows_kernel, long_rows_kernel, columns_kernel) and their tiling
/// (detail/axis_tiling.cuh; PERF.md#reductions-along-axes).
struct axis_policy {
  static constexpr unsigned block = 256;
  /// Blocks of long_rows_kernel an SM holds at least: four (64 registers) for accumulators of up
  /// to 8 bytes, so that more loads are in flight (4096x65536 floats along axis 1: 94% -> 95% of
  /// the floor, 256x1048576: 86% -> 98%, H200); larger ones keep every register they need.
  template <class Acc>
  static constexpr int long_rows_min_blocks = sizeof(Acc) <= 8 ? 4 : 1;
  /// An output is long from this many vectors, or when it spans several rows and the outputs
  /// are fewer than the SMs: rows of a few KiB are read best by a warp each, however few (their
  /// blocks would be short-lived and mostly idle). Long outputs are split over the blocks of
  /// long_rows_kernel while they are fewer than the warps the device holds at once (its SMs
  /// times workspace::warps_per_sm, from its properties); beyond that a group of lanes per
  /// output fills the device.
  static constexpr double long_output_vectors = 1024;
  /// A part of a long output is at least this many rounds of the block's vectors (not tuned
  /// on its own).
  static constexpr int min_part_rounds = 4;
  /// Rows each thread of columns_kernel reads at least where there are enough: deeper threads keep
  /// more loads in flight and leave the block a shallower tree (float sums at 2^28 along axis 0,
  /// 16 rows against 4: 64x4194304 75% -> 96% of the floor, H200).
  static constexpr std::int64_t column_depth = 16;
  /// columns_kernel's threads across at least: a 128-byte line of 16-byte vectors.
  static constexpr unsigned column_width = 8;
  /// Column tiles are split over blocks (ranges of rows) until this many waves of blocks.
  static constexpr std::int64_t column_waves = 2;
  /// The 16-byte vectors each lane of a short row takes for the statistics
  /// (axis_plan::row_vectors_per_lane): four loads in flight per thread, one combination where a
  /// lane per vector would take three (2^23 rows of 32 floats, H200: var_mean at 0.46 of the
  /// sum's GB/s with 8 lanes per row, 0.86 with 2; aminmax 0.66 and 0.97).
  static constexpr unsigned statistic_row_vectors = 4;
};

/// segments_kernel (docs/PERF.md#segmented-reductions).
struct segment_policy {
  static constexpr unsigned block = 256;
  /// A block takes at least two chunks' items, values and segment ends (not tuned on its own).
  static constexpr int min_chunks_per_block = 2;
  /// Three blocks (85 registers): at four the kernel spilled and ran 3-37% slower on every
  /// distribution; without a bound it took 128 registers and two blocks.
  static constexpr int min_blocks_per_sm = 3;
  /// Items a thread walks in a chunk of short segments; the chunk's positions and values fit
  /// 48 KiB of shared memory. Odd, so that the threads' walks (V items apart) fall in different
  /// banks: 15 instead of 16 took lengths of 4 from 27.9% to 32.9% of the floor (2^28 floats).
  template <class In>
  static constexpr int items_per_thread = sizeof(In) <= 4 ? 15 : 11;
  /// Ends a thread loads at once after a chunk's first Block: two batches for the rest.
  template <class In>
  static constexpr int end_batch = (items_per_thread<In> - 1) / 2;
  /// A segment is read as a run by the whole block from this many values (at 2048 a float
  /// segment of 2048 was a run of 8 KiB per block, 44% of the floor; a warp each: 103%), and by a
  /// warp from warp_min (below it a warp's one round trip of under 1 KiB per segment is slower
  /// than the chunks).
  static constexpr long long run_min = 8192;
  static constexpr long long warp_min = 256;
  /// Segments of at most this many values (64 bytes, 16 values at most), Block / 4 or more in a
  /// row, are taken a thread each (device/segment_threads.cuh), short_rounds of them per thread
  /// at once. (16 doubles: 0.60x the speed of 8 on segments of 16, 2^28 doubles; 16 floats:
  /// 1.19x, float argmax 2.26x.)
  template <class In>
  static constexpr long long short_max = sizeof(In) >= 8 ? 8 : 16;
  /// Segments of group_min values or more, in a row, are also taken by groups of lanes
  /// (device/segment_groups.cuh: a block-wide window of them) where the chunk before had none
  /// shorter: those just above short_max, which the short windows do not take, as well as longer
  /// ones (2^28, % of the floor in groups of lanes against chunks: double sums of uniform:16 69%
  /// against 38%, float sums of uniform:24 61% against 28%, uniform:64 78% against 28%); the
  /// short windows keep theirs (float sums of uniform:16: 69% there, 48% in groups of lanes;
  /// docs/PERF.md#segmented-reductions).
  template <class In>
  static constexpr long long group_min = short_max<In> + 1;
  template <class Acc>
  static constexpr int short_rounds = sizeof(Acc) <= 8 ? 4 : sizeof(Acc) <= 16 ? 2 : 1;
  /// Wider accumulators (argmin/argmax, exact_sum) take windows only from a mean length of 2:
  /// on segments of one value their windows of 512 or 256 ran at 0.66-0.84x the chunks' speed.
  template <class Acc>
  static constexpr int short_min_mean = sizeof(Acc) <= 8 ? 0 : 2;
};

/// exact_sum's kernels run blocks of Block = 128 or 256 threads (256 unless a test asks).
template <unsigned Block>
struct exact_bins_policy {  ///< bins_kernel (float, bfloat16, half)
  static constexpr unsigned block = Block;
  static constexpr int unroll = 4;
};
template <unsigned Block>
struct exact_pass_policy {  ///< expansion_kernel: four loads in flight, 64 registers at most
  static constexpr unsigned block = Block;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 1024 / Block;
};
template <unsigned Block>
struct exact_dot_policy {  ///< expansion_kernel over two inputs: two loads of each in flight
  static constexpr unsigned block = Block;
  static constexpr int unroll = 2;
  static constexpr int min_blocks_per_sm = 1024 / Block;
};

}  // namespace cured::detail
