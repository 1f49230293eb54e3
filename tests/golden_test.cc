// Golden end-to-end cases: runs the collcheck binary on every file below
// tests/cases/ and compares its exit status and the set of codes it reports
// with the case's expectation.
//
// The expectation is a comment line in the case (JSON Lines traces)
//     # expect: exit=1 codes=102,103
//     # expect: exit=2 error="t.jsonl:3: missing"      (substring of stderr)
// or the same text in a sidecar file CASE.expect (formats without comments).
// `codes` lists every distinct code reported, errors and warnings alike;
// `warnings=TAG,...` (optional; may be empty) is then exactly the set of
// named warnings (code 0, e.g. ATOMIC-REDUCE-ORDER) reported;
// `args=...` (optional, last) adds options to the command line, with
// `{dir}` standing for the case's directory. An input holding several
// operators (an ST log) may list each in further lines of the sidecar,
//     case: NAME verdict=FAIL codes=302 warnings=STLOG-W-NOTIFY-AMBIGUOUS
// and then exactly these cases must be reported, each as given.
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

#include "test_util.h"

namespace cc::test {
namespace {

namespace fs = std::filesystem;

// The named warnings an expectation pins, if it pins them.
using WarningSet = std::optional<std::set<std::string>>;

struct ExpectedOperator {
  std::string name;  // CASE of FILE#CASE
  std::string verdict;
  std::set<int> codes;
  WarningSet warnings;
};

struct GoldenCase {
  std::string path;
  std::vector<ExpectedOperator> operators;
  int exit = -1;
  std::set<int> codes;
  WarningSet warnings;
  bool check_codes = false;
  int roots = -1, consequences = -1;  // roots=N consequences=M: cascades (rootCauses, consequences)
  std::string error;  // expected substring of standard error
  std::string args;
};

// The value after `key=` in `spec`, up to the next space ("" if absent).
std::string field(const std::string& spec, const std::string& key) {
  std::size_t at = spec.find(" " + key + "=");
  if (at == std::string::npos) return {};
  at += key.size() + 2;
  return spec.substr(at, spec.find(' ', at) - at);
}

// `warnings=A,B` of a spec (an empty value: none), if present.
WarningSet warnings_of(const std::string& spec) {
  if (spec.find(" warnings=") == std::string::npos) return std::nullopt;
  std::set<std::string> tags;
  std::stringstream ss(field(spec, "warnings"));
  std::string tag;
  while (std::getline(ss, tag, ','))
    if (!tag.empty()) tags.insert(tag);
  return tags;
}

bool parse_expect(const std::string& text, GoldenCase& c) {
  std::size_t at = text.find("expect:");
  if (at == std::string::npos) return false;
  std::string spec = " " + text.substr(at + 7, text.find('\n', at) - at - 7);
  std::string exit = field(spec, "exit");
  if (exit.empty()) return false;
  c.exit = std::stoi(exit);
  std::size_t codes = spec.find(" codes=");
  if (codes != std::string::npos) {
    c.check_codes = true;
    std::stringstream ss(field(spec, "codes"));
    std::string code;
    while (std::getline(ss, code, ','))
      if (!code.empty()) c.codes.insert(std::stoi(code));
  }
  // error="..." with \" for a quote inside.
  std::size_t e = spec.find(" error=\"");
  if (e != std::string::npos) {
    for (std::size_t i = e + 8; i < spec.size() && spec[i] != '"'; ++i) {
      if (spec[i] == '\\' && i + 1 < spec.size()) ++i;
      c.error += spec[i];
    }
  }
  c.warnings = warnings_of(spec);
  if (std::string n = field(spec, "roots"); !n.empty()) c.roots = std::stoi(n);
  if (std::string n = field(spec, "consequences"); !n.empty()) c.consequences = std::stoi(n);
  std::size_t args = spec.find(" args=");
  if (args != std::string::npos) c.args = spec.substr(args + 6);
  std::string dir = fs::path(c.path).parent_path().string();
  for (std::size_t at = c.args.find("{dir}"); at != std::string::npos; at = c.args.find("{dir}"))
    c.args.replace(at, 5, dir);
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("case: ", 0) != 0) continue;
    std::string rest = " " + line.substr(6);
    std::size_t sp = rest.find(' ', 1);
    ExpectedOperator op;
    op.name = rest.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
    op.verdict = field(rest, "verdict");
    op.warnings = warnings_of(rest);
    std::stringstream ss(field(rest, "codes"));
    std::string code;
    while (std::getline(ss, code, ','))
      if (!code.empty()) op.codes.insert(std::stoi(code));
    c.operators.push_back(op);
  }
  return c.exit >= 0;
}

std::vector<GoldenCase> discover() {
  std::vector<GoldenCase> cases;
  fs::path root = fs::path(source_dir()) / "tests" / "cases";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string p = e.path().string();
    std::string ext = e.path().extension().string();
    if (ext == ".expect" || ext == ".md" || ext == ".py" || ext == ".json") continue;
    GoldenCase c;
    c.path = p;
    std::string sidecar = p + ".expect";
    bool ok = fs::exists(sidecar) ? parse_expect(slurp(sidecar), c)
                                  : parse_expect(slurp(p).substr(0, 1 << 16), c);
    if (!ok) c.exit = -2;  // a case without an expectation is itself a failure
    cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.path < b.path; });
  return cases;
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.path; }

// "graph/102_cycle.jsonl" -> "graph_102_cycle_jsonl"
std::string case_name_of(const std::string& path) {
  fs::path root = fs::path(source_dir()) / "tests" / "cases";
  std::string rel = fs::relative(path, root).string();
  for (char& ch : rel)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return rel;
}

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
    if (tools_required()) FAIL() << "Graphviz's dot is not installed (scripts/setup installs it)";
    GTEST_SKIP() << "Graphviz's dot is not installed (scripts/setup installs it)";
  }
  fs::path dir = temp_path("dot-" + case_name_of(c.path));
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
  return case_name_of(info.param.path);
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(discover()), case_name);

}  // namespace
}  // namespace cc::test
