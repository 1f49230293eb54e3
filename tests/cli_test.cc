#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "report/error_docs.h"
#include "report/junit.h"
#include "report/output_path.h"
#include "report/sarif.h"
#include "text/xml.h"
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

// A CCU mission's node is named in JSON and SARIF as in the text report:
// its mission's place and line, and its position in the mission.
TEST(Cli, CcuNodesNamedByTheirMissionInEveryReport) {
  std::string file = source_dir() + "/tests/cases/ccu/drain_off.jsonl";
  std::string sarif = temp_path("ccu_node.sarif");
  RunResult j = run_collcheck("check --json - --sarif " + sarif + " " + file);
  ASSERT_EQ(j.status, 1) << j.err;
  EXPECT_NE(j.err.find("Earlier : 0/0/0:1 (" + file + ":9)"), std::string::npos) << j.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(j.out).get(doc), simdjson::SUCCESS);
  bool seen = false;
  for (auto f : doc["inputs"].at(0)["findings"].get_array()) {
    if (int64_t(f["code"]) != 302) continue;
    auto t = f["tasks"].at(0);
    EXPECT_EQ(int64_t(t["rank"]), 0);
    EXPECT_EQ(int64_t(t["stream"]), 0);
    EXPECT_EQ(int64_t(t["index"]), 0);
    EXPECT_EQ(int64_t(t["line"]), 9);
    EXPECT_EQ(std::string_view(t["file"]), file);
    EXPECT_EQ(int64_t(t["ccu"]["node"]), 1);
    EXPECT_TRUE(f["tasks"].at(1)["ccu"].error()) << "a host task has no ccu entry";
    seen = true;
  }
  EXPECT_TRUE(seen) << j.out;
  EXPECT_NE(slurp(sarif).find("\"name\":\"0/0/0:1\""), std::string::npos);
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

