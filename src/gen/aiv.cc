#include "gen/aiv.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "model/aiv_json.h"

namespace cc::gen {

namespace {

// HcclDataType of a data type (hcclvm-db.md §8.3).
u32 hccl_code(DataType d) {
  static constexpr u32 kCodes[kDataTypeCount] = {0, 1, 2, 5, 7, 8, 9, 6, 3, 11, 4, 10, 12, 14, 15, 16, 17};
  return kCodes[static_cast<int>(d)];
}

constexpr u64 kFlagBase = 0x100000;  // the VM's flag area in AIV_COMM (aiv.md §8)
constexpr i32 kEvSlot = 0;           // MTE2→MTE3 #0/#1: a UB slot is full
constexpr i32 kEvFree = 10;          // MTE3→MTE2 #10/#11: a UB slot is free again
constexpr i32 kEvPeer = 2;           // S→MTE2 #2: the peer's data is ready
constexpr i32 kEvPeerDone = 3;       // MTE3→S #3: the peer's data is read

// One rank's kernel: tasks appended per block and pipe in issue order.
class Kernel {
 public:
  Kernel(const AivGenParams& p, u32 rank) : p_(p), rank_(rank), u_(size_of(p.dtype)) {
    d_ = p.count * u_;
    slot_ = (p.ub_bytes / 2) / u_ * u_;
    s_.rank = rank;
    s_.launch = 0;
    s_.rank_size = p.ranks;
    s_.has_in_size = s_.has_out_size = s_.has_ccl_size = true;
    s_.in_size = d_;
    s_.out_size = p.op == OpType::AllGather ? d_ * p.ranks : d_;
    s_.ccl_size = d_;
    s_.comm_size = p.comm_bytes;
    s_.ub_size = p.ub_bytes;
    s_.cur_op = fmt::format("{{\"dataType\":{},\"len\":{},\"reduceOp\":{},\"root\":0,\"sliceId\":0,\"inputStride\":0,"
                            "\"outputStride\":0,\"kernelName\":\"{}\"}}",
                            hccl_code(p.dtype), p.count, static_cast<u32>(p.reduce_op),
                            p.op == OpType::AllGather ? "aiv_all_gather" : "aiv_all_reduce");
    s_.cores.resize(p.blocks);
    for (u32 b = 0; b < p.blocks; ++b) s_.cores[b].block = b;
    chunks_.assign(p.blocks, 0);
    used_.assign(p.blocks, {false, false});
  }

  AivSnapshot run() {
    u32 n = p_.ranks, B = p_.blocks;
    for (u32 b = 0; b < B; ++b) {
      auto [lo, hi] = part(b);
      // Own data: INPUT → UB → CCL (for the peers) and OUTPUT. AllGather:
      // the chunks the peers read, block-cyclic; AllReduce: the block's part.
      u64 step = p_.op == OpType::AllGather ? slot_ * B : slot_;
      if (p_.op == OpType::AllGather) lo = slot_ * b, hi = d_;
      for (u64 x = lo; x < hi; x += step) {
        u64 len = std::min(slot_, hi - x);
        std::vector<std::pair<u32, AivSlice>> dsts = {{rank_, {kAivCcl, x, len}}};
        dsts.push_back({rank_, {kAivOutput, (p_.op == OpType::AllGather ? rank_ * d_ : 0) + x, len}});
        chunk(b, rank_, {kAivInput, x, len}, dsts, false);
      }
      if (p_.op == OpType::AllGather) add(b, kAivPipeMte3, AivTaskType::PipeBarrier).pipe_type = kAivPipeMte3;
      syncall(b, 0);
      for (u32 q : peers_of(b)) send(b, q, ready(rank_), 1);
      if (p_.op == OpType::AllGather) {
        for (u32 q : peers_of(b)) read_peer(b, q, 0, d_, q * d_, false);
      } else if (lo < hi) {
        for (u32 i = 1; i < n; ++i) read_peer(b, (rank_ + i) % n, lo, hi, lo, true);
      }
      drain(b);
      barrier_all(b);
      if (p_.op == OpType::AllReduce) syncall(b, 1);
      // Tell each peer this rank is done with its CCL; wait for theirs; reset the cells.
      if (p_.op == OpType::AllReduce)
        for (u32 q : peers_of(b)) send(b, q, done(rank_), 1);
      for (u32 q : peers_of(b)) recv(b, rank_, done(q), 1);
      for (u32 q : peers_of(b)) {
        send(b, rank_, ready(q), 0);
        send(b, rank_, done(q), 0);
      }
    }
    return std::move(s_);
  }

