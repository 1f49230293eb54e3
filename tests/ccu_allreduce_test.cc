// CCU AllReduce programs of 2, 4 and 8 ranks PASS; each mutant FAILs with
// its codes (unit level and through the binary).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "ccu_allreduce.h"
#include "test_util.h"

namespace cc {
namespace {

using test::AllReduceMutant;

bool has(const std::vector<u16>& v, u16 c) { return std::find(v.begin(), v.end(), c) != v.end(); }

std::string codes_text(const CheckResult& r) {
  std::string s;
  for (const Finding& f : r.findings) s += fmt::format("{} {}\n", f.code, f.message);
  return s;
}

TEST(CcuAllReduce, Passes) {
  for (u32 n : {2u, 4u, 8u})
    for (bool merge : {false, true}) {
      test::CcuProgram p = test::ccu_allreduce(n);
      CheckResult r = test::check_text(p.text(), {.loop_merge = merge});
      EXPECT_TRUE(r.pass) << n << " ranks\n" << codes_text(r);
      EXPECT_EQ(r.warnings, 0u) << codes_text(r);
    }
  // Eight ranks need 3 + 2*7 = 17 arguments: two SQEs per mission.
  test::Expanded e = test::expand_text(test::ccu_allreduce(8).text());
  EXPECT_EQ(e.trace.ccu.sqes.size(), 16u);
  EXPECT_EQ(e.trace.ccu.missions.size(), 8u);
}

TEST(CcuAllReduce, MutantsFail) {
  struct Case {
    AllReduceMutant mutant;
    u16 code;
  };
  for (u32 n : {2u, 4u})
    for (Case c : {Case{AllReduceMutant::DropSetCke, 102}, {AllReduceMutant::WrongChannel, 112},
                   {AllReduceMutant::LoopCountPlusOne, 302}, {AllReduceMutant::LoopCountPlusOneLast, 110},
                   {AllReduceMutant::UnalignedLoad, 201}}) {
      SCOPED_TRACE(fmt::format("{} ranks, mutant {}", n, static_cast<int>(c.mutant)));
      CheckResult r = test::check_text(test::ccu_allreduce(n, c.mutant).text());
      EXPECT_FALSE(r.pass);
      EXPECT_TRUE(has(test::error_codes(r), c.code)) << codes_text(r);
    }
  // The dropped SetCKE also leaves SyncCKE with nothing to send.
  test::Expanded e = test::expand_text(test::ccu_allreduce(2, AllReduceMutant::DropSetCke).text());
  std::vector<std::string> tags = test::warning_tags(e);
  EXPECT_TRUE(std::find(tags.begin(), tags.end(), "CCU-W-SYNC-EMPTY") != tags.end());
}

TEST(CcuAllReduce, ThroughTheBinary) {
  struct Case {
    AllReduceMutant mutant;
    int exit;
    const char* code;
  };
  for (u32 n : {2u, 4u})
    for (Case c : {Case{AllReduceMutant::None, 0, ""}, {AllReduceMutant::DropSetCke, 1, "[ErrorCode: 102]"},
                   {AllReduceMutant::WrongChannel, 1, "[ErrorCode: 112]"},
                   {AllReduceMutant::LoopCountPlusOne, 1, "[ErrorCode: 302]"},
                   {AllReduceMutant::UnalignedLoad, 1, "[ErrorCode: 201]"}}) {
      std::string path = test::temp_path(fmt::format("ccu_allreduce_{}_{}.jsonl", n, static_cast<int>(c.mutant)));
      std::ofstream(path) << test::ccu_allreduce(n, c.mutant).text();
      test::RunResult r = test::run_collcheck(fmt::format("check -j1 '{}'", path));
      EXPECT_EQ(r.status, c.exit) << path << "\n" << r.out << r.err;
      if (*c.code) {
        EXPECT_NE(r.out.find(c.code), std::string::npos) << r.out;
      }
      test::RunResult merged = test::run_collcheck(fmt::format("check -j1 --ccu-loop-merge '{}'", path));
      EXPECT_EQ(merged.status, c.exit) << merged.out;
    }
}

}  // namespace
}  // namespace cc