// Findings come in stage order, a skipped stage's notice in its place:
// stage 4's notice before stage 5's findings, at every thread count (on
// several threads stage 5 runs beside stage 4 and its findings are joined
// afterwards).
TEST(Cli, ASkippedStagesNoticeKeepsItsPlace) {
  std::string input = source_dir() + "/tests/cases/sem/401_allreduce_reduce_into_empty.jsonl";
  for (int threads : {1, 2}) {
    RunResult r = run_collcheck(fmt::format("check --threads {} --stages graph,single,sync,semantic {}", threads, input));
    EXPECT_EQ(r.status, 1) << r.out;
    std::size_t notice = r.out.find("Stage MemConflict skipped"), finding = r.out.find("[ErrorCode: 401]");
    ASSERT_NE(notice, std::string::npos) << r.out;
    ASSERT_NE(finding, std::string::npos) << r.out;
    EXPECT_LT(notice, finding) << "--threads " << threads << "\n" << r.out;
  }
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
  // A report that cannot be written is an error of the run, not a finding.
  RunResult bad = run_collcheck("check --html /no/such/dir/r.html " + ok);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.out.find("[ErrorCode: 501]"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find(": PASS"), std::string::npos) << bad.out;
  EXPECT_NE(bad.err.find("collcheck: error: cannot write /no/such/dir/r.html: "), std::string::npos) << bad.err;
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

// The options CI uses: --exit-zero, --fail-on, the tally after several
// operators and -q, --sarif and --junit (their formats are validated
// against their schemas by tests/schemas/reports_test.py).
namespace cc::test {
namespace {

std::string ok_input() { return source_dir() + "/examples/allgather2.jsonl"; }
std::string fail_input() { return source_dir() + "/tests/cases/graph/102_103_typo.jsonl"; }
std::string bad_input() { return source_dir() + "/tests/cases/malformed/garbage.jsonl"; }
// PASS with two warnings (ATOMIC-REDUCE-ORDER, and 902 for the stage left out).
std::string warn_args() {
  return "--stages graph,single,sync,mem " + source_dir() + "/tests/cases/mem/pass_atomic_reduce.jsonl";
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(CliCi, ExitZeroKeepsFindingsButExitsZero) {
  RunResult plain = run_collcheck("check " + fail_input());
  RunResult zero = run_collcheck("check --exit-zero " + fail_input());
  EXPECT_EQ(plain.status, 1);
  EXPECT_EQ(zero.status, 0) << zero.out << zero.err;
  EXPECT_EQ(zero.out, plain.out.substr(0, plain.out.rfind(" in ")) + zero.out.substr(zero.out.rfind(" in ")))
      << "the same report, only the exit status differs";
  EXPECT_NE(zero.out.find(": FAIL ("), std::string::npos);
  // An unusable input is still exit 2; so is a wrong --fail-on.
  EXPECT_EQ(run_collcheck("check --exit-zero " + fail_input() + " " + bad_input()).status, 2);
  EXPECT_EQ(run_collcheck("check --fail-on never " + ok_input()).status, 2);
}

TEST(CliCi, FailOnWarning) {
  RunResult dflt = run_collcheck("check " + warn_args());
  EXPECT_EQ(dflt.status, 0) << dflt.out << dflt.err;
  EXPECT_NE(dflt.out.find(": PASS (0 errors; 2 warnings"), std::string::npos) << dflt.out;
  EXPECT_EQ(run_collcheck("check --fail-on error " + warn_args()).status, 0);
  RunResult strict = run_collcheck("check --fail-on warning " + warn_args());
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_NE(strict.out.find(": PASS (0 errors; 2 warnings"), std::string::npos) << "the verdict stays PASS";
  EXPECT_EQ(run_collcheck("check --fail-on warning " + ok_input()).status, 0) << "no finding, no failure";
  EXPECT_EQ(run_collcheck("check --fail-on warning --exit-zero " + warn_args()).status, 0);
  // With --fail-on warning, the tally says why a PASS failed the run (the
  // stages left out give the first input a 902 too).
  RunResult batch = run_collcheck("check --fail-on warning " + ok_input() + " " + fail_input() + " " + warn_args());
  EXPECT_EQ(batch.status, 1);
  EXPECT_NE(batch.out.find("collcheck: 3 operators: 2 PASS (2 with warnings), 1 FAIL, 0 unusable\n"),
            std::string::npos)
      << batch.out;
}

TEST(CliCi, TallyAfterSeveralOperatorsOnly) {
  RunResult one = run_collcheck("check " + ok_input());
  EXPECT_EQ(count_of(one.out, "\n"), 1u) << "one operator: its summary line alone\n" << one.out;
  RunResult two = run_collcheck("check " + ok_input() + " " + fail_input());
  EXPECT_EQ(two.status, 1);
  std::string last = two.out.substr(two.out.rfind('\n', two.out.size() - 2) + 1);
  EXPECT_EQ(last, "collcheck: 2 operators: 1 PASS, 1 FAIL, 0 unusable\n") << two.out;
  RunResult three = run_collcheck("check " + ok_input() + " " + fail_input() + " " + bad_input());
  EXPECT_EQ(three.status, 2);
  EXPECT_NE(three.out.find("collcheck: 2 operators: 1 PASS, 1 FAIL, 1 unusable\n"), std::string::npos)
      << three.out;
  // Several operators of one file (an ST log) are a batch too.
  RunResult log = run_collcheck("check -q " + source_dir() + "/tests/cases/stlog/suite.log");
  EXPECT_NE(log.out.find("collcheck: 22 operators: 8 PASS, 14 FAIL, 0 unusable\n"), std::string::npos) << log.out;
  // With the human report on standard error, so is the tally.
  RunResult json = run_collcheck("check --json - " + ok_input() + " " + fail_input());
  EXPECT_EQ(json.out.find("operators:"), std::string::npos);
  EXPECT_NE(json.err.find("collcheck: 2 operators: 1 PASS, 1 FAIL, 0 unusable"), std::string::npos) << json.err;
}

TEST(CliCi, QuietShowsOnlyFailingOperatorsAndTheTally) {
  RunResult q = run_collcheck("check -q " + ok_input() + " " + fail_input());
  EXPECT_EQ(q.out.find("allgather2.jsonl: PASS"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("102_103_typo.jsonl: FAIL"), std::string::npos) << q.out;
  EXPECT_EQ(q.out.find("[ErrorCode"), std::string::npos) << "no finding blocks with -q";
  EXPECT_EQ(count_of(q.out, "\n"), 2u) << q.out;
  // Nothing failing: the tally alone.
  RunResult pass = run_collcheck("check -q " + ok_input() + " " + ok_input());
  EXPECT_EQ(pass.out, "collcheck: 2 operators: 2 PASS, 0 FAIL, 0 unusable\n");
  // One operator: its summary line, PASS or FAIL, as before.
  EXPECT_NE(run_collcheck("check -q " + ok_input()).out.find("allgather2.jsonl: PASS"), std::string::npos);
}

TEST(CliCi, SarifReport) {
  std::string path = temp_path("cli.sarif");
  std::filesystem::remove(path);
  RunResult r = run_collcheck(fmt::format("check -q --sarif {} {}", path, fail_input()));
  EXPECT_EQ(r.status, 1) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.load(path).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["version"]), "2.1.0");
  simdjson::dom::element run = doc["runs"].at(0);
  EXPECT_EQ(std::string_view(run["tool"]["driver"]["name"]), "collcheck");
  // Rules 102, 103 and 902, each once; a result per finding.
  // Their text is their section of docs/ERRORS.md.
  std::vector<std::string> rules;
  for (simdjson::dom::element rule : run["tool"]["driver"]["rules"].get_array()) {
    rules.emplace_back(std::string_view(rule["id"]));
    const ErrorDoc* doc = find_error_doc(rules.back());
    ASSERT_NE(doc, nullptr) << rules.back();
    EXPECT_EQ(std::string_view(rule["shortDescription"]["text"]), doc->summary);
    EXPECT_EQ(std::string_view(rule["help"]["text"]), doc->body);
    EXPECT_EQ(std::string_view(rule["name"]), doc->name);
  }
  EXPECT_EQ(rules, (std::vector<std::string>{"102", "103", "902"}));
  simdjson::dom::element first = run["results"].at(0);
  EXPECT_EQ(std::string_view(first["ruleId"]), "102");
  EXPECT_EQ(std::string_view(first["level"]), "error");
  EXPECT_NE(std::string_view(first["message"]["text"]).find("Deadlock"), std::string_view::npos);
  simdjson::dom::element loc = first["locations"].at(0)["physicalLocation"];
  EXPECT_EQ(std::string_view(loc["artifactLocation"]["uri"]), fail_input());
  EXPECT_EQ(uint64_t(loc["region"]["startLine"]), 15u);
  EXPECT_EQ(std::string_view(first["locations"].at(0)["logicalLocations"].at(0)["name"]), "1/0/5");
  EXPECT_EQ(run["results"].get_array().size(), 3u);
  // To standard output, alone; the human report moves to standard error.
  RunResult out = run_collcheck("check --sarif - " + ok_input());
  EXPECT_EQ(out.status, 0);
  EXPECT_EQ(out.out.rfind("{\"$schema\":", 0), 0u) << out.out;
  EXPECT_NE(out.err.find("PASS"), std::string::npos);
  // Two reports into one file, or two to standard output: usage errors.
  EXPECT_EQ(run_collcheck(fmt::format("check --sarif {0} --json {0} {1}", path, ok_input())).status, 2);
  EXPECT_EQ(run_collcheck("check --sarif - --junit - " + ok_input()).status, 2);
  // A report that cannot be written: an error of the run (exit 2).
  RunResult bad = run_collcheck("check --sarif /no/such/dir/r.sarif " + ok_input());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("collcheck: error: cannot write /no/such/dir/r.sarif: "), std::string::npos) << bad.err;
}

TEST(CliCi, SarifUri) {
  EXPECT_EQ(sarif_uri("traces/ring 8.jsonl"), "traces/ring%208.jsonl");
  EXPECT_EQ(sarif_uri("a#b.log"), "a%23b.log");
  EXPECT_EQ(sarif_uri("dir\\x.db"), "dir/x.db");
  EXPECT_EQ(sarif_uri("/abs/t.jsonl"), "/abs/t.jsonl");
  EXPECT_EQ(sarif_uri("\xc3\xa9.jsonl"), "%C3%A9.jsonl");
}

TEST(CliCi, JunitReport) {
  std::string path = temp_path("cli-junit.xml");
  std::filesystem::remove(path);
  RunResult r = run_collcheck(
      fmt::format("check -q --junit {} {} {} {}", path, ok_input(), fail_input(), bad_input()));
  EXPECT_EQ(r.status, 2);
  std::string xml = slurp(path);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"collcheck\" tests=\"3\" "
                      "failures=\"1\" errors=\"1\"",
                      0),
            0u)
      << xml;
  EXPECT_EQ(count_of(xml, "<testsuite "), 3u);
  EXPECT_EQ(count_of(xml, "<testcase "), 3u);
  // A failure per error (102, 103), the warning 902 as output, the garbage an error.
  EXPECT_EQ(count_of(xml, "<failure "), 2u) << xml;
  EXPECT_NE(xml.find("<failure message=\"102: Deadlock: rank1/s0 WAIT can never be released.\" "
                     "type=\"102 GRAPH_DEADLOCK\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<system-out>[Setting] [ErrorCode: 902] (warning)"), std::string::npos) << xml;
  EXPECT_EQ(count_of(xml, "<error "), 1u);
  EXPECT_NE(xml.find("classname=\"" + fail_input() + "\""), std::string::npos);
  // Markup in messages is escaped (WAIT(0→1 #33) has none; a made-up one does).
  EXPECT_EQ(xml_escape("a<b & \"c\"\n\x01"), "a&lt;b &amp; &quot;c&quot;&#10;?");
  EXPECT_EQ(xml_escape("bad \xff byte"), "bad \xEF\xBF\xBD byte");
  // --fail-on warning: warnings become failures too.
  RunResult w = run_collcheck(fmt::format("check -q --fail-on warning --junit {} {}", path, warn_args()));
  EXPECT_EQ(w.status, 1);
  xml = slurp(path);
  EXPECT_EQ(count_of(xml, "<failure "), 2u) << xml;
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
}

