// The worked examples of ccu.md §14: instruction words -> exact nodes and
// edges, and the checks on the expanded graph.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ccu_examples.h"
#include "graph/graph.h"
#include "graph/reach.h"

namespace cc {
namespace {

using test::CcuProgram;
using test::render_ccu;

std::string example1_rank(u32 r) {
  u32 p = 1 - r;
  std::string m = fmt::format("m{}.", r), q = fmt::format("m{}.", p);
  return fmt::format(
      "{m}0 START\n"
      "{m}1 RECORD {r}->{r} die 0 cke 0 0xffff <- {m}0\n"
      "{m}2 RECORD {r}->{p} die 0 cke 8 0x1 <- {m}1\n"
      "{m}3 WAIT die 0 cke 8 0x1 <- {lo}2 {hi}2\n"
      "{m}4 TRANS_MEM {{{r}, INPUT, 0x0, 0x100}} -> {{{p}, OUTPUT, 0x0, 0x100}} <- {m}3\n"
      "{m}5 RECORD {r}->{r} die 0 cke 1 0x1 <- {m}4\n"
      "{m}6 WAIT die 0 cke 1 0x1 <- {m}3 {m}5\n"
      "{m}7 RECORD {r}->{p} die 0 cke 9 0x1 <- {m}6\n"
      "{m}8 WAIT die 0 cke 9 0x1 <- {lo}7 {hi}7\n"
      "{m}9 END <- {m}8\n",
      fmt::arg("m", m), fmt::arg("r", r), fmt::arg("p", p), fmt::arg("lo", r < p ? m : q),
      fmt::arg("hi", r < p ? q : m));
}

TEST(CcuExpand, WorkedExample1) {
  test::Expanded e = test::expand_text(test::spec_example1().text());
  EXPECT_EQ(test::expansion_codes(e, true), std::vector<u16>{});
  EXPECT_EQ(render_ccu(e.trace), example1_rank(0) + example1_rank(1) +
                                     "m0.9 -> host 0/0/0\n"
                                     "m1.9 -> host 1/0/0\n");
  // Rank 0 started first and blocked at word 5 until rank 1's SyncCKE.
  CheckResult r = run_checks(e.trace, {}, CheckOptions{.stages = kStageGraph | kStageSingle | kStageSync | kStageMem});
  EXPECT_TRUE(r.pass);
  // D_0 writes rank 1's OUTPUT after Rr_1 and before Wd_1 (§14.1).
  TaskGraph g = build_graph(e.trace);
  ASSERT_TRUE(g.complete);
  Reachability reach(e.trace, g);
  auto task = [&](u32 mission, u32 i) {
    const CcuMission& m = e.trace.ccu.missions[mission];
    for (const Stream& s : e.trace.streams)
      if (s.rank == m.rank && s.id == m.stream) return s.first_task + i;
    return kNone;
  };
  EXPECT_TRUE(reach.happens_before(task(1, 2), task(0, 4)));
  EXPECT_TRUE(reach.happens_before(task(0, 4), task(1, 8)));
  // The two transfers are concurrent (they write different ranks).
  EXPECT_FALSE(reach.happens_before(task(0, 4), task(1, 4)));
  EXPECT_FALSE(reach.happens_before(task(1, 4), task(0, 4)));
}

// §14.1 variations.
TEST(CcuExpand, WorkedExample1DroppedWaitIs103) {
  CcuProgram p = test::spec_example1();
  // Word 7 (wait on cke 1) becomes a wait on nothing.
  for (std::string& l : p.lines)
    if (l.find("\"image\"") != std::string::npos) {
      std::string w7 = ccu::word_hex(test::a5::clear_cke(1, 1)), none = ccu::word_hex(test::a5::clear_cke(0, 0));
      l.replace(l.find(w7), w7.size(), none);
    }
  test::Expanded e = test::expand_text(p.text());
  EXPECT_EQ(test::expansion_codes(e), (std::vector<u16>{103, 103}));
}

TEST(CcuExpand, WorkedExample1NobodySetsCke1Is102) {
  CcuProgram p = test::spec_example1();
  for (std::string& l : p.lines)
    if (l.find("\"image\"") != std::string::npos) {
      std::string w6 = ccu::word_hex(test::a5::loc_mem_to_rmt_mem(2, 1, 1, 0, {.set_id = 1, .set_mask = 1}, {}, 3, 4));
      std::string no_set = ccu::word_hex(test::a5::loc_mem_to_rmt_mem(2, 1, 1, 0, {}, {}, 3, 4));
      l.replace(l.find(w6), w6.size(), no_set);
    }
  test::Expanded e = test::expand_text(p.text());
  EXPECT_EQ(test::expansion_codes(e), (std::vector<u16>{102, 102}));
  CheckResult r = run_checks(e.trace, e.findings, {});
  EXPECT_FALSE(r.pass);
  // The host graph's own deadlock report leaves the CCU part to the expansion.
  EXPECT_EQ(test::error_codes(r), std::vector<u16>{102});
  EXPECT_EQ(r.totals.at({Severity::Error, 102, ""}), 2u);
}

TEST(CcuExpand, WorkedExample1WrongChannelIs112) {
  CcuProgram p = test::spec_example1();
  for (std::string& l : p.lines)
    if (l.find("\"channel\",\"rank\":0") != std::string::npos) l = l.replace(l.find("\"dstRank\":1"), 11, "\"dstRank\":0");
  test::Expanded e = test::expand_text(p.text());
  // Rank 0's write resolves into rank 1's OUTPUT: 112 (and rank 1, whose
  // "ready" never arrives, deadlocks).
  EXPECT_EQ(test::expansion_codes(e), (std::vector<u16>{102, 112}));
}

std::string example2_lane(u32 e, u32 base, u32 start_parent) {
  std::string out;
  auto n = [&](u32 i) { return fmt::format("m0.{}", base + i); };
  out += fmt::format("{} START(LOOP 12 copy {} x2) <- m0.{}\n", n(0), e, start_parent);
  u32 prev = 0;  // the node the iteration starts after
  for (u32 t = 0; t < 2; ++t) {
    u32 b = 1 + 6 * t;
    out += fmt::format("{} TRANS_MEM {{0, INPUT, {:#x}, 0x100}} -> {{0, MS, {:#x}, 0x100}} <- {}\n", n(b),
                       e * 0x200 + t * 0x100, 0x800'0000 + e * 0x1000, n(prev));
    out += fmt::format("{} RECORD 0->0 die 0 cke {} 0x1 <- {}\n", n(b + 1), 2 + e, n(b));
    out += fmt::format("{} WAIT die 0 cke {} 0x1 <- {} {}\n", n(b + 2), 2 + e, n(prev), n(b + 1));
    out += fmt::format("{} TRANS_MEM {{0, MS, {:#x}, 0x100}} -> {{0, OUTPUT, {:#x}, 0x100}} <- {}\n", n(b + 3),
                       0x800'0000 + e * 0x1000, e * 0x200 + t * 0x100, n(b + 2));
    out += fmt::format("{} RECORD 0->0 die 0 cke {} 0x1 <- {}\n", n(b + 4), 4 + e, n(b + 3));
    out += fmt::format("{} WAIT die 0 cke {} 0x1 <- {} {}\n", n(b + 5), 4 + e, n(b + 2), n(b + 4));
    prev = b + 5;
  }
  out += fmt::format("{} END(LOOP 12 copy {}) <- {}\n", n(13), e, n(12));
  return out;
}

TEST(CcuExpand, WorkedExample2Unrolled) {
  test::Expanded e = test::expand_text(test::spec_example2().text());
  EXPECT_EQ(test::expansion_codes(e, true), std::vector<u16>{});
  EXPECT_EQ(render_ccu(e.trace), "m0.0 START\n" + example2_lane(0, 1, 0) + example2_lane(1, 15, 0) +
                                     "m0.29 END <- m0.14 m0.28\n"
                                     "m0.29 -> host 0/0/0\n");
  CheckResult r = run_checks(e.trace, {}, {});
  EXPECT_EQ(test::error_codes(r), std::vector<u16>{});
}

TEST(CcuExpand, WorkedExample2Merged) {
  test::Expanded e = test::expand_text(test::spec_example2().text(), {.loop_merge = true});
  EXPECT_EQ(test::expansion_codes(e, true), std::vector<u16>{});
  EXPECT_EQ(render_ccu(e.trace),
            "m0.0 START\n"
            "m0.1 START(LOOP 12 merged 2x2) <- m0.0\n"
            "m0.2 BATCH_TRANS_MEM {0, INPUT, 0x0, 0x100} -> {0, MS, 0x8000000, 0x100} | {0, INPUT, 0x100, 0x100} -> "
            "{0, MS, 0x8000000, 0x100} | {0, INPUT, 0x200, 0x100} -> {0, MS, 0x8001000, 0x100} | {0, INPUT, 0x300, "
            "0x100} -> {0, MS, 0x8001000, 0x100} <- m0.1\n"
            "m0.3 RECORD 0->0 die 0 cke 2 0x1 <- m0.2\n"
            "m0.4 WAIT die 0 cke 2 0x1 <- m0.1 m0.3\n"
            "m0.5 BATCH_TRANS_MEM {0, MS, 0x8000000, 0x100} -> {0, OUTPUT, 0x0, 0x100} | {0, MS, 0x8000000, 0x100} -> "
            "{0, OUTPUT, 0x100, 0x100} | {0, MS, 0x8001000, 0x100} -> {0, OUTPUT, 0x200, 0x100} | {0, MS, 0x8001000, "
            "0x100} -> {0, OUTPUT, 0x300, 0x100} <- m0.4\n"
            "m0.6 RECORD 0->0 die 0 cke 4 0x1 <- m0.5\n"
            "m0.7 WAIT die 0 cke 4 0x1 <- m0.4 m0.6\n"
            "m0.8 END(LOOP 12 merged) <- m0.7\n"
            "m0.9 END <- m0.8\n"
            "m0.9 -> host 0/0/0\n");
  CheckResult r = run_checks(e.trace, {}, {});
  EXPECT_EQ(test::error_codes(r), std::vector<u16>{});
}

// §14.2 variation: without word 2 the slot is reused unordered and cke 4 is
// posted twice before one wait.
TEST(CcuExpand, WorkedExample2WithoutClearIsAConflict) {
  CcuProgram p = test::spec_example2();
  for (std::string& l : p.lines)
    if (l.find("\"image\"") != std::string::npos) {
      std::string w2 = ccu::word_hex(test::a5::clear_cke(4, 1)), none = ccu::word_hex(test::a5::clear_cke(0, 0));
      l.replace(l.find(w2), w2.size(), none);
      // ... and the wait on cke 4 after the LoopGroup (word 13 waits on cke 4 and 5).
      std::string w13 = ccu::word_hex(test::a5::load_imm_xn(0, 0));
      l.replace(l.rfind(w13), w13.size(), ccu::word_hex(test::a5::clear_cke(4, 1)));
    }
  test::Expanded e = test::expand_text(p.text());
  CheckResult r = run_checks(e.trace, e.findings, {});
  std::vector<u16> codes = test::error_codes(r);
  EXPECT_NE(std::find(codes.begin(), codes.end(), 302), codes.end()) << fmt::format("{}", fmt::join(codes, ","));
  // Both posts of cke 4 (iterations 0 and 1 of copy 0) feed the one wait.
  EXPECT_NE(render_ccu(e.trace).find("WAIT die 0 cke 4 0x1 <- m0.6 m0.11 m0.12 m0.24"), std::string::npos)
      << render_ccu(e.trace);
}

}  // namespace
}  // namespace cc
