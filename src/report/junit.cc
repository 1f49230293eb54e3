#include "report/junit.h"

#include <fmt/format.h>

#include <map>

#include "report/text.h"
#include "text/xml.h"

namespace cc {

namespace {

// Character data keeps its line breaks as they are.
std::string xml_text(std::string_view s) {
  std::string out = xml_escape(s);
  for (std::size_t at = out.find("&#10;"); at != std::string::npos; at = out.find("&#10;", at + 1))
    out.replace(at, 5, "\n");
  return out;
}

std::string seconds(double ms) { return fmt::format("{:.3f}", ms / 1000.0); }

// CASE of FILE#CASE, or the file itself for an input of one operator.
std::string case_name(const CheckResult& r) {
  if (r.input.size() > r.file.size() + 1 && r.input.compare(0, r.file.size(), r.file) == 0 &&
      r.input[r.file.size()] == '#')
    return r.input.substr(r.file.size() + 1);
  return r.input;
}

bool fails(const Finding& f, const JunitOptions& o) { return f.severity == Severity::Error || o.warnings_fail; }

bool operator_fails(const CheckResult& r, const JunitOptions& o) {
  return !r.pass || (o.warnings_fail && r.warnings > 0);
}

std::string testcase(const CheckResult& r, const JunitOptions& o) {
  std::string out = fmt::format("    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"", xml_escape(case_name(r)),
                                xml_escape(r.file), seconds(r.ms + r.read_ms));
  std::string failures, others;
  for (const Finding& f : r.findings) {
    std::string code = f.code == 0 ? f.tag : std::to_string(f.code);
    if (fails(f, o))
      failures += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                              xml_escape(code + ": " + f.message), xml_escape(code + " " + finding_name(f)),
                              xml_text(format_finding(f)));
    else
      others += format_finding(f) + "\n";
  }
  // Findings beyond --max-errors are counted, not kept: say how many.
  CountMap kept;
  for (const Finding& f : r.findings) kept[{f.severity, f.code, f.code == 0 ? f.tag : std::string()}]++;
  for (const auto& [key, n] : r.totals) {
    const auto& [sev, code, tag] = key;
    if (n > kept[key])
      others += fmt::format("({} more {} findings not shown: --max-errors)\n", n - kept[key],
                            code == 0 ? tag : std::to_string(code));
  }
  if (failures.empty() && others.empty()) return out + "/>\n";
  out += ">\n" + failures;
  if (!others.empty()) out += "      <system-out>" + xml_text(others) + "</system-out>\n";
  return out + "    </testcase>\n";
}

struct Suite {
  std::string name;
  std::string body;
  u64 tests = 0, failures = 0, errors = 0;
  double ms = 0;
};

}  // namespace

std::string format_junit_report(const std::vector<CheckResult>& results, const std::vector<InputError>& errors,
                                const JunitOptions& options) {
  // Suites in the order of the inputs (order_file), results and errors merged.
  std::map<u32, Suite> suites;
  for (const CheckResult& r : results) {
    Suite& s = suites[r.order_file];
    s.name = r.file;
    s.body += testcase(r, options);
    s.tests++;
    s.failures += operator_fails(r, options);
    s.ms += r.ms + r.read_ms;
  }
  for (const InputError& e : errors) {
    Suite& s = suites[e.order_file];
    s.name = e.input;
    s.body += fmt::format("    <testcase name=\"{0}\" classname=\"{0}\">\n      <error message=\"{1}\" type=\"unusable "
                          "input\">{2}</error>\n    </testcase>\n",
                          xml_escape(e.input), xml_escape(e.message), xml_text(e.message));
    s.tests++;
    s.errors++;
  }
  u64 tests = 0, failures = 0, errs = 0;
  double ms = 0;
  for (const auto& [order, s] : suites) tests += s.tests, failures += s.failures, errs += s.errors, ms += s.ms;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"collcheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">\n", tests,
                     failures, errs, seconds(ms));
  for (const auto& [order, s] : suites)
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
                       "time=\"{}\">\n{}  </testsuite>\n",
                       xml_escape(s.name), s.tests, s.failures, s.errors, seconds(s.ms), s.body);
  out += "</testsuites>\n";
  return out;
}

}  // namespace cc