TEST(CliCi, JsonReportSummaryAndStructuredFindings) {
  std::string path = temp_path("cli-structured.json");
  RunResult r = run_collcheck(fmt::format("check -q --json {} {} {}", path, ok_input(),
                                          source_dir() + "/tests/cases/mem/302_write_write.jsonl"));
  EXPECT_EQ(r.status, 1);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.load(path).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(doc["schemaVersion"]), 1);
  simdjson::dom::element s = doc["summary"];
  EXPECT_EQ(uint64_t(s["operators"]), 2u);
  EXPECT_EQ(uint64_t(s["pass"]), 1u);
  EXPECT_EQ(uint64_t(s["fail"]), 1u);
  EXPECT_EQ(uint64_t(s["unusable"]), 0u);
  EXPECT_EQ(int64_t(s["exitStatus"]), 1);
  simdjson::dom::element race = doc["inputs"].at(1)["findings"].at(0);
  EXPECT_EQ(int64_t(race["code"]), 302);
  EXPECT_EQ(uint64_t(race["rank"]), 2u);
  EXPECT_EQ(std::string_view(race["buffer"]), "OUTPUT");
  EXPECT_EQ(uint64_t(race["range"].at(0)), 0x20u);
  EXPECT_EQ(uint64_t(race["range"].at(1)), 0x40u);
  EXPECT_EQ(uint64_t(race["tasks"].at(1)["line"]), 5u);
  EXPECT_EQ(std::string_view(race["tasks"].at(1)["file"]), source_dir() + "/tests/cases/mem/302_write_write.jsonl");
  // A wrong result names its bytes too (406: rank, OUTPUT, range).
  simdjson::dom::element wrong = doc["inputs"].at(1)["findings"].at(1);
  EXPECT_EQ(int64_t(wrong["code"]), 406);
  EXPECT_TRUE(wrong["range"].is_array());
  // --exit-zero: the summary says what the command exits with.
  run_collcheck(fmt::format("check -q --exit-zero --json {} {}", path, fail_input()));
  ASSERT_EQ(p.load(path).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(doc["summary"]["exitStatus"]), 0);
  EXPECT_EQ(uint64_t(doc["summary"]["fail"]), 1u);
}

