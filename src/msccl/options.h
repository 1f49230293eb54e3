// How an MSCCL file is checked (msccl.md §3, §4.2, §4.3, §7, §9): the
// --msccl-* options. Nothing in the XML says these; the defaults are the
// spec's.
#pragma once

#include <string>

#include "model/result.h"
#include "model/types.h"

namespace cc::msccl {

enum class ModeFilter : u8 { Declared, InPlace, OutOfPlace };

struct Options {
  u64 chunk_bytes = 256;  // B: bytes one step moves per chunk per iteration (positive multiple of 16)
  u32 iterations = 2;     // L: runs of each TB program; a chunk is C = L·B bytes
  ReduceOp reduce_op = ReduceOp::SUM;
  DataType data_type = DataType::FP32;
  u32 root = 0;                                // rooted collectives (the XML has no root)
  ModeFilter mode = ModeFilter::Declared;      // --msccl-mode
  u32 fifo_depth = 0;  // K (calls a connection holds); 0: the protocol's minimum
  u32 max_count = 0;   // M (chunks per call); 0: from the file's maxBytes
};

// Largest accepted --msccl-iterations and --msccl-chunk-bytes: enough for
// any real use, small enough that C = L·B times any chunk count fits in 64
// bits.
inline constexpr u32 kMaxIterations = 1024;
inline constexpr u64 kMaxChunkBytes = u64{1} << 30;

// An Error (an option error) when the options are not usable.
Status validate(const Options& o);

}  // namespace cc::msccl
