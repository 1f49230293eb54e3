// Recursive halving-doubling AllReduce with folding for non-powers of two
// (algorithms.md §7).
#pragma once

#include "gen/links.h"
#include "gen/params.h"

namespace cc::gen {

// One run of §7 for member `at.me` on `bytes` bytes, IN → OUT (OUT stages).
void hd_allreduce(const At& at, Buf in, Buf out, u64 bytes, bool inline_reduce);

Result<Trace> gen_hd_allreduce(const GenParams& p);

}  // namespace cc::gen