// One input of several operators with --html: a page per operator beside
// FILE and, at FILE, an index that links every one with its verdict,
// failures first.
TEST(CliHtml, SeveralOperatorsGetAnIndexPage) {
  namespace fs = std::filesystem;
  fs::path dir = temp_path("html-index");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string index = (dir / "r.html").string();
  RunResult r = run_collcheck(fmt::format("check -q --html {} '{}/tests/cases/stlog/suite.log'", index, source_dir()));
  ASSERT_EQ(r.status, 1) << r.err;
  std::string page = slurp(index);
  EXPECT_NE(page.find("<title>"), std::string::npos);
  EXPECT_NE(page.find("22 operators: 8 PASS, 14 FAIL"), std::string::npos) << page;
  // Every row links to a page that exists; the FAIL rows come first.
  std::size_t rows = 0, at = 0;
  bool seen_pass = false, fail_after_pass = false;
  while ((at = page.find("<tr><td class=\"", at)) != std::string::npos) {
    at += 15;
    bool pass = page.compare(at, 4, "PASS") == 0;
    fail_after_pass |= seen_pass && !pass;
    seen_pass |= pass;
    std::size_t href = page.find("href=\"", at) + 6;
    std::string link = page.substr(href, page.find('"', href) - href);
    EXPECT_TRUE(fs::exists(dir / link)) << link;
    ++rows;
  }
  EXPECT_EQ(rows, 22u);
  EXPECT_FALSE(fail_after_pass);
  EXPECT_NE(page.find("suite.log#StDemo.race_302"), std::string::npos);
  // One operator: the page itself, no index.
  fs::path one = dir / "one.html";
  RunResult single = run_collcheck(fmt::format("check -q --html {} '{}/examples/allgather2.jsonl'", one.string(),
                                               source_dir()));
  ASSERT_EQ(single.status, 0) << single.err;
  std::string page1 = slurp(one.string());
  EXPECT_EQ(page1.find("id=\"operators\""), std::string::npos);
  EXPECT_NE(page1.find("<canvas"), std::string::npos);
}

}  // namespace
}  // namespace cc::test
