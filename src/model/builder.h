// Builds traces in code: for generators, mutations, importers and tests.
#pragma once

#include <string_view>

#include "model/trace.h"

namespace cc {

class TraceBuilder {
 public:
  explicit TraceBuilder(const Op& op, std::string name = {});

  // Declares the size of a buffer type on every rank (or one rank).
  BufId declare(std::string_view buffer, u64 size);
  void declare_rank(u32 rank, std::string_view buffer, u64 size);
  BufId buf(std::string_view buffer);  // interns without declaring

  Slice slice(u32 rank, std::string_view buffer, u64 offset, u64 len);

  // Each appends one task to (rank, stream) and returns its position in
  // append order (not the final task id; see finish()).
  u32 copy(u32 rank, u32 stream, const Slice& src, const Slice& dst, Link link = Link::NONE);
  u32 reduce(u32 rank, u32 stream, const std::vector<Slice>& srcs, const Slice& dst,
             Link link = Link::NONE);
  u32 reduce_with(u32 rank, u32 stream, const std::vector<Slice>& srcs, const Slice& dst,
                  ReduceOp op, DataType type, Link link = Link::NONE);
  u32 batch_copy(u32 rank, u32 stream, const std::vector<std::pair<Slice, Slice>>& pairs,
                 Link link = Link::NONE);
  u32 batch_reduce(u32 rank, u32 stream,
                   const std::vector<std::pair<std::vector<Slice>, Slice>>& groups,
                   Link link = Link::NONE);
  u32 record(u32 rank, u32 stream, u32 wait_rank, u32 notify);
  u32 wait(u32 rank, u32 stream, u32 record_rank, u32 notify);

  Trace& trace() { return t_; }
  const Trace& trace() const { return t_; }
  u32 size() const { return static_cast<u32>(t_.tasks.size()); }

  // Finalizes; `new_ids` maps append positions to task ids.
  Trace finish(std::vector<u32>* new_ids = nullptr);

 private:
  u32 push(Task k);
  Trace t_;
};

}  // namespace cc
