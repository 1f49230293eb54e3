// --threads never changes a report: every golden case (golden_cases.h) is
// checked with 1, 2 and 8 threads inside its operator, and the text report,
// the JSON report, SARIF, JUnit XML and the HTML page must be the same bytes apart from the
// measured times (test_util.h, without_times), as must the exit status and
// standard error. The threads are used by the HCCL VM reader (its task
// tables) and by stage 4 (memory domains in shards, docs/MEMCONFLICT.md);
// a result that depended on which thread finished first, or on how the
// domains were split, would show here. One binary start per case and
// thread count writes all five reports; under the sanitizers
// (COLLCHECK_QUICK_TESTS) every sixteenth case runs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "gen_cases.h"
#include "golden_cases.h"
#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

struct AllReports {
  int status = -1;
  std::string text, err, json, sarif, junit, html;
};

AllReports reports_with(const GoldenCase& c, const fs::path& dir, unsigned threads) {
  std::string json = (dir / "report.json").string(), sarif = (dir / "report.sarif").string(),
              junit = (dir / "report.xml").string(), html = (dir / "report.html").string();
  for (const std::string& f : {json, sarif, junit, html}) fs::remove(f);
  RunResult r = run_collcheck(fmt::format("check -j1 --threads {} --json {} --sarif {} --junit {} --html {} {} '{}'",
                                          threads, json, sarif, junit, html, c.args, c.path));
  AllReports out;
  out.status = r.status;
  out.text = without_times(r.out);
  out.err = r.err;
  out.json = without_times(slurp(json));
  out.sarif = without_times(slurp(sarif));
  out.junit = without_times(slurp(junit));
  out.html = without_times(slurp(html));
  return out;
}

class ThreadsDeterminism : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ThreadsDeterminism, ReportsAreTheSameAtEveryThreadCount) {
  const GoldenCase& c = GetParam();
  if (c.exit == -2) GTEST_SKIP() << "no expectation (Golden.Case fails it)";
  static const std::vector<GoldenCase> all = discover_golden_cases();
  auto at = std::find_if(all.begin(), all.end(), [&](const GoldenCase& x) { return x.path == c.path; });
  // Under the sanitizers every sixteenth case: there the point is memory
  // errors on the threaded paths, which Golden.Case already runs (at every
  // core) for every case; the release run compares them all.
  if (quick_tests() && (at - all.begin()) % 16 != 0) GTEST_SKIP() << "COLLCHECK_QUICK_TESTS: every sixteenth case";
  fs::path dir = temp_path("threads-" + golden_case_name(c.path));
  fs::remove_all(dir);
  fs::create_directories(dir);
  AllReports one = reports_with(c, dir, 1);
  EXPECT_EQ(one.status, c.exit) << one.err;
  if (c.exit == 0 || c.exit == 1) {
    EXPECT_FALSE(one.json.empty());
    EXPECT_FALSE(one.sarif.empty());
    EXPECT_FALSE(one.junit.empty());
    EXPECT_FALSE(one.html.empty());
  }
  for (unsigned threads : {2u, 8u}) {
    AllReports many = reports_with(c, dir, threads);
    EXPECT_EQ(many.status, one.status) << "--threads " << threads;
    EXPECT_EQ(many.text, one.text) << "--threads " << threads;
    EXPECT_EQ(many.err, one.err) << "--threads " << threads;
    EXPECT_EQ(many.json, one.json) << "--threads " << threads;
    EXPECT_EQ(many.sarif, one.sarif) << "--threads " << threads;
    EXPECT_EQ(many.junit, one.junit) << "--threads " << threads;
    EXPECT_TRUE(many.html == one.html) << "--threads " << threads << ": the HTML pages differ";
  }
  fs::remove_all(dir);
}

// A masked time is masked, and nothing else is.
TEST(ThreadsDeterminism, OnlyTheTimesAreMasked) {
  EXPECT_EQ(without_times(R"({"ms":16.954,"readMs":1.3,"stages":{"graph":0.063,"mem":0.135},"tasks":6})"),
            R"({"ms":T,"readMs":T,"stages":{"graph":T,"mem":T},"tasks":6})");
  EXPECT_EQ(without_times("ranks=3 tasks=6 in 18 ms\nstage mem: 0.1 ms\n"), "ranks=3 tasks=6 in T ms\nstage mem: T ms\n");
  EXPECT_EQ(without_times(R"(<testsuite tests="3" time="0.018">)"), R"(<testsuite tests="3" time="T">)");
  EXPECT_NE(without_times(R"({"tasks":6})"), without_times(R"({"tasks":7})"));
  EXPECT_NE(without_times("ranks=3 tasks=6"), without_times("ranks=3 tasks=7"));
}

std::string threads_case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  return golden_case_name(info.param.path);
}

INSTANTIATE_TEST_SUITE_P(Cases, ThreadsDeterminism, ::testing::ValuesIn(discover_golden_cases()), threads_case_name);

}  // namespace
}  // namespace cc::test
