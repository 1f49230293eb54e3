// Stage 5 against the byte-level brute-force reference (provenance_ref) on
// thousands of random data-flow schedules of every operator, correct and
// broken: both must agree on the verdict, on reduce errors during the
// simulation, on copies of empty bytes, and on exactly which result bytes of
// which ranks are wrong. Plus the property test of the issue: valid
// reorderings of correct AllGather/AllToAllV schedules pass, one shifted
// source fails with 407 or 406.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "pipeline/stages.h"
#include "check/semantic/semantic.h"
#include "export/jsonl.h"
#include "gen_cases.h"
#include "provenance_ref.h"
#include "random_dataflow.h"
#include "test_util.h"

namespace cc::test {
namespace {

using ByteSet = std::set<std::pair<u32, u64>>;

ByteSet wrong_bytes(const SemanticDetail& d) {
  ByteSet s;
  for (const WrongRange& w : d.wrong)
    if (w.code != 408)  // 408 marks bytes 406/407/409 already name
      for (u64 x = w.begin; x < w.end; ++x) s.insert({w.rank, x});
  return s;
}

std::string show(const ByteSet& s) {
  std::string out;
  std::size_t k = 0;
  for (auto [r, x] : s) {
    if (k++ == 12) return out + "…";
    out += fmt::format("{}:{} ", r, x);
  }
  return out;
}

constexpr OpType kAllOps[] = {OpType::AllReduce, OpType::AllGather, OpType::ReduceScatter,
                              OpType::AllGatherV, OpType::ReduceScatterV, OpType::Broadcast,
                              OpType::Reduce, OpType::Scatter, OpType::Gather,
                              OpType::AllToAll, OpType::AllToAllV, OpType::SendRecv,
                              OpType::BatchSendRecv};

struct Agreement {
  u64 cases = 0, failing = 0;
};

void compare_one(const Trace& t, Agreement& a, const std::string& label) {
  TaskGraph g = build_graph(t);
  ASSERT_TRUE(g.complete) << label;
  FindingSink sink(20);
  SemanticDetail det;
  check_semantic(t, g, sink, nullptr, &det);
  ProvenanceOutcome ref = reference_provenance(t, g);
  ASSERT_TRUE(ref.ran) << label;
  ++a.cases;
  ByteSet mine = wrong_bytes(det);
  ByteSet theirs(ref.wrong_at.begin(), ref.wrong_at.end());
  bool my_fail = sink.errors() > 0;
  a.failing += my_fail;
  std::string first = sink.findings().empty() ? "" : sink.findings()[0].message;
  EXPECT_EQ(my_fail, !ref.ok()) << label << " | first finding: " << first;
  EXPECT_EQ(det.simulation_errors > 0, ref.reduce_errors > 0) << label << " | " << first;
  EXPECT_EQ(det.empty_reads > 0, ref.empty_reads > 0) << label;
  EXPECT_EQ(mine, theirs) << label << "\n mine:   " << show(mine) << "\n theirs: " << show(theirs);
  EXPECT_EQ(det.unknown_bytes, 0u) << label;
}

TEST(SemanticDiff, AgreesWithByteReferenceOnRandomSchedules) {
  u32 rounds = long_tests() ? 1500 : scaled(250);
  for (OpType op : kAllOps) {
    Agreement a;
    for (u32 seed = 0; seed < rounds; ++seed) {
      std::mt19937_64 rng(seed * 131 + static_cast<u32>(op));
      FlowCase c = random_flow(rng, op);
      // A third stay correct; the rest get one or two faults.
      int faults = static_cast<int>(rng() % 3);
      for (int f = 0, tries = 0; f < faults && tries < 30; ++tries) f += mutate_flow(rng, c);
      std::string label = fmt::format("{} seed {} ranks {}{}: {}", name(op), seed, c.op.ranks,
                                      c.op.in_place ? " inPlace" : "", c.what);
      compare_one(flow_trace(c), a, label);
      if (HasFatalFailure() || HasFailure()) return;
    }
    // The sweep must exercise both verdicts.
    EXPECT_GT(a.failing, a.cases / 5) << name(op);
    EXPECT_LT(a.failing, a.cases) << name(op);
  }
}

std::set<u16> codes(const Trace& t) {
  CheckResult r = run_checks(t, {}, CheckOptions{});
  std::set<u16> c;
  for (const auto& [key, n] : r.totals)
    if (n) c.insert(std::get<1>(key));
  return c;
}

TEST(SemanticProperty, ValidReorderingsPassOneShiftedSourceFails) {
  u32 rounds = long_tests() ? 600 : scaled(120);
  for (OpType op : {OpType::AllGather, OpType::AllToAllV}) {
    for (u32 seed = 0; seed < rounds; ++seed) {
      std::mt19937_64 rng(seed * 7919 + static_cast<u32>(op));
      FlowCase c = random_flow(rng, op, 2 + seed % 4);
      Trace good = flow_trace(c);
      CheckResult r = run_checks(good, {}, CheckOptions{});
      ASSERT_TRUE(r.pass) << name(op) << " seed " << seed << ": "
                          << (r.findings.empty() ? "" : r.findings[0].message);
      if (!shift_one_source(rng, c)) continue;
      std::set<u16> got = codes(flow_trace(c));
      EXPECT_TRUE(got.count(407) || got.count(406)) << name(op) << " seed " << seed << ": " << c.what << " codes "
                                                    << ::testing::PrintToString(got);
      if (HasFailure()) {
        (void)write_jsonl_file(flow_trace(c), temp_path("property_fail.jsonl"));  // best effort, for a human
        return;
      }
      for (u16 x : got) EXPECT_TRUE(x == 404 || (x >= 406 && x <= 408)) << x << " " << c.what;
    }
  }
}

}  // namespace
}  // namespace cc::test
