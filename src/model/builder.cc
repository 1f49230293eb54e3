#include "model/builder.h"

namespace cc {

TraceBuilder::TraceBuilder(const Op& op, std::string name) {
  t_.op = op;
  t_.name = std::move(name);
}

BufId TraceBuilder::buf(std::string_view buffer) { return t_.buffers.intern(buffer); }

BufId TraceBuilder::declare(std::string_view buffer, u64 size) {
  BufId id = buf(buffer);
  if (t_.sizes.declared.size() <= id) t_.sizes.declared.resize(id + 1, BufferSizes::kUndeclared);
  t_.sizes.declared[id] = size;
  return id;
}

void TraceBuilder::declare_rank(u32 rank, std::string_view buffer, u64 size) {
  t_.sizes.per_rank[(u64{rank} << 16) | buf(buffer)] = size;
}

Slice TraceBuilder::slice(u32 rank, std::string_view buffer, u64 offset, u64 len) {
  Slice s;
  s.rank = rank;
  s.buf = buf(buffer);
  if (t_.op.in_place && s.buf == kOutput) s.buf = kInput;
  s.offset = offset;
  s.len = len;
  return s;
}

u32 TraceBuilder::push(Task k) {
  t_.tasks.push_back(k);
  return static_cast<u32>(t_.tasks.size() - 1);
}

namespace {

Task data_task(TaskType type, u32 rank, u32 stream, Link link, const Op& op, u32 first_group) {
  Task k;
  k.type = type;
  k.rank = rank;
  k.stream = stream;
  k.link = link;
  k.data_type = op.data_type;
  k.reduce_op = op.reduce_op;
  k.set_first_group(first_group);
  return k;
}

}  // namespace

u32 TraceBuilder::copy(u32 rank, u32 stream, const Slice& src, const Slice& dst, Link link) {
  return batch_copy(rank, stream, {{src, dst}}, link) ;
}

u32 TraceBuilder::batch_copy(u32 rank, u32 stream, const std::vector<std::pair<Slice, Slice>>& pairs,
                             Link link) {
  Task k = data_task(pairs.size() == 1 ? TaskType::TRANS_MEM : TaskType::BATCH_TRANS_MEM, rank,
                     stream, link, t_.op, static_cast<u32>(t_.groups.size()));
  for (const auto& [src, dst] : pairs) {
    Group g;
    g.first_src = static_cast<u32>(t_.slices.size());
    g.src_count = 1;
    t_.slices.push_back(src);
    g.dst = static_cast<u32>(t_.slices.size());
    t_.slices.push_back(dst);
    t_.groups.push_back(g);
    k.set_group_count(k.group_count() + 1);
  }
  return push(k);
}

u32 TraceBuilder::reduce(u32 rank, u32 stream, const std::vector<Slice>& srcs, const Slice& dst,
                         Link link) {
  return reduce_with(rank, stream, srcs, dst, t_.op.reduce_op, t_.op.data_type, link);
}

u32 TraceBuilder::reduce_with(u32 rank, u32 stream, const std::vector<Slice>& srcs, const Slice& dst,
                              ReduceOp op, DataType type, Link link) {
  u32 id = batch_reduce(rank, stream, {{srcs, dst}}, link);
  Task& k = t_.tasks[id];
  k.type = TaskType::REDUCE;
  k.reduce_op = op;
  k.data_type = type;
  return id;
}

u32 TraceBuilder::batch_reduce(u32 rank, u32 stream,
                               const std::vector<std::pair<std::vector<Slice>, Slice>>& groups,
                               Link link) {
  Task k = data_task(TaskType::BATCH_REDUCE, rank, stream, link, t_.op,
                     static_cast<u32>(t_.groups.size()));
  for (const auto& [srcs, dst] : groups) {
    Group g;
    g.first_src = static_cast<u32>(t_.slices.size());
    g.src_count = static_cast<u32>(srcs.size());
    t_.slices.insert(t_.slices.end(), srcs.begin(), srcs.end());
    g.dst = static_cast<u32>(t_.slices.size());
    t_.slices.push_back(dst);
    t_.groups.push_back(g);
    k.set_group_count(k.group_count() + 1);
  }
  return push(k);
}

u32 TraceBuilder::record(u32 rank, u32 stream, u32 wait_rank, u32 notify) {
  Task k;
  k.type = TaskType::RECORD;
  k.rank = rank;
  k.stream = stream;
  k.set_peer(wait_rank);
  k.set_notify(notify);
  return push(k);
}

u32 TraceBuilder::wait(u32 rank, u32 stream, u32 record_rank, u32 notify) {
  Task k;
  k.type = TaskType::WAIT;
  k.rank = rank;
  k.stream = stream;
  k.set_peer(record_rank);
  k.set_notify(notify);
  return push(k);
}

Trace TraceBuilder::finish(std::vector<u32>* new_ids) {
  // Builders (generators, tests) declare sizes that fit: an overflow would
  // be caught again by the stages' bounds checks.
  (void)finalize_trace(t_, new_ids);
  return std::move(t_);
}

}  // namespace cc
