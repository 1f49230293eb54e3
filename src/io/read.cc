#include "io/read.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "io/hcclvm/db.h"
#include "io/jsonl/reader.h"
#include "io/msccl/xml_reader.h"
#include "io/stlog/reader.h"

namespace cc {

namespace fs = std::filesystem;


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

LoadedCase loaded(std::string name, ReadTrace read) {
  LoadedCase c;
  c.name = std::move(name);
  c.read = std::move(read);
  return c;
}

}  // namespace

Result<std::vector<LoadedCase>> read_file(const std::string& path, const InputOptions& opt) {
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
    case InputFormat::Msccl: {
      // A program, not a record: one case holding it, which the pipeline
      // maps into a case per call mode (pipeline/msccl.h).
      Result<msccl::Program> r = read_msccl_program_file(path);
      if (!r) return r.error();
      LoadedCase c;
      c.name = path;
      c.msccl = std::make_shared<const msccl::Program>(std::move(r.value()));
      cases.push_back(std::move(c));
      return cases;
    }
    case InputFormat::Unknown:
      break;
  }
  return Error{fmt::format("{}:1: not a collcheck trace, HCCL VM database, HCCL ST log or MSCCL algorithm", path)};
}

}  // namespace cc
