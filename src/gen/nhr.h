// NHR, the non-uniform hierarchical ring (algorithms.md §8): ReduceScatter,
// AllGather and AllReduce in ⌈log2 n⌉ steps per phase, SDMA form.
#pragma once

#include "gen/links.h"
#include "gen/params.h"
#include "gen/slicing.h"

namespace cc::gen {

// Physical slice table and slice map σ (logical slice i at physical σ[i]).
struct NhrSlices {
  Parts table;
  std::vector<u32> sigma;
};

// The slices moved by one step: {σ(⟨first − j·2Δ⟩) : j < m}, merged.
std::vector<Part> nhr_step_ranges(const NhrSlices& s, i64 first, u32 delta);

// §8.1; the own slice copied to OUT at `out_off` in the last step when IN is
// not OUT. `staging_bug` reproduces HCCL's non-inline last step that drops
// the staged peer data (GenParams::nhr_staging_bug).
void nhr_reduce_scatter(const At& at, Buf in, Buf out, Buf scr, const NhrSlices& s, u64 out_off,
                        bool inline_reduce, bool staging_bug = false);
// §8.2; when IN is not OUT the own slice is first copied from IN at `in_off`.
void nhr_allgather(const At& at, Buf in, Buf out, const NhrSlices& s, u64 in_off);
// §8.3 on `bytes` bytes, IN → OUT.
void nhr_allreduce(const At& at, Buf in, Buf out, u64 bytes, bool inline_reduce);

Result<Trace> gen_nhr_allreduce(const GenParams& p);
Result<Trace> gen_nhr_allgather(const GenParams& p);
Result<Trace> gen_nhr_reduce_scatter(const GenParams& p);

}  // namespace cc::gen
