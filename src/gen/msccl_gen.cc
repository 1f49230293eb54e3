#include "gen/msccl_gen.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "msccl/diag.h"
#include "msccl/fold.h"

namespace cc::gen {

using MBuf = msccl::Buf;
using msccl::Coll;
using msccl::i32;
using msccl::i64;
using msccl::Program;
using msccl::Step;
using msccl::StepType;
using msccl::Tb;

namespace {

i32 mod(i64 a, i32 n) { return static_cast<i32>(((a % n) + n) % n); }

// Appends a step to `tb`, numbering s in order.
Step& add(Tb& tb, StepType type, MBuf sb, i32 so, MBuf db, i32 dof, i32 cnt = 1) {
  Step s;
  s.s = static_cast<i32>(tb.steps.size());
  s.type = type;
  s.type_name = std::string(msccl::name(type));
  s.srcbuf = sb, s.srcoff = so, s.dstbuf = db, s.dstoff = dof, s.cnt = cnt;
  tb.steps.push_back(s);
  return tb.steps.back();
}
Step& send(Tb& tb, MBuf b, i32 off) { return add(tb, StepType::S, b, off, MBuf::O, -1); }
Step& recv(Tb& tb, MBuf b, i32 off) { return add(tb, StepType::R, MBuf::O, -1, b, off); }
Step& copy(Tb& tb, MBuf sb, i32 so, MBuf db, i32 dof) { return add(tb, StepType::Cpy, sb, so, db, dof); }
void depend(Step& s, i32 tb, i32 level) { s.depid = tb, s.deps = level; }

Tb make_tb(i32 id, i32 send_peer, i32 recv_peer) {
  Tb t;
  t.id = id, t.send = send_peer, t.recv = recv_peer, t.chan = 0;
  return t;
}

Program base(std::string name, Coll coll, i32 n, i32 c, bool inplace) {
  Program p;
  p.name = std::move(name);
  p.coll = coll;
  p.ngpus = n;
  p.nchunksperloop = c;
  p.nchannels = 1;
  p.proto = msccl::Proto::Simple;
  p.inplace = inplace;
  p.outofplace = true;
  for (i32 r = 0; r < n; ++r) {
    msccl::Gpu g;
    g.id = r;
    i32 per = c / n;
    g.i_chunks = coll == Coll::AllGather ? per : c;
    g.o_chunks = c;
    p.gpus.push_back(std::move(g));
  }
  return p;
}

// One rank: its own input chunk(s) to the output, nothing else to do.
void single(Program& p) {
  Tb t = make_tb(0, -1, -1);
  copy(t, MBuf::I, 0, MBuf::O, 0).cnt = p.nchunksperloop;
  p.gpus[0].tbs.push_back(std::move(t));
}

// msccl.md §13 example 1: TB 0 copies the rank's input into its output slot
// and publishes level 0; TB 1 sends it round the ring after waiting for
// TB 0, then alternately receives and forwards.
Program ring_allgather(i32 n) {
  Program p = base(fmt::format("ring_allgather_{}", n), Coll::AllGather, n, n, true);
  if (n == 1) return single(p), p;
  for (i32 r = 0; r < n; ++r) {
    Tb t0 = make_tb(0, -1, -1);
    copy(t0, MBuf::I, 0, MBuf::O, r).hasdep = true;
    Tb t1 = make_tb(1, mod(r + 1, n), mod(r - 1, n));
    depend(send(t1, MBuf::O, r), 0, 0);
    for (i32 k = 1; k < n; ++k) {
      recv(t1, MBuf::O, mod(r - k, n));
      if (k + 1 < n) send(t1, MBuf::O, mod(r - k, n));
    }
    p.gpus[r].tbs = {std::move(t0), std::move(t1)};
  }
  return p;
}

// Reduce-scatter round the ring (each rank adds its input to the partial sum
// it receives, through one scratch chunk), then all-gather round the ring.
Program ring_allreduce(i32 n) {
  Program p = base(fmt::format("ring_allreduce_{}", n), Coll::AllReduce, n, n, true);
  if (n == 1) return single(p), p;
  for (i32 r = 0; r < n; ++r) {
    Tb t = make_tb(0, mod(r + 1, n), mod(r - 1, n));
    for (i32 k = 0; k + 1 < n; ++k) {
      send(t, k == 0 ? MBuf::I : MBuf::O, mod(r - k, n));
      recv(t, MBuf::S, 0);
      i32 x = mod(r - k - 1, n);
      copy(t, MBuf::I, x, MBuf::O, x);
      add(t, StepType::Re, MBuf::S, 0, MBuf::O, x);
    }
    for (i32 k = 0; k + 1 < n; ++k) {
      send(t, MBuf::O, mod(r + 1 - k, n));
      recv(t, MBuf::O, mod(r - k, n));
    }
    p.gpus[r].s_chunks = 1;
    p.gpus[r].tbs.push_back(std::move(t));
  }
  return p;
}

// Round k forwards the n-k chunks still travelling; each rank keeps the first
// (its own, from rank r-k) and stores the rest in one of two scratch areas
// for the next round. Sends and receives alternate, so no FIFO ever holds
// more than one call.
Program ring_alltoall(i32 n) {
  Program p = base(fmt::format("ring_alltoall_{}", n), Coll::AllToAll, n, n, false);
  if (n == 1) return single(p), p;
  i32 area = std::max(n - 2, 0);
  for (i32 r = 0; r < n; ++r) {
    Tb t = make_tb(0, mod(r + 1, n), mod(r - 1, n));
    copy(t, MBuf::I, r, MBuf::O, r);
    for (i32 k = 1; k < n; ++k) {
      i32 m = n - k;
      for (i32 j = 0; j < m; ++j) {
        if (k == 1) send(t, MBuf::I, mod(r + 1 + j, n));
        else send(t, MBuf::S, ((k - 1) % 2) * area + j);
        if (j == 0) recv(t, MBuf::O, mod(r - k, n));
        else recv(t, MBuf::S, (k % 2) * area + j - 1);
      }
    }
    p.gpus[r].s_chunks = 2 * area;
    p.gpus[r].tbs.push_back(std::move(t));
  }
  return p;
}

// TB j of rank r sends to r+j and receives from r-j (one TB per connection
// end); TB 0 does the local work.
Program allpairs_allgather(i32 n) {
  Program p = base(fmt::format("allpairs_allgather_{}", n), Coll::AllGather, n, n, true);
  if (n == 1) return single(p), p;
  for (i32 r = 0; r < n; ++r) {
    Tb t0 = make_tb(0, -1, -1);
    copy(t0, MBuf::I, 0, MBuf::O, r).hasdep = true;
    p.gpus[r].tbs.push_back(std::move(t0));
    for (i32 j = 1; j < n; ++j) {
      Tb t = make_tb(j, mod(r + j, n), mod(r - j, n));
      depend(send(t, MBuf::O, r), 0, 0);
      recv(t, MBuf::O, mod(r - j, n));
      p.gpus[r].tbs.push_back(std::move(t));
    }
  }
  return p;
}

Program allpairs_alltoall(i32 n) {
  Program p = base(fmt::format("allpairs_alltoall_{}", n), Coll::AllToAll, n, n, false);
  if (n == 1) return single(p), p;
  for (i32 r = 0; r < n; ++r) {
    Tb t0 = make_tb(0, -1, -1);
    copy(t0, MBuf::I, r, MBuf::O, r);
    p.gpus[r].tbs.push_back(std::move(t0));
    for (i32 j = 1; j < n; ++j) {
      Tb t = make_tb(j, mod(r + j, n), mod(r - j, n));
      send(t, MBuf::I, mod(r + j, n));
      recv(t, MBuf::O, mod(r - j, n));
      p.gpus[r].tbs.push_back(std::move(t));
    }
  }
  return p;
}

// Every rank reduces its own chunk: TB j sends chunk r+j of the input to
// rank r+j and receives rank r-j's contribution to chunk r into scratch
// (publishing level 1); TB 0 waits for all of them (a chain of nops) and adds
// them in one fused `re` chain; then TB j sends the sum to r+j and receives
// chunk r-j's sum.
Program allpairs_allreduce(i32 n) {
  Program p = base(fmt::format("allpairs_allreduce_{}", n), Coll::AllReduce, n, n, true);
  if (n == 1) return single(p), p;
  // The level TB 0 publishes the sum at: computed by the runtime's counter,
  // which splits fused chains at the 16th `re` step.
  i32 sum_level = 0;
  for (i32 r = 0; r < n; ++r) {
    Tb t0 = make_tb(0, -1, -1);
    copy(t0, MBuf::I, r, MBuf::O, r);
    for (i32 j = 1; j + 1 < n; ++j) {
      Step& nop = add(t0, StepType::Nop, MBuf::S, -1, MBuf::S, -1, 0);
      depend(nop, j, 1);
    }
    for (i32 j = 1; j < n; ++j) {
      Step& re = add(t0, StepType::Re, MBuf::S, j - 1, MBuf::O, r);
      if (j == 1) depend(re, n - 1, 1);
    }
    t0.steps.back().hasdep = true;
    std::vector<msccl::Diag> ignored;
    msccl::FoldedTb f = msccl::fold_tb(t0, 0, 0, ignored);
    sum_level = f.tx.back().level;
    p.gpus[r].s_chunks = n - 1;
    p.gpus[r].tbs.push_back(std::move(t0));
    for (i32 j = 1; j < n; ++j) {
      Tb t = make_tb(j, mod(r + j, n), mod(r - j, n));
      send(t, MBuf::I, mod(r + j, n));
      recv(t, MBuf::S, j - 1).hasdep = true;
      depend(send(t, MBuf::O, r), 0, sum_level);
      recv(t, MBuf::O, mod(r - j, n));
      p.gpus[r].tbs.push_back(std::move(t));
    }
  }
  return p;
}

bool is_allpairs(std::string_view a) { return a == "all-pairs" || a == "allpairs" || a == "all_pairs"; }

}  // namespace

const std::vector<MscclAlgorithm>& msccl_algorithms() {
  static const std::vector<MscclAlgorithm> all = {
      {"ring", {OpType::AllReduce, OpType::AllGather, OpType::AllToAll},
       "one thread block per rank sends to r+1 and receives from r-1 (AllGather: TB 0 copies, TB 1 forwards)"},
      {"all-pairs", {OpType::AllReduce, OpType::AllGather, OpType::AllToAll},
       "thread block j sends to r+j and receives from r-j; TB 0 copies and reduces"},
  };
  return all;
}

Result<Program> generate_msccl(std::string_view algo, OpType op, u32 ranks) {
  if (ranks < 1 || ranks > static_cast<u32>(msccl::kMaxGpus))
    return Error{fmt::format("gen --format msccl: --ranks must be 1 .. {}", msccl::kMaxGpus)};
  if (is_allpairs(algo) && ranks > static_cast<u32>(msccl::kMaxTbsPerGpu))
    return Error{fmt::format("gen --format msccl: all-pairs needs a thread block per peer; at most {} ranks",
                             msccl::kMaxTbsPerGpu)};
  i32 n = static_cast<i32>(ranks);
  Program p;
  if (algo == "ring") {
    if (op == OpType::AllGather) p = ring_allgather(n);
    else if (op == OpType::AllReduce) p = ring_allreduce(n);
    else if (op == OpType::AllToAll) p = ring_alltoall(n);
    else return Error{fmt::format("gen --format msccl: ring writes AllReduce, AllGather or AllToAll, not {}", name(op))};
  } else if (is_allpairs(algo)) {
    if (op == OpType::AllGather) p = allpairs_allgather(n);
    else if (op == OpType::AllReduce) p = allpairs_allreduce(n);
    else if (op == OpType::AllToAll) p = allpairs_alltoall(n);
    else
      return Error{
          fmt::format("gen --format msccl: all-pairs writes AllReduce, AllGather or AllToAll, not {}", name(op))};
  } else {
    return Error{fmt::format("gen --format msccl: unknown algorithm \"{}\" (ring, all-pairs)", algo)};
  }
  fill_remote_fields(p);
  return p;
}

void fill_remote_fields(Program& p) {
  // Per connection (sender, receiver, channel): the data steps in order.
  using Key = std::tuple<i32, i32, i32>;
  std::map<Key, std::vector<Step*>> pushes, pops;
  for (msccl::Gpu& g : p.gpus)
    for (Tb& t : g.tbs)
      for (Step& s : t.steps) {
        if (s.cnt <= 0) continue;
        if (msccl::pushes(s.type) && t.send >= 0) pushes[{g.id, t.send, t.chan}].push_back(&s);
        if (msccl::pops(s.type) && t.recv >= 0) pops[{t.recv, g.id, t.chan}].push_back(&s);
      }
  for (auto& [key, sends] : pushes) {
    auto it = pops.find(key);
    if (it == pops.end()) continue;
    std::vector<Step*>& recvs = it->second;
    for (std::size_t i = 0; i < sends.size() && i < recvs.size(); ++i) {
      Step& s = *sends[i];
      Step& r = *recvs[i];
      if (s.type == StepType::S && msccl::writes_dst(r.type)) s.dstbuf = r.dstbuf, s.dstoff = r.dstoff;
      if (r.type == StepType::R && s.type == StepType::S) r.srcbuf = s.srcbuf, r.srcoff = s.srcoff;
    }
  }
}

}  // namespace cc::gen
