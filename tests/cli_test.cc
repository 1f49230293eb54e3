#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "report/output_path.h"
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

TEST(Cli, BadOptionValuesSayWhatToWrite) {
  std::string ex = " " + source_dir() + "/examples/allgather2.jsonl";
  struct Case {
    const char* args;
    const char* message;
  } cases[] = {
      {"check --stages graph,bogus", "collcheck: error: unknown stage \"bogus\" (graph, single, sync, mem, semantic)\n"},
      {"check --shard 3/2", "collcheck: error: --shard 3/2: write K/N with 1 <= K <= N\n"},
      {"check --max-memory 12X", "collcheck: error: --max-memory 12X: write a byte count, optionally with K, M or G\n"},
      {"check --max-memory 0", "collcheck: error: --max-memory 0: write a byte count, optionally with K, M or G\n"},
  };
  for (const Case& c : cases) {
    RunResult r = run_collcheck(c.args + ex);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_EQ(r.err, c.message) << c.args;
  }
  EXPECT_EQ(run_collcheck("check -q --max-memory 4G --shard 1/1 --stages graph,sync" + ex).status, 0);
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Cli, ADeadlockCascadeShowsItsRootCauseFirst) {
  // 64 ranks blocked behind one WAIT whose notify nobody records: the text
  // shows that WAIT and one line for the 127 findings it causes; -v shows
  // them all (up to --max-errors per code); the summary says which is which.
  std::string file = source_dir() + "/tests/cases/graph/102_cascade_ring64.jsonl.gz";
  RunResult r = run_collcheck("check " + file);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(occurrences(r.out, "[ErrorCode: 102]"), 1u) << r.out;
  // The RECORD the renamed WAIT should have consumed is no consequence of
  // the deadlock: it is the other half of the typo, and shown.
  EXPECT_EQ(occurrences(r.out, "[ErrorCode: 103]"), 1u) << r.out;
  EXPECT_NE(r.out.find("RECORD(1\u21920 #0) executed but no WAIT consumed it."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Root cause: 63 other blocked streams hang on this one"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(+ 38 findings caused by this one, not shown: 102\u00d719, 103\u00d719; -v lists them)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("; 126 of 129 findings are consequences of 1 root cause"), std::string::npos) << r.out;
  RunResult v = run_collcheck("check -v " + file);
  EXPECT_EQ(occurrences(v.out, "[ErrorCode: 102]"), 20u);
  EXPECT_EQ(occurrences(v.out, "[ErrorCode: 103]"), 20u);
  EXPECT_NE(v.out.find("Consequence of the deadlock at 0/0/"), std::string::npos);
  EXPECT_NE(v.out.find("Consequence of root cause 1: the WAIT meant to consume it is blocked behind it."),
            std::string::npos);
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
  EXPECT_NE(d.out.find("style=dashed"), std::string::npos);
}

}  // namespace
}  // namespace cc::test

namespace cc::test {
namespace {

TEST(Cli, JsonReportHasTheShapeOfChecksMd) {
  std::string json = temp_path("shape.json");
  RunResult r = run_collcheck("check -q --json " + json + " " + source_dir() + "/tests/cases/graph/102_103_typo.jsonl");
  EXPECT_EQ(r.status, 1);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.load(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["tool"]), "collcheck");
  EXPECT_TRUE(doc["version"].is_string());
  simdjson::dom::element in = doc["inputs"].at(0);
  EXPECT_EQ(std::string_view(in["verdict"]), "FAIL");
  EXPECT_TRUE(in["file"].is_string());
  simdjson::dom::element f = in["findings"].at(0);
  EXPECT_EQ(int64_t(f["code"]), 102);
  EXPECT_EQ(std::string_view(f["name"]), "GRAPH_DEADLOCK");
  EXPECT_EQ(std::string_view(f["stage"]), "GenGraph");
  EXPECT_EQ(std::string_view(f["severity"]), "error");
  EXPECT_TRUE(f["message"].is_string());
  simdjson::dom::element task = f["tasks"].at(0);
  EXPECT_EQ(uint64_t(task["rank"]), 1u);
  EXPECT_EQ(uint64_t(task["stream"]), 0u);
  EXPECT_EQ(uint64_t(task["index"]), 5u);
  EXPECT_GT(uint64_t(task["line"]), 0u);
  simdjson::dom::element stats = in["stats"];
  EXPECT_EQ(uint64_t(stats["ranks"]), 2u);
  EXPECT_EQ(uint64_t(stats["streams"]), 2u);
  EXPECT_EQ(uint64_t(stats["tasks"]), 12u);
  EXPECT_TRUE(stats["ms"].is_number());
  // The warning 902 of the skipped stages is a warning.
  bool warning = false;
  for (simdjson::dom::element x : in["findings"].get_array())
    if (int64_t(x["code"]) == 902) warning = std::string_view(x["severity"]) == "warning";
  EXPECT_TRUE(warning);
}

TEST(Cli, SummaryLineAndMaxErrors) {
  RunResult r = run_collcheck("check --max-errors 1 " + source_dir() + "/tests/cases/graph/102_cycle.jsonl");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("FAIL (2 errors: 102\u00d72; 1 warning: 902\u00d71) ranks=2 tasks=12 in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 more 102 findings not shown: --max-errors 1)"), std::string::npos) << r.out;
  std::size_t blocks = 0;
  for (std::size_t p = 0; (p = r.out.find("[ErrorCode: 102]", p)) != std::string::npos; ++p) ++blocks;
  EXPECT_EQ(blocks, 1u);
}

