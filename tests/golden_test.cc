// Golden end-to-end cases: runs the collcheck binary on every file below
// tests/cases/ and compares its exit status and the set of codes it reports
// with the case's expectation.
//
// The cases and their expectations: golden_cases.h.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "golden_cases.h"
#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, Case) {
  const GoldenCase& c = GetParam();
  ASSERT_NE(c.exit, -2) << c.path << ": no \"expect:\" line";
  std::string json = temp_path(fs::path(c.path).filename().string() + ".report.json");
  fs::remove(json);
  RunResult r = run_collcheck(fmt::format("check -q -j1 --json {} {} '{}'", json, c.args, c.path));
  EXPECT_EQ(r.status, c.exit) << c.path << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
  if (!c.error.empty()) {
    EXPECT_NE(r.err.find(c.error), std::string::npos) << "stderr: " << r.err;
  }
  if (c.exit == 2) {
    // Every unusable input is said in one line "collcheck: error: FILE:...".
    EXPECT_EQ(r.err.rfind("collcheck: error: ", 0), 0u) << r.err;
  }
  if (!c.check_codes) return;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(json).get(doc), simdjson::SUCCESS) << "no JSON report for " << c.path;
  struct Outcome {
    std::string verdict;
    std::set<int> codes;
    std::set<std::string> warnings;
  };
  std::set<int> got;
  std::set<std::string> got_warnings;
  std::map<std::string, Outcome> per_operator;
  int64_t roots = 0, consequences = 0;
  for (simdjson::dom::element input : doc["inputs"].get_array()) {
    std::string file{std::string_view(input["file"])};
    roots += int64_t(input["stats"]["rootCauses"]);
    consequences += int64_t(input["stats"]["consequences"]);
    Outcome& o = per_operator[file];
    o.verdict = std::string(std::string_view(input["verdict"]));
    for (simdjson::dom::element f : input["counts"].get_array()) {
      int code = int(int64_t(f["code"]));
      got.insert(code);
      o.codes.insert(code);
      if (code == 0) {
        got_warnings.insert(std::string(std::string_view(f["name"])));
        o.warnings.insert(std::string(std::string_view(f["name"])));
      }
    }
  }
  EXPECT_EQ(got, c.codes) << c.path << "\n" << r.out;
  if (c.roots >= 0) {
    EXPECT_EQ(roots, c.roots) << c.path;
  }
  if (c.consequences >= 0) {
    EXPECT_EQ(consequences, c.consequences) << c.path;
  }
  if (c.warnings) {
    EXPECT_EQ(got_warnings, *c.warnings) << c.path << "\n" << r.out;
  }
  if (c.operators.empty()) return;
  std::set<std::string> expected_names;
  for (const ExpectedOperator& op : c.operators) {
    std::string name = c.path + "#" + op.name;
    expected_names.insert(name);
    auto it = per_operator.find(name);
    if (it == per_operator.end()) {
      ADD_FAILURE() << "not reported: " << name;
      continue;
    }
    EXPECT_EQ(it->second.verdict, op.verdict) << name;
    EXPECT_EQ(it->second.codes, op.codes) << name;
    if (op.warnings) {
      EXPECT_EQ(it->second.warnings, *op.warnings) << name;
    }
  }
  for (const auto& [name, outcome] : per_operator)
    EXPECT_TRUE(expected_names.count(name)) << "reported but not expected: " << name;
}

// Every case that is a usable input: `check --dot` writes a graph Graphviz
// accepts, with the check's findings highlighted.
TEST_P(Golden, GraphRendersWithGraphviz) {
  const GoldenCase& c = GetParam();
  if (c.exit != 0 && c.exit != 1) GTEST_SKIP() << "not a usable input";
  std::string dot = find_program("dot");
  if (dot.empty()) {
    if (tools_required()) FAIL() << "Graphviz's dot is not installed (scripts/test installs it)";
    GTEST_SKIP() << "Graphviz's dot is not installed (scripts/test installs it)";
  }
  fs::path dir = temp_path("dot-" + golden_case_name(c.path));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string json = (dir / "report.json").string();
  RunResult r = run_collcheck(fmt::format("check -q -j1 --json {} --dot {} {} '{}'", json,
                                          (dir / "graph.dot").string(), c.args, c.path));
  ASSERT_EQ(r.status, c.exit) << r.out << r.err;
  // Graphviz's layout grows much faster than the graph: 1 500 tasks take it
  // about 8 s, 7 400 more than ten minutes. Larger cases keep their other
  // tests; `collcheck dot --focus` is how such graphs are drawn.
  constexpr u64 kMaxRenderedTasks = 2500;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(json).get(doc), simdjson::SUCCESS);
  u64 tasks = 0;
  for (simdjson::dom::element input : doc["inputs"].get_array())
    tasks = std::max<u64>(tasks, u64(input["stats"]["tasks"]));
  if (tasks > kMaxRenderedTasks)
    GTEST_SKIP() << tasks << " tasks: too large for Graphviz's layout in a test's time";
  bool any_task = slurp(json).find("\"tasks\":[{") != std::string::npos;
  // An input of several operators (an ST log) has a graph per operator;
  // only those with findings that name tasks have highlights.
  int graphs = 0, highlighted = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".dot") continue;
    ++graphs;
    std::string svg = e.path().string() + ".svg";
    EXPECT_EQ(run_shell(fmt::format("'{}' -Tsvg '{}' -o '{}' 2>'{}.err'", dot, e.path().string(), svg, svg)), 0)
        << e.path() << ": " << slurp(svg + ".err");
    EXPECT_GT(fs::file_size(svg), 100u);
    highlighted += slurp(e.path().string()).find("penwidth=3") != std::string::npos;
  }
  EXPECT_GE(graphs, 1);
  if (any_task) {
    EXPECT_GE(highlighted, 1) << "the findings' tasks are not highlighted";
  }
  fs::remove_all(dir);
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  return golden_case_name(info.param.path);
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(discover_golden_cases()), case_name);

}  // namespace
}  // namespace cc::test
