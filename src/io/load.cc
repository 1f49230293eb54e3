#include "io/load.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/hcclvm_db.h"
#include "io/stlog_reader.h"
#include "ccu/machine.h"

namespace cc {

namespace fs = std::filesystem;

bool glob_match(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const std::string& a : args) {
    std::error_code ec;
    fs::file_status st = fs::status(a, ec);
    if (ec || !fs::exists(st)) return Error{fmt::format("{}: no such file or directory", a)};
    if (!fs::is_directory(st)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string p = it->path().string();
      if (detect_format(p, true) != InputFormat::Unknown) found.push_back(p);
    }
    if (ec) return Error{fmt::format("{}: {}", a, ec.message())};
    if (found.empty()) return Error{fmt::format("{}: no supported input below this directory", a)};
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

namespace {

// Expands the CCU missions of every case, in file order (ccu.md).
void expand_cases(std::vector<LoadedCase>& cases, const LoadOptions& opt) {
  if (!opt.expand_ccu) return;
  ccu::CcuCarry carry;
  for (LoadedCase& c : cases) {
    Trace& t = c.read.trace;
    if (t.ccu.sqes.empty()) continue;
    auto t0 = std::chrono::steady_clock::now();
    CcuExpansionStats st;
    std::vector<Finding> found = expand_ccu(t, opt.ccu, &carry, &st);
    for (Finding& f : found) c.read.findings.push_back(std::move(f));
    c.ccu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    c.ccu_stats = fmt::format("ccu: {} missions, {} nodes, {} words executed, {} loops merged", st.missions,
                              st.nodes, st.steps, st.merged_loops);
  }
}

}  // namespace

namespace {

LoadedCase loaded(std::string name, ReadTrace read) {
  LoadedCase c;
  c.name = std::move(name);
  c.read = std::move(read);
  return c;
}

Result<std::vector<LoadedCase>> read_cases(const std::string& path, const LoadOptions& opt) {
  InputFormat f = opt.format != InputFormat::Unknown ? opt.format : detect_format(path, false);
  std::vector<LoadedCase> cases;
  switch (f) {
    case InputFormat::Jsonl: {
      Result<ReadTrace> r = read_jsonl_file(path);
      if (!r) return r.error();
      cases.push_back(loaded(path, std::move(r.value())));
      return cases;
    }
    case InputFormat::StLog: {
      Result<std::vector<StLogCase>> r = read_stlog_file(path, StLogOptions{opt.op, opt.case_glob});
      if (!r) return r.error();
      for (StLogCase& c : r.value()) cases.push_back(loaded(path + "#" + c.name, std::move(c.read)));
      return cases;
    }
    case InputFormat::HcclVmDb:
      return read_hcclvm_db(path, opt);
    case InputFormat::Unknown:
      break;
  }
  return Error{fmt::format("{}:1: not a collcheck trace, HCCL VM database or HCCL ST log", path)};
}

}  // namespace

Result<std::vector<LoadedCase>> load_file(const std::string& path, const LoadOptions& opt) {
  Result<std::vector<LoadedCase>> cases = read_cases(path, opt);
  if (cases) expand_cases(cases.value(), opt);
  return cases;
}

}  // namespace cc