 private:
  u64 ready(u32 x) const { return kFlagBase + kAivCellBytes * x; }
  u64 done(u32 x) const { return kFlagBase + kAivCellBytes * (u64{p_.ranks} + x); }

  // Block b's share of the data, in whole elements.
  std::pair<u64, u64> part(u32 b) const {
    u64 elems = p_.count, B = p_.blocks;
    return {elems * b / B * u_, elems * (b + 1) / B * u_};
  }

  // The peers whose flags block b handles: the i-th peer after this rank goes to block i mod B.
  std::vector<u32> peers_of(u32 b) const {
    std::vector<u32> out;
    for (u32 i = 1; i < p_.ranks; ++i)
      if ((i - 1) % p_.blocks == b) out.push_back((rank_ + i) % p_.ranks);
    return out;
  }

  AivTask& add(u32 b, u32 pipe, AivTaskType type) {
    AivTask& t = s_.cores[b].lanes[pipe].emplace_back();
    t.type = static_cast<u32>(type);
    t.id = next_id_++;
    t.rank_id = rank_;
    t.block_id = b;
    t.cur_pipe = pipe;
    return t;
  }
  void move(u32 b, u32 pipe, bool reduce, u32 src_rank, AivSlice src, u32 dst_rank, AivSlice dst) {
    AivTask& t = add(b, pipe, reduce ? AivTaskType::Reduce : AivTaskType::MemCopy);
    t.src_rank = src_rank;
    t.src = src;
    t.dst_rank = dst_rank;
    t.dst = dst;
    if (reduce) {
      t.data_type = hccl_code(p_.dtype);
      t.reduce_op = static_cast<u32>(p_.reduce_op);
    }
  }
  void event(u32 b, u32 pipe, bool set, u32 from, u32 to, i32 id) {
    AivTask& t = add(b, pipe, set ? AivTaskType::SetFlag : AivTaskType::WaitFlag);
    t.src_pipe = from;
    t.dst_pipe = to;
    t.event = id;
  }
  void send(u32 b, u32 owner, u64 offset, i32 v) {
    AivTask& t = add(b, kAivPipeS, AivTaskType::SendFlag);
    t.flag_rank = owner;
    t.offset = offset;
    t.value = v;
  }
  void recv(u32 b, u32 owner, u64 offset, i32 v) {
    AivTask& t = add(b, kAivPipeS, AivTaskType::RecvFlag);
    t.flag_rank = owner;
    t.offset = offset;
    t.value = v;
  }
  void syncall(u32 b, u32 round) {
    for (u32 p = 0; p < kAivPipes; ++p) add(b, p, AivTaskType::SyncAll).round = round;
  }
  void barrier_all(u32 b) {
    u32 first = next_id_;
    for (u32 p = 0; p < kAivPipes; ++p) {
      AivTask& t = add(b, p, AivTaskType::PipeBarrier);
      t.pipe_type = kAivPipeAll;
      for (u32 o = 0; o < kAivPipes; ++o)
        if (o != p) t.group.push_back(first + o);
    }
  }

  // One chunk through UB slot j mod 2 of block b (double buffered).
  void chunk(u32 b, u32 src_rank, AivSlice src, const std::vector<std::pair<u32, AivSlice>>& dsts, bool reduce) {
    u32 j = chunks_[b]++;
    u32 s = j % 2;
    AivSlice ub{kAivUb, s * slot_, src.size};
    if (j >= 2) event(b, kAivPipeMte2, false, kAivPipeMte3, kAivPipeMte2, kEvFree + s);
    move(b, kAivPipeMte2, false, src_rank, src, rank_, ub);
    event(b, kAivPipeMte2, true, kAivPipeMte2, kAivPipeMte3, kEvSlot + s);
    event(b, kAivPipeMte3, false, kAivPipeMte2, kAivPipeMte3, kEvSlot + s);
    for (const auto& [r, d] : dsts) move(b, kAivPipeMte3, reduce, rank_, ub, r, d);
    event(b, kAivPipeMte3, true, kAivPipeMte3, kAivPipeMte2, kEvFree + s);
    used_[b][s] = true;
  }

  // The final "slot free" of each slot used.
  void drain(u32 b) {
    for (u32 s = 0; s < 2; ++s)
      if (used_[b][s]) event(b, kAivPipeMte2, false, kAivPipeMte3, kAivPipeMte2, kEvFree + s);
    used_[b] = {false, false};
    chunks_[b] = 0;
  }

