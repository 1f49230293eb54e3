#include "aiv_random.h"

#include <fmt/format.h>

#include "model/aiv_json.h"
#include "model/builder.h"

namespace cc::test {

namespace {

constexpr u64 kD = 64;         // INT32 × 16: INPUT, one OUTPUT slot
constexpr u64 kCclBytes = 256;  // declared CCL
constexpr u64 kUb = 256;        // ubBufferSize
constexpr u32 kHcclInt32 = 2;

class LaunchProgram {
 public:
  LaunchProgram(std::mt19937_64& rng, const AivRandomShape& shape, u32 ranks, u32 rank, u64 launch,
                std::vector<std::vector<i32>>& sent)
      : rng_(rng), shape_(shape), ranks_(ranks), rank_(rank), sent_(sent) {
    s_.rank = rank;
    s_.launch = launch;
    s_.rank_size = ranks;
    s_.ub_size = kUb;
    s_.comm_size = kAivCellBytes * shape.cells;
    s_.cores.resize(1 + pick(shape.max_blocks));
    for (u32 b = 0; b < s_.cores.size(); ++b) s_.cores[b].block = b;
  }

  AivSnapshot run() {
    u32 phases = 1 + pick(3);
    for (u32 ph = 0; ph < phases; ++ph) {
      for (u32 b = 0; b < s_.cores.size(); ++b)
        for (u32 n = pick(shape_.max_steps / phases + 1); n > 0; --n) step(b);
      if (ph + 1 < phases)  // a SyncAll round between phases, on every lane of every block
        for (u32 b = 0; b < s_.cores.size(); ++b)
          for (u32 p = 0; p < kAivPipes; ++p) add(b, p, AivTaskType::SyncAll).round = ph;
    }
    s_.json = aiv::snapshot_json(s_);
    return std::move(s_);
  }

 private:
  u32 pick(u32 n) { return n ? static_cast<u32>(rng_() % n) : 0; }
  bool chance(u32 percent) { return pick(100) < percent; }

  AivTask& add(u32 b, u32 pipe, AivTaskType type) {
    AivTask t;
    t.type = static_cast<u32>(type);
    t.id = next_id_++;
    s_.cores[b].lanes[pipe].push_back(t);
    return s_.cores[b].lanes[pipe].back();
  }

  // A random slice of `len` bytes in a buffer of `size` (now and then a few
  // bytes past its end).
  AivSlice slice(u32 buffer, u64 size, u64 len) {
    u64 slots = size > len ? (size - len) / 4 + 1 : 1;
    u64 off = 4 * (rng_() % slots);
    if (chance(2)) off = size - len + 4;
    return {buffer, off, len};
  }
  // A global slice: own INPUT or OUTPUT, any rank's CCL, rarely AIV_COMM.
  std::pair<u32, AivSlice> global(u64 len, bool write) {
    u32 k = pick(10);
    if (k < 2 && !write) return {rank_, slice(kAivInput, kD, len)};
    if (k < 4) return {rank_, slice(kAivOutput, kD * ranks_, len)};
    if (k == 9 && chance(30)) return {pick(ranks_), slice(kAivComm, kAivCellBytes * shape_.cells, len)};
    return {pick(ranks_), slice(kAivCcl, kCclBytes, len)};
  }

