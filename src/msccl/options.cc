#include "msccl/options.h"

#include <fmt/format.h>

namespace cc::msccl {

Status validate(const Options& o) {
  if (o.chunk_bytes == 0 || o.chunk_bytes % 16 != 0 || o.chunk_bytes > kMaxChunkBytes)
    return Error{fmt::format("--msccl-chunk-bytes {}: must be a positive multiple of 16 (every data type and 16-byte "
                       "vector stays aligned), at most {}",
                       o.chunk_bytes, kMaxChunkBytes)};
  if (o.iterations == 0 || o.iterations > kMaxIterations)
    return Error{fmt::format("--msccl-iterations {}: must be 1 .. {}", o.iterations, kMaxIterations)};
  if (o.max_count > 71) return Error{fmt::format("--msccl-max-count {}: must be 1 .. 71", o.max_count)};
  if (o.fifo_depth > (1u << 20)) return Error{fmt::format("--msccl-fifo-depth {}: at most {}", o.fifo_depth, 1u << 20)};
  return {};
}

}  // namespace cc::msccl
