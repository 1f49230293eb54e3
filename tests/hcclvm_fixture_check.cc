// Importing and checking fixtures, for the tests (no GoogleTest here).
#include <filesystem>

#include "hcclvm_fixture.h"
#include "test_util.h"

namespace cc::test::vm {

Result<std::vector<LoadedCase>> import_fixture(const Fixture& f, const std::string& name, const InputOptions& options,
                                               std::string* path, const ExpandOptions& expand) {
  std::string p = temp_path(name + ".db");
  if (!f.files.empty()) {
    // Snapshot files have fixed names: each such fixture gets a directory.
    std::string dir = temp_path(name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    p = dir + "/hccl_vm_data.db";
  }
  std::string err = write_fixture(f, p);
  if (!err.empty()) return Error{"fixture: " + err};
  if (path) *path = p;
  return load_file(p, options, expand);
}

CheckResult check_case(LoadedCase& c, const CheckOptions& options) {
  CheckResult r = run_checks(c.read.trace, c.read.findings, options);
  r.input = c.name;
  return r;
}

std::set<int> codes(const CheckResult& r) {
  std::set<int> s;
  for (const auto& [key, n] : r.totals) s.insert(std::get<1>(key));
  return s;
}

std::string codes_text(const std::set<int>& codes) {
  std::string s;
  for (int c : codes) s += (s.empty() ? "" : ",") + std::to_string(c);
  return "{" + s + "}";
}

bool has_tag(const CheckResult& r, const std::string& tag) { return find(r, 0, tag) != nullptr; }

const Finding* find(const CheckResult& r, int code, const std::string& tag) {
  for (const Finding& f : r.findings)
    if (f.code == code && (tag.empty() || f.tag == tag)) return &f;
  return nullptr;
}

}  // namespace cc::test::vm
