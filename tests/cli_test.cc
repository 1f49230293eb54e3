#include <gtest/gtest.h>

#include "test_util.h"

namespace cc::test {
namespace {

// The command of the README's first step, on the bundled example.
TEST(Cli, ReadmeExamplePasses) {
  RunResult r = run_collcheck("check " + source_dir() + "/examples/allgather2.jsonl");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": PASS (0 errors; 0 warnings) ranks=2 tasks=12 in "), std::string::npos) << r.out;
}

TEST(Cli, VersionAndHelp) {
  RunResult v = run_collcheck("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("collcheck ", 0), 0u) << v.out;
  for (const char* sub : {"check", "stats", "dot"}) {
    RunResult h = run_collcheck(std::string(sub) + " --help");
    EXPECT_EQ(h.status, 0) << sub;
    EXPECT_NE(h.out.find("INPUT"), std::string::npos) << sub << h.out;
  }
}

TEST(Cli, BadOptionIsExit2) {
  EXPECT_EQ(run_collcheck("check --no-such-option x").status, 2);
  EXPECT_EQ(run_collcheck("check").status, 2);
  EXPECT_EQ(run_collcheck("check /no/such/file").status, 2);
  EXPECT_EQ(run_collcheck("check --stages graph,bogus " + source_dir() + "/examples/allgather2.jsonl").status, 2);
}

TEST(Cli, DirectoryInParallelKeepsInputOrder) {
  std::string dir = source_dir() + "/tests/cases/graph";
  RunResult one = run_collcheck("check -q -j1 " + dir);
  RunResult two = run_collcheck("check -q -j2 " + dir);
  EXPECT_EQ(one.status, 1);
  EXPECT_EQ(two.status, 1);
  // Timings differ between runs; the order and verdicts must not.
  auto strip = [](std::string s) {
    std::string out;
    std::size_t pos = 0;
    while ((pos = s.find(" in ")) != std::string::npos) {
      out += s.substr(0, pos);
      s = s.substr(s.find('\n', pos) + 1);
      out += "\n";
    }
    return out;
  };
  EXPECT_EQ(strip(one.out), strip(two.out));
  EXPECT_NE(one.out.find("102_cycle.jsonl: FAIL"), std::string::npos);
}

TEST(Cli, ErrorPrecedenceAndJsonToStdout) {
  std::string ok = source_dir() + "/examples/allgather2.jsonl";
  std::string bad = source_dir() + "/tests/cases/malformed/garbage.jsonl";
  std::string fail = source_dir() + "/tests/cases/graph/102_cycle.jsonl";
  RunResult r = run_collcheck("check -q " + fail + " " + bad + " " + ok);
  EXPECT_EQ(r.status, 2) << "2 takes precedence over 1";
  EXPECT_NE(r.err.find("collcheck: error: "), std::string::npos);
  RunResult j = run_collcheck("check --json - " + ok);
  EXPECT_EQ(j.status, 0);
  EXPECT_EQ(j.out.rfind("{\"tool\":\"collcheck\"", 0), 0u) << j.out;
  EXPECT_NE(j.err.find("PASS"), std::string::npos) << "the human report moves to stderr";
}

TEST(Cli, StatsAndDot) {
  std::string ok = source_dir() + "/examples/allgather2.jsonl";
  RunResult s = run_collcheck("stats " + ok);
  EXPECT_EQ(s.status, 0);
  EXPECT_NE(s.out.find("TRANS_MEM        4"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("4 RECORD->WAIT edges"), std::string::npos) << s.out;
  RunResult d = run_collcheck("dot " + ok);
  EXPECT_EQ(d.status, 0);
  EXPECT_EQ(d.out.rfind("digraph collcheck {", 0), 0u);
  EXPECT_NE(d.out.find("style=dashed, color=blue"), std::string::npos);
}

}  // namespace
}  // namespace cc::test
