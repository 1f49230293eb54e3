// Slicing functions of algorithms.md §1.7 and §8 (NHR slice map), and the
// merging of slice sets into contiguous transfers.
#pragma once

#include <vector>

#include "gen/emitter.h"

namespace cc::gen {

using Parts = std::vector<Part>;

inline constexpr u64 kSliceAlign = 128;  // HCCL_MIN_SLICE_ALIGN

inline u64 ceil_div(u64 x, u64 y) { return y == 0 ? 0 : (x + y - 1) / y; }
inline u64 round_up(u64 x, u64 a) { return ceil_div(x, a) * a; }

// Even split, 128-aligned: k parts of A = RU(⌈T/k⌉, 128) bytes, trailing
// parts shorter or empty (offset clipped at T).
Parts even_split(u64 total, u32 k);
// Parts of `piece` bytes each, the last ones clipped at `total` (Broadcast
// pieces of §10.1, HD block slices of §7).
Parts clipped_pieces(u64 total, u64 piece, u32 k);
// Equal blocks [i·S, +S).
Parts equal_blocks(u64 block, u32 k);
// Per-stream split of one segment into m parts of RU(⌈L/m⌉, 128) bytes, at
// the segment's offset.
Parts stream_split(Part segment, u32 m);

// The byte range covering parts [a, a+m) of a table of consecutive parts.
Part part_range(const Parts& table, u32 a, u32 m);

// The given part indices, sorted, adjacent indices merged into one range.
std::vector<Part> merged_ranges(const Parts& table, std::vector<u32> indices);

// NHR slice map σ for AllReduce and Broadcast (§8): logical slice i lives at
// physical slice σ[i].
std::vector<u32> nhr_sigma(u32 n);
// Steps of an NHR phase: the number of bits of n−1.
u32 nhr_steps(u32 n);

}  // namespace cc::gen