  void step(u32 b) {
    u64 len = 4 * (1 + pick(16));
    switch (pick(9)) {
      case 0:
      case 1: {  // global -> UB on MTE2
        AivTask& t = add(b, kAivPipeMte2, AivTaskType::MemCopy);
        std::tie(t.src_rank, t.src) = global(len, false);
        t.dst_rank = rank_;
        t.dst = slice(kAivUb, kUb, len);
        break;
      }
      case 2:
      case 3: {  // UB -> global on MTE3, a copy or an atomic add
        bool reduce = chance(30);
        AivTask& t = add(b, kAivPipeMte3, reduce ? AivTaskType::Reduce : AivTaskType::MemCopy);
        t.src_rank = rank_;
        t.src = slice(kAivUb, kUb, len);
        std::tie(t.dst_rank, t.dst) = global(len, true);
        if (reduce) t.data_type = kHcclInt32, t.reduce_op = 0;
        break;
      }
      case 4:
      case 5: {  // a pipe event, set before it is waited for in issue order
        u32 src = pick(3), dst = (src + 1 + pick(2)) % 3;
        i32 id = static_cast<i32>(pick(2));
        for (AivTaskType k : {AivTaskType::SetFlag, AivTaskType::WaitFlag}) {
          AivTask& t = add(b, k == AivTaskType::SetFlag ? src : dst, k);
          t.src_pipe = src, t.dst_pipe = dst, t.event = id;
        }
        break;
      }
      case 6: {  // a barrier: PIPE_ALL (one member per pipe) or one pipe
        if (chance(60)) {
          u32 first = next_id_;
          for (u32 p = 0; p < kAivPipes; ++p) {
            AivTask& t = add(b, p, AivTaskType::PipeBarrier);
            t.pipe_type = kAivPipeAll;
            for (u32 q = 0; q < kAivPipes; ++q)
              if (q != p) t.group.push_back(first + q);
          }
        } else {
          u32 p = pick(3);
          add(b, p, AivTaskType::PipeBarrier).pipe_type = p;
        }
        break;
      }
      case 7: {  // SendFlag
        AivTask& t = add(b, kAivPipeS, AivTaskType::SendFlag);
        t.flag_rank = pick(ranks_);
        u32 cell = pick(shape_.cells);
        t.offset = kAivCellBytes * cell;
        t.value = static_cast<i32>(pick(3));
        sent_[t.flag_rank * shape_.cells + cell].push_back(t.value);
        break;
      }
      default: {  // RecvFlag, mostly for a value some SendFlag made so far writes
        AivTask& t = add(b, kAivPipeS, AivTaskType::RecvFlag);
        t.flag_rank = pick(ranks_);
        u32 cell = pick(shape_.cells);
        t.offset = kAivCellBytes * cell;
        const std::vector<i32>& v = sent_[t.flag_rank * shape_.cells + cell];
        if (v.empty() || chance(10)) t.value = static_cast<i32>(pick(2));
        else t.value = chance(50) ? v.back() : v[pick(static_cast<u32>(v.size()))];
        break;
      }
    }
  }

  std::mt19937_64& rng_;
  const AivRandomShape& shape_;
  u32 ranks_, rank_;
  std::vector<std::vector<i32>>& sent_;
  AivSnapshot s_;
  u32 next_id_ = 0;
};

}  // namespace

Trace random_aiv_trace(std::mt19937_64& rng, const AivRandomShape& shape) {
  Op op;
  op.type = OpType::AllGather;
  op.ranks = 1 + static_cast<u32>(rng() % shape.max_ranks);
  op.data_type = DataType::INT32;
  op.count = kD / 4;
  op.known = true;
  TraceBuilder b(op, "random AIV");
  b.declare("CCL", kCclBytes);
  u32 launches = shape.two_launches && rng() % 2 ? 2 : 1;
  std::vector<std::vector<i32>> sent(op.ranks * shape.cells);
  for (u64 l = 0; l < launches; ++l)
    for (u32 r = 0; r < op.ranks; ++r) {
      // Now and then a host copy before the launch on the same stream, so
      // that AIV and host data tasks meet.
      if (rng() % 3 == 0) {
        u64 off = 4 * (rng() % (kD / 4));
        b.copy(r, 0, b.slice(r, "INPUT", off, 4), b.slice(r, "CCL", off, 4), Link::SDMA);
      }
      Trace& t = b.trace();
      t.aiv.snapshots.push_back(LaunchProgram(rng, shape, op.ranks, r, l, sent).run());
      Task k;
      k.type = TaskType::AIV_GRAPH;
      k.rank = r;
      k.stream = 0;
      k.set_notify(static_cast<u32>(t.aiv.records.size()));
      t.aiv.records.push_back({l, {}, false});
      t.tasks.push_back(k);
    }
  return b.finish();
}

}  // namespace cc::test