TEST(Cli, HtmlAndDotReports) {
  std::string ok = source_dir() + "/examples/allgather2.jsonl";
  std::string fail = source_dir() + "/tests/cases/graph/102_103_typo.jsonl";
  std::string html = temp_path("cli-report.html"), dot = temp_path("cli-graph.dot");
  RunResult r = run_collcheck(fmt::format("check -q --html {} --dot {} {}", html, dot, fail));
  EXPECT_EQ(r.status, 1) << r.err;
  RunResult d = run_collcheck("dot " + fail);
  EXPECT_EQ(d.status, 0);
  std::ifstream f(dot);
  std::string written((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, d.out) << "check --dot and dot draw the same graph";
  EXPECT_NE(written.find("[102]"), std::string::npos);
  EXPECT_TRUE(std::filesystem::file_size(html) > 1000);
  // A report that cannot be written is a 501 of the check.
  RunResult bad = run_collcheck("check --html /no/such/dir/r.html " + ok);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("[ErrorCode: 501]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("cannot write /no/such/dir/r.html"), std::string::npos) << bad.out;
  EXPECT_EQ(run_collcheck(fmt::format("check --html {} {} {}", html, ok, fail)).status, 2)
      << "one input only";
  EXPECT_EQ(run_collcheck(fmt::format("check --html - --json - {}", ok)).status, 2);
  RunResult page = run_collcheck("check --html - " + ok);
  EXPECT_EQ(page.status, 0);
  EXPECT_EQ(page.out.rfind("<!DOCTYPE html>", 0), 0u) << "the page alone on standard output";
  EXPECT_NE(page.err.find("PASS"), std::string::npos);
}

TEST(Cli, DotFocus) {
  std::string fail = source_dir() + "/tests/cases/graph/102_103_typo.jsonl";
  RunResult one = run_collcheck("dot --focus 1/0/5 --radius 1 " + fail);
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.out.find("2 of 12 tasks: within 1 edges of 1/0/5"), std::string::npos) << one.out;
  RunResult all = run_collcheck("dot --focus findings --radius 0 " + fail);
  EXPECT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("2 of 12 tasks: within 0 edges of 1/0/5, 0/0/4"), std::string::npos) << all.out;
  RunResult bad = run_collcheck("dot --focus 9/9/9 " + fail);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--focus 9/9/9: no such task"), std::string::npos) << bad.err;
  RunResult none = run_collcheck("dot --focus findings " + source_dir() + "/examples/allgather2.jsonl");
  EXPECT_EQ(none.status, 2);
}

}  // namespace
}  // namespace cc::test


namespace cc::test {
namespace {

TEST(OutputPath, OneFilePerCase) {
  EXPECT_EQ(case_output_path("out.html", "db", "db#w0-op1", false), "out.html");
  EXPECT_EQ(case_output_path("out.html", "db", "db#w0-op1", true), "out.w0-op1.html");
  EXPECT_EQ(case_output_path("dir.v2/out", "a#b.log", "a#b.log#Suite.Test/1#2", true), "dir.v2/out.Suite.Test_1_2");
  EXPECT_EQ(case_output_path("d/.hidden", "x", "x#a b", true), "d/.hidden.a_b");
  EXPECT_EQ(case_output_path("-", "x", "x#a", true), "-");
}

}  // namespace
}  // namespace cc::test
