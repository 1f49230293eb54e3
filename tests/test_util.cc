#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "ccu/expand.h"

namespace cc::test {

Trace parse(const std::string& text) {
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return Trace{};
  return std::move(r.value().trace);
}

std::vector<u16> codes_of(const Trace& t, const CheckOptions& opt) {
  CheckResult res = run_checks(t, {}, opt);
  std::vector<u16> codes;
  for (const auto& [key, n] : res.totals)
    for (u64 i = 0; i < n; ++i) codes.push_back(std::get<1>(key));
  std::sort(codes.begin(), codes.end());
  return codes;
}

std::vector<u16> codes_of(const std::string& text, const CheckOptions& opt) {
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return {};
  for (Finding& f : expand_ccu(r.value().trace, CcuOptions{})) r.value().findings.push_back(std::move(f));
  CheckResult res = run_checks(r.value().trace, std::move(r.value().findings), opt);
  std::vector<u16> codes;
  for (const auto& [key, n] : res.totals)
    for (u64 i = 0; i < n; ++i) codes.push_back(std::get<1>(key));
  std::sort(codes.begin(), codes.end());
  return codes;
}

std::string reader_error(const std::string& text) {
  Result<ReadTrace> r = read_jsonl_string(text, "t.jsonl");
  return r.ok() ? std::string() : r.error().message;
}

std::string header(const std::string& op_json, const std::string& extra) {
  return fmt::format("{{\"format\":\"collcheck-trace\",\"version\":1,\"op\":{}{}}}\n", op_json,
                     extra.empty() ? "" : "," + extra);
}

std::string source_dir() { return COLLCHECK_SOURCE_DIR; }

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::filesystem::path p = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p)) return p.string();
  }
  return "";
}

bool tools_required() {
  const char* ci = std::getenv("CI");
  return ci && *ci && std::string(ci) != "0" && std::string(ci) != "false";
}

int run_shell(const std::string& command) {
  int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("collcheck-test-{}", getpid());
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string without_times(const std::string& report) {
  // JSON: the check's and the reading's times, and every stage's.
  static const std::regex json_ms(R"(("ms"|"readMs"):[0-9.]+)");
  static const std::regex json_stages(R"("stages":\{[^}]*\})");
  static const std::regex number(R"(:[0-9.]+)");
  // Text ("in 18 ms", "stage mem: 0.1 ms"), JUnit XML (time="0.018").
  static const std::regex text(R"(( in | )[0-9.]+ ms)");
  static const std::regex junit(R"( time="[0-9.]+")");
  std::string s = std::regex_replace(report, json_ms, "$1:T");
  std::string out;
  auto tail = s.cbegin();
  for (std::sregex_iterator it(s.begin(), s.end(), json_stages), end; it != end; ++it) {
    out.append(tail, (*it)[0].first);
    out += std::regex_replace((*it)[0].str(), number, ":T");
    tail = (*it)[0].second;
  }
  out.append(tail, s.cend());
  return std::regex_replace(std::regex_replace(out, text, "$1T ms"), junit, " time=\"T\"");
}

RunResult run_collcheck(const std::string& args) {
  static int counter = 0;
  std::string out = temp_path(fmt::format("out{}.txt", counter));
  std::string err = temp_path(fmt::format("err{}.txt", counter++));
  std::string cmd = fmt::format("{} {} >{} 2>{}", COLLCHECK_BINARY, args, out, err);
  int rc = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace cc::test