  // Peer q's CCL [lo, hi) into OUTPUT at `at` (copied, or reduced into it),
  // after q's READY; AllGather then tells q it is done.
  void read_peer(u32 b, u32 q, u64 lo, u64 hi, u64 at, bool reduce) {
    recv(b, rank_, ready(q), 1);
    event(b, kAivPipeS, true, kAivPipeS, kAivPipeMte2, kEvPeer);
    event(b, kAivPipeMte2, false, kAivPipeS, kAivPipeMte2, kEvPeer);
    for (u64 x = lo; x < hi; x += slot_) {
      u64 len = std::min(slot_, hi - x);
      chunk(b, q, {kAivCcl, x, len}, {{rank_, {kAivOutput, at + (x - lo), len}}}, reduce);
    }
    event(b, kAivPipeMte3, true, kAivPipeMte3, kAivPipeS, kEvPeerDone);
    event(b, kAivPipeS, false, kAivPipeMte3, kAivPipeS, kEvPeerDone);
    if (!reduce) send(b, q, done(rank_), 1);
  }

  const AivGenParams& p_;
  u32 rank_;
  u32 u_;
  u64 d_ = 0, slot_ = 0;
  AivSnapshot s_;
  u32 next_id_ = 0;
  std::vector<u32> chunks_;
  std::vector<std::array<bool, 2>> used_;
};

}  // namespace

const std::vector<AivAlgorithm>& aiv_algorithms() {
  static const std::vector<AivAlgorithm> all = {
      {"aiv-allgather", OpType::AllGather,
       "AIV kernel: own data staged into CCL, peers' CCL read by the blocks after READY flags"},
      {"aiv-allreduce", OpType::AllReduce,
       "AIV kernel: every block reduces its part of every peer's CCL into OUTPUT (atomic add)"},
  };
  return all;
}

const AivAlgorithm* find_aiv_algorithm(std::string_view name) {
  for (const AivAlgorithm& a : aiv_algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

Result<Trace> generate_aiv(const AivGenParams& p) {
  if (p.op != OpType::AllGather && p.op != OpType::AllReduce)
    return Error{fmt::format("AIV kernels are generated for AllGather and AllReduce, not {}", name(p.op))};
  if (p.ranks == 0 || p.ranks > kMaxRanks) return Error{fmt::format("--ranks must be 1 … {}", kMaxRanks)};
  if (p.blocks == 0 || p.blocks > 4096) return Error{"--blocks must be 1 … 4096"};
  u32 u = size_of(p.dtype);
  if (p.count > (u64{1} << 40) / u) return Error{"--count too large for an AIV kernel"};
  if (p.ub_bytes / 2 < u) return Error{"the unified buffer must hold two elements"};
  if ((kFlagBase + kAivCellBytes * 2 * u64{p.ranks}) > p.comm_bytes)
    return Error{fmt::format("{} ranks need {} bytes of flag cells in AIV_COMM, which holds {}", p.ranks,
                             kFlagBase + kAivCellBytes * 2 * u64{p.ranks}, p.comm_bytes)};
  Trace t;
  t.op.type = p.op;
  t.op.ranks = p.ranks;
  t.op.data_type = p.dtype;
  t.op.count = p.count;
  t.op.reduce_op = p.reduce_op;
  t.op.has_reduce_op = p.op == OpType::AllReduce;
  t.op.known = true;
  t.name = fmt::format("{} ranks={} blocks={} count={} dtype={}", p.op == OpType::AllGather ? "aiv-allgather" : "aiv-allreduce",
                       p.ranks, p.blocks, p.count, name(p.dtype));
  BufId ccl = t.buffers.intern("CCL");
  t.sizes.declared.assign(ccl + 1, BufferSizes::kUndeclared);
  t.sizes.declared[ccl] = p.count * u;
  for (u32 r = 0; r < p.ranks; ++r) {
    AivSnapshot s = Kernel(p, r).run();
    s.json = aiv::snapshot_json(s);
    t.aiv.snapshots.push_back(std::move(s));
    Task k;
    k.type = TaskType::AIV_GRAPH;
    k.rank = r;
    k.stream = 0;
    k.set_notify(static_cast<u32>(t.aiv.records.size()));
    t.aiv.records.push_back({0, {}, false});
    t.tasks.push_back(k);
  }
  CC_TRY(finalize_trace(t));
  return t;
}

}  // namespace cc::gen
