// The named mutants of algorithms.md §17 (F1–F21) and its table of
// position-dependent and equivalent mutants, with the codes the spec gives.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "pipeline/stages.h"
#include "mutate/faults.h"
#include "gen/registry.h"
#include "mutate/trace_edit.h"
#include "mutant_check.h"

namespace cc::test {
namespace {

using mutate::FaultKind;
using Codes = std::set<u16>;

struct Pos {
  u32 rank, stream, index;
};

u32 task_at(const Trace& t, Pos p) {
  for (const Stream& s : t.streams)
    if (s.rank == p.rank && s.id == p.stream && p.index < s.task_count) return s.first_task + p.index;
  ADD_FAILURE() << fmt::format("no task {}/{}/{}", p.rank, p.stream, p.index);
  return 0;
}

Trace schedule(const std::string& algo, OpType op, u32 n, u64 count, u64 ccl = gen::kDefaultCclBytes,
               bool physical = false) {
  gen::GenParams p;
  p.op = op;
  p.ranks = n;
  p.count = count;
  p.ccl_bytes = ccl;
  p.physical_notify = physical;
  Result<Trace> t = gen::generate(algo, p, true);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

Trace ring_ag(u32 n = 4, bool physical = false) { return schedule("ring", OpType::AllGather, n, 64, gen::kDefaultCclBytes, physical); }

Trace fault(const Trace& t, FaultKind k, mutate::Site s) {
  Result<mutate::Applied> a = mutate::apply_fault(t, k, s);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().message);
  return a.ok() ? std::move(a->trace) : Trace{};
}

Trace remove(const Trace& t, std::vector<Pos> where) {
  mutate::TraceEdit e(t);
  for (Pos p : where) e.remove(task_at(t, p));
  return e.finish();
}

// Codes found: errors and the 404 warning (902 only says a stage was skipped).
Codes errors(const Trace& t) {
  CheckResult r = run_checks(t, {}, CheckOptions{});
  Codes c;
  for (const auto& [key, n] : r.totals)
    if (n && std::get<1>(key) != 902 && std::get<1>(key) != 0) c.insert(std::get<1>(key));
  return c;
}

std::string text(const Codes& c) {
  std::string s;
  for (u16 x : c) s += fmt::format("{} ", x);
  return s.empty() ? "none" : s;
}

// Every code of `want` is found ("other codes may accompany", §17).
void expect_codes(const Trace& t, Codes want) {
  Codes got = errors(t);
  for (u16 c : want) EXPECT_TRUE(got.count(c)) << "missing " << c << "; found " << text(got);
}
// Exactly these codes (where the table says "only" or "no finding").
void expect_only(const Trace& t, Codes want) { EXPECT_EQ(text(errors(t)), text(want)); }

// Tasks of ring AllGather, op-base, rank r's stream 0 (§2 worked example):
// 0 pre-copy, 1 own copy, step i at 2+5i: REC(prev,READY) WT(next,READY)
// REC(next,FIN) WT(prev,FIN) COPY; the barrier after the last step.
Pos ag_step(u32 r, u32 step, u32 k) { return {r, 0, 2 + 5 * step + k}; }

bool semantic() {
  static bool s = semantic_stage_runs();
  return s;
}
#define NEEDS_SEMANTIC() \
  if (!semantic()) GTEST_SKIP() << "stage 5 (SemanticCheck) is not in run_checks yet"

TEST(FaultTable, F1DroppedWaitGuardingARead) {
  Trace t = ring_ag();
  expect_codes(remove(t, {ag_step(1, 1, 3)}), {302, 103});
}

TEST(FaultTable, F2DroppedReadyIsOnlyUnmatched) {
  expect_only(remove(ring_ag(), {ag_step(1, 1, 1)}), {103});
}

TEST(FaultTable, F3HandshakeDroppedBeforeWritingIntoAPeer) {
  // ReduceScatter mesh1D, n = 4, two iterations of c = 128 bytes; per
  // iteration a slave runs LWT(M2S) REC(ACK) WT(ACK) COPY REC(DATA) WT(DATA) LREC(S2M).
  Trace t = schedule("mesh1d", OpType::ReduceScatter, 4, 64, 512);
  Trace m = remove(t, {{0, 1, 7 + 1}, {1, 3, 7 + 2}});
  Codes got = errors(m);
  EXPECT_TRUE(got.count(302)) << text(got);
  EXPECT_FALSE(got.count(103)) << text(got);
}

TEST(FaultTable, F4SwappedNotifyIds) {
  for (bool physical : {false, true}) {
    Trace t = ring_ag(4, physical);
    Trace m = fault(t, FaultKind::SwapNotify, {task_at(t, ag_step(1, 1, 0)), task_at(t, ag_step(1, 1, 2))});
    Codes got = errors(m);
    if (!physical) {
      expect_only(m, {102, 103});
    } else {
      EXPECT_TRUE(got.count(102) || got.count(602) || got.count(302)) << text(got);
    }
  }
}

TEST(FaultTable, F5RecordToTheWrongPeer) {
  Trace t = ring_ag();
  expect_only(fault(t, FaultKind::RetargetRecord, {task_at(t, ag_step(1, 1, 2)), kNone, 3}), {102, 103});
}

TEST(FaultTable, F6DroppedRecord) {
  Codes got = errors(remove(ring_ag(), {ag_step(1, 1, 0)}));
  EXPECT_TRUE(got.count(102)) << text(got);
}

// Mesh AllGather n = 4, rank 1's s1: LWT(M2S,1) REC WT REC WT COPY(0.OUT[0]) BARRIER LREC(S2M,1).
TEST(FaultTable, F7OffByOneDestination) {
  NEEDS_SEMANTIC();
  Trace t = schedule("mesh", OpType::AllGather, 4, 64);
  u32 copy = task_at(t, {1, 1, 5});
  expect_codes(fault(t, FaultKind::ShiftDst, {copy}), {302, 406, 407, 404});
  // When the overlapped neighbour is written on the same stream and read by
  // no one else, only the semantic codes: ring AllGather's first post-copy.
  // (A ring step's copy shifted into the block the successor reads at the
  // same time is a real 302.)
  Trace r = ring_ag();
  Codes step0 = errors(fault(r, FaultKind::ShiftDst, {task_at(r, ag_step(1, 0, 4))}));
  EXPECT_TRUE(step0.count(302)) << text(step0);
  Codes got = errors(fault(r, FaultKind::ShiftDst, {task_at(r, {1, 0, 21})}));
  EXPECT_FALSE(got.count(302)) << text(got);
  EXPECT_TRUE(has_semantic_error({got.begin(), got.end()})) << text(got);
  // 201 when the shift crosses the buffer end (the last post-copy into OUTPUT).
  Codes end = errors(fault(r, FaultKind::ShiftDst, {task_at(r, {1, 0, 24})}));
  EXPECT_TRUE(end.count(201)) << text(end);
}

TEST(FaultTable, F8OffByOneSource) {
  NEEDS_SEMANTIC();
  Trace t = ring_ag();
  expect_codes(fault(t, FaultKind::ShiftSrc, {task_at(t, ag_step(1, 1, 4))}), {407, 404});
}

TEST(FaultTable, F9WrongPeerInACopy) {
  NEEDS_SEMANTIC();
  Trace t = schedule("mesh", OpType::AllGather, 4, 64);
  Codes got = errors(fault(t, FaultKind::WrongPeer, {task_at(t, {1, 1, 5}), 0, 2}));
  EXPECT_TRUE(got.count(302) && got.count(404) && (got.count(406) || got.count(407))) << text(got);
}

TEST(FaultTable, F10WrongPeerInAReduce) {
  NEEDS_SEMANTIC();
  // Ring ReduceScatter, rank 2: pre-copy, REC WT REC (offer), WT(prev,FIN), RED.
  Trace t = schedule("ring", OpType::ReduceScatter, 4, 64);
  Codes got = errors(fault(t, FaultKind::WrongPeer, {task_at(t, {2, 0, 5}), 0, 0}));
  EXPECT_TRUE(got.count(302) && got.count(403) && got.count(407)) << text(got);
}

TEST(FaultTable, F11MissingFinalCopy) {
  NEEDS_SEMANTIC();
  expect_codes(remove(ring_ag(), {{1, 0, 21}}), {406});
}

TEST(FaultTable, F12WrongReduceOp) {
  NEEDS_SEMANTIC();
  Trace t = schedule("ring", OpType::AllReduce, 4, 256);
  std::vector<u32> reds;
  for (u32 id = 0; id < t.tasks.size(); ++id)
    if (t.tasks[id].type == TaskType::REDUCE) reds.push_back(id);
  // §17 gives 403 and 409; checks.md's 409 is "one uniform but wrong reduce
  // op", which a mixed result is not, and stage 5 follows checks.md.
  expect_codes(fault(t, FaultKind::WrongReduceOp, {reds[0]}), {403});
  mutate::TraceEdit all(t);
  for (u32 id : reds) all.task(id).reduce_op = ReduceOp::MAX;
  expect_only(all.finish(), {409});
}

TEST(FaultTable, F13DuplicatedReduce) {
  NEEDS_SEMANTIC();
  Trace t = schedule("ring", OpType::ReduceScatter, 4, 64);
  Codes got = errors(fault(t, FaultKind::DuplicateReduce, {task_at(t, {2, 0, 5})}));
  EXPECT_TRUE(got.count(403)) << text(got);
}

TEST(FaultTable, F14CclSlotReusedWithoutHandshake) {
  // Send/Recv with 3 chunks. Sender per chunk: COPY REC(READY) WT(READY) REC(FIN) WT(FIN);
  // receiver: REC(READY) WT(READY) WT(FIN) COPY REC(FIN) COPY.
  gen::GenParams p;
  p.op = OpType::SendRecv;
  p.ranks = 2;
  p.count = 1000;
  p.dtype = DataType::INT8;
  p.ccl_bytes = 384;
  Trace t = *gen::generate("send-recv", p, true);
  Codes got = errors(remove(t, {{0, 0, 4}, {1, 0, 4}}));
  EXPECT_TRUE(got.count(302)) << text(got);
}

// Mesh AllGather n = 4, rank 1: s1 = LWT(M2S,1) … LREC(S2M,1) (11 tasks);
// s0 = 2 copies, LREC(M2S,1), LREC(M2S,2), round 3 (9 tasks), LWT(S2M,1) at 13.
TEST(FaultTable, F15SlaveWithoutClosingRecord) {
  expect_codes(remove(schedule("mesh", OpType::AllGather, 4, 64), {{1, 1, 10}}), {203, 102});
}

TEST(FaultTable, F16SlaveWithoutClosingRecordAndItsWait) {
  Trace t = schedule("mesh", OpType::AllGather, 4, 64);
  const Task& w = t.tasks[task_at(t, {1, 0, 13})];
  ASSERT_TRUE(w.type == TaskType::WAIT && w.peer() == 1 && w.notify() == 0x16);
  expect_codes(remove(t, {{1, 1, 10}, {1, 0, 13}}), {203, 302});
}

TEST(FaultTable, F17SlaveNotStartingWithAWait) {
  expect_codes(remove(schedule("mesh", OpType::AllGather, 4, 64), {{1, 1, 0}}), {203, 103, 302});
}

TEST(FaultTable, F18WritePastTheBufferEnd) {
  Trace t = ring_ag();
  EXPECT_TRUE(errors(fault(t, FaultKind::GrowSlice, {task_at(t, {1, 0, 1})})).count(201));
}

TEST(FaultTable, F19SourceAndDestinationOverlap) {
  Trace t = ring_ag();
  // COPY INPUT_CCL[0,+256) → OUTPUT_CCL[256,+256) becomes … → INPUT_CCL[128,+256).
  Trace m = fault(t, FaultKind::OverlapSlice, {task_at(t, {1, 0, 1})});
  const Slice& d = m.slices[m.group(m.tasks[task_at(m, {1, 0, 1})], 0).dst];
  EXPECT_EQ(m.buffers.name(d.buf), "INPUT_CCL");
  EXPECT_EQ(d.offset, 128u);
  EXPECT_TRUE(errors(m).count(202));
}

TEST(FaultTable, F20NotifyPostedAgainBeforeItsUseIsConsumed) {
  for (bool physical : {true, false}) {
    Trace t = ring_ag(4, physical);
    Trace m = fault(t, FaultKind::EarlyRecord, {task_at(t, ag_step(1, 1, 0)), task_at(t, ag_step(1, 0, 3))});
    if (physical) {
      expect_codes(m, {602});
    } else {
      expect_only(m, {});  // harmless in unique mode
    }
  }
}

TEST(FaultTable, F21EveryoneWaitsBeforePosting) {
  Trace t = ring_ag();
  Trace m = fault(t, FaultKind::WaitBeforeRecord, {kNone, kNone, 2});
  CheckResult r = run_checks(m, {}, CheckOptions{});
  bool cycle = false;
  for (const Finding& f : r.findings)
    for (const std::string& d : f.details)
      if (f.code == 102 && d.find("Wait-for cycle: rank0/s0 → rank1/s0 → rank2/s0 → rank3/s0 → rank0/s0") !=
                               std::string::npos)
        cycle = true;
  EXPECT_TRUE(cycle);
  expect_only(m, {102});
}

// §17 "faults seen in real HCCL code": NHR ReduceScatter, non-inline, last
// step with IN ≠ OUT loses the staged peer data: 403/409.
TEST(FaultTable, HcclNhrStagingDefect) {
  gen::GenParams p;
  p.op = OpType::ReduceScatter;
  p.ranks = 4;
  p.count = 64;
  p.non_inline = true;
  Result<Trace> ok = gen::generate("nhr", p, true);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(errors(*ok).empty()) << text(errors(*ok));
  p.nhr_staging_bug = true;
  Result<Trace> bad = gen::generate("nhr", p, true);
  ASSERT_TRUE(bad.ok());
  Codes got = errors(*bad);
  if (semantic()) {
    EXPECT_TRUE(got.count(403) || got.count(409)) << text(got);
  }
  p.non_inline = false;
  EXPECT_FALSE(gen::generate("nhr", p, true).ok());  // only the non-inline variant has the defect
}

// §17 position-dependent table, row 1: reading block x from ⟨r−2⟩.
TEST(FaultTablePositions, RingAllGatherReadFromTwoBack) {
  for (u32 n = 3; n <= 8; ++n) {
    Trace t = ring_ag(n);
    for (u32 r = 0; r < n; ++r)
      for (u32 step = 0; step + 1 < n; ++step) {
        u32 copy = task_at(t, ag_step(r, step, 4));
        Trace m = fault(t, FaultKind::WrongPeer, {copy, 0, (r + n - 2) % n});
        Codes got = errors(m);
        if (step >= 1) {
          EXPECT_TRUE(got.empty()) << "n=" << n << " r=" << r << " step " << step << ": " << text(got);
          EXPECT_EQ(reference_verdict(m).why, "") << n << " " << r << " " << step;
        } else if (semantic()) {
          EXPECT_TRUE(got.count(404) && (got.count(406) || got.count(407)) && !got.count(302))
              << "n=" << n << " r=" << r << ": " << text(got);
        }
      }
  }
}

// Row 2: the final barrier of one iteration deleted on every rank.
TEST(FaultTablePositions, RingAllGatherBarrierOfOneIteration) {
  for (u32 n = 2; n <= 6; ++n) {
    // 2 iterations: AllGather's piece is ⌊C/n/128⌋·128 bytes.
    Trace t = schedule("ring", OpType::AllGather, n, 64, u64{128} * n);
    u32 per_iter = 2 + 5 * (n - 1) + 4 + n;  // pre, own, steps, barrier, post-copies
    for (u32 iter = 0; iter < 2; ++iter) {
      std::vector<Pos> del;
      for (u32 r = 0; r < n; ++r)
        for (u32 k = 0; k < 4; ++k) del.push_back({r, 0, iter * per_iter + 2 + 5 * (n - 1) + k});
      Trace m = remove(t, del);
      Codes got = errors(m);
      if (n >= 3) {
        EXPECT_TRUE(got.empty()) << "n=" << n << " iteration " << iter << ": " << text(got);
      } else if (iter == 0) {  // the last iteration's barrier protects nothing after it
        EXPECT_TRUE(got.count(302)) << "n=2: " << text(got);
        if (semantic()) {
          EXPECT_TRUE(has_semantic_error({got.begin(), got.end()})) << text(got);
        }
      }
    }
  }
}

// Row 3: pairwise AllToAllV (op-base), the second READY/FIN pair between a
// sender and its receiver in step i deleted. One chunk per direction: step i
// of rank r is 11 tasks from 1 + 11(i−1): REC(pv,R) | WT(nx,R) COPY REC(nx,F) |
// WT(pv,F) COPY COPY REC(pv,R) | WT(nx,R) REC(nx,F) | WT(pv,F).
TEST(FaultTablePositions, PairwiseSecondHandshake) {
  for (u32 n = 2; n <= 8; ++n) {
    gen::GenParams p;
    p.op = OpType::AllToAllV;
    p.ranks = n;
    p.send_counts.assign(u64{n} * n, 16);
    Trace t = *gen::generate("pairwise", p, true);
    for (u32 i = 1; i < n; ++i) {
      u32 r = 0, nx = i % n, base = 1 + 11 * (i - 1);
      Trace m = remove(t, {{r, 0, base + 8}, {r, 0, base + 9}, {nx, 0, base + 7}, {nx, 0, base + 10}});
      Codes got = errors(m);
      bool harmful = (n == 5 && (i == 2 || i == 3)) || (n == 6 && (i == 2 || i == 4));
      if (n > 6 && i + 1 < n) continue;  // the table names n ≤ 6, and the last step for any n
      if (harmful) {
        EXPECT_TRUE(got.count(302)) << "n=" << n << " step " << i << ": " << text(got);
      } else {
        EXPECT_TRUE(got.empty()) << "n=" << n << " step " << i << ": " << text(got);
      }
    }
  }
}

}  // namespace
}  // namespace cc::test
