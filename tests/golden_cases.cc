#include "golden_cases.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "gen_cases.h"
#include "pipeline/pipeline.h"
#include "test_util.h"

namespace cc::test {

namespace {

namespace fs = std::filesystem;

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

}  // namespace

std::vector<GoldenCase> discover_golden_cases() {
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
std::string golden_case_name(const std::string& path) {
  fs::path root = fs::path(source_dir()) / "tests" / "cases";
  std::string rel = fs::relative(path, root).string();
  for (char& ch : rel)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return rel;
}


u64 for_each_golden_trace(const std::function<bool(const Trace&, const std::string&)>& fn) {
  u64 i = 0, called = 0;
  for (const GoldenCase& c : discover_golden_cases()) {
    if (!sampled(i++)) continue;
    Result<std::vector<LoadedCase>> cases = load_file(c.path, InputOptions{}, ExpandOptions{});
    if (!cases) continue;  // a case about bad input, or one that needs its args
    for (const LoadedCase& lc : cases.value()) {
      if (lc.read.trace.unchecked) continue;
      ++called;
      if (!fn(lc.read.trace, c.path + "#" + lc.name)) return called;
    }
  }
  return called;
}

}  // namespace cc::test
