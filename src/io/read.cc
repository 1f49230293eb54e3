#include "io/read.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>

#include "io/byte_source.h"
#include "io/hcclvm/db.h"
#include "io/jsonl/reader.h"
#include "io/msccl/xml_reader.h"
#include "io/stlog/reader.h"

namespace cc {

namespace fs = std::filesystem;

namespace {

// Documentation beside traces (a README quoting a log line would otherwise
// look like an ST log): never an input of a directory scan.
bool is_documentation(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".md" || ext == ".markdown" || ext == ".rst" || ext == ".adoc" || ext == ".html" || ext == ".htm";
}

}  // namespace

Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args,
                                               std::vector<std::string>* skipped) {
  std::vector<std::string> files;
  for (const std::string& a : args) {
    std::error_code ec;
    fs::file_status st = fs::status(a, ec);
    // "-" (standard input) and a missing file stay: reading them says what
    // is wrong, as an unusable input of the run, and the others are checked.
    if (a == "-" || ec || !fs::exists(st) || !fs::is_directory(st)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string p = it->path().string();
      if (!is_documentation(it->path()) && detect_format(p, true) != InputFormat::Unknown)
        found.push_back(p);
      else if (skipped)
        skipped->push_back(p);
    }
    if (ec) return Error{fmt::format("{}: {}", a, ec.message())};
    if (found.empty()) return Error{fmt::format("{}: no supported input below this directory", a)};
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

namespace {

void rename_prefix(std::string& s, const std::string& from, const std::string& to) {
  if (s.compare(0, from.size(), from) == 0) s = to + s.substr(from.size());
}

// A database on standard input is read from its copy (SQLite needs a file),
// and its cases and messages are then named "-" like any other input's.
Result<std::vector<LoadedCase>> read_hcclvm_db_named(const std::string& name, const InputOptions& opt) {
  Result<std::string> real = input_path(name);
  if (!real) return Error{fmt::format("{}: {}", name, real.error().message)};
  if (*real == name) return read_hcclvm_db(name, opt);
  Result<std::vector<LoadedCase>> r = read_hcclvm_db(*real, opt);
  if (!r) {
    std::string m = r.error().message;
    for (std::size_t at = m.find(*real); at != std::string::npos; at = m.find(*real, at + name.size()))
      m.replace(at, real->size(), name);
    return Error{m};
  }
  for (LoadedCase& c : r.value()) {
    rename_prefix(c.name, *real, name);
    rename_prefix(c.read.trace.file, *real, name);
  }
  return r;
}

LoadedCase loaded(std::string name, ReadTrace read) {
  LoadedCase c;
  c.name = std::move(name);
  c.read = std::move(read);
  return c;
}

}  // namespace

Result<std::vector<LoadedCase>> read_file(const std::string& path, const InputOptions& opt) {
  if (path != "-") {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Error{fmt::format("{}: no such file or directory", path)};
    if (fs::is_directory(path, ec)) return Error{fmt::format("{}: is a directory", path)};
  }
  InputFormat f = opt.format != InputFormat::Unknown ? opt.format : detect_format(path, false);
  std::vector<LoadedCase> cases;
  switch (f) {
    case InputFormat::Jsonl: {
      Result<ReadTrace> r = read_jsonl_file(path, opt.threads);
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
      return read_hcclvm_db_named(path, opt);
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
