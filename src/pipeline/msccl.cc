#include "pipeline/msccl.h"

#include <fmt/format.h>

#include <chrono>

#include "io/msccl/xml_reader.h"

namespace cc {

namespace {

bool selected(const std::string& glob, const std::string& file, const std::string& mode) {
  return glob.empty() || glob_match(glob, mode) || glob_match(glob, file + "#" + mode);
}

Result<std::vector<MscclCase>> cases_of(Result<msccl::Program> p, const msccl::Options& o,
                                        const std::string& case_glob) {
  if (!p) return p.error();
  const std::string& file = p.value().file;
  Result<std::vector<MscclCase>> mapped = msccl::map_program(p.value(), o);
  if (!mapped || case_glob.empty()) return mapped;
  std::vector<MscclCase> out;
  for (MscclCase& m : mapped.value())
    if (selected(case_glob, file, m.mode)) out.push_back(std::move(m));
  return out;
}

}  // namespace

Result<std::vector<LoadedCase>> map_msccl_cases(std::vector<LoadedCase> cases, const std::string& case_glob,
                                                const msccl::Options& options) {
  std::vector<LoadedCase> out;
  for (LoadedCase& c : cases) {
    if (!c.msccl) {
      out.push_back(std::move(c));
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    Result<std::vector<MscclCase>> mapped = msccl::map_program(*c.msccl, options);
    if (!mapped) return mapped.error();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::size_t n = mapped->size();
    for (MscclCase& m : mapped.value()) {
      if (!selected(case_glob, c.name, m.mode)) continue;
      LoadedCase mc;
      mc.name = c.name + "#" + m.mode;
      mc.read = ReadTrace{std::move(m.trace), std::move(m.findings), {}};
      // Each mode's share of the file's reading and mapping, as the
      // expansion of a CCU case is counted (reading includes it).
      double share = ms / static_cast<double>(n);
      mc.expand_times.emplace_back("msccl", share);
      mc.read_ms = c.read_ms / static_cast<double>(n) + share;
      mc.expand_stats.push_back(fmt::format("msccl: {} tasks mapped from the {} mode", mc.read.trace.tasks.size(),
                                            m.mode));
      out.push_back(std::move(mc));
    }
  }
  return out;
}

Result<std::vector<MscclCase>> read_msccl_file(const std::string& path, const msccl::Options& o,
                                               const std::string& case_glob) {
  CC_TRY(msccl::validate(o));
  return cases_of(read_msccl_program_file(path), o, case_glob);
}

Result<std::vector<MscclCase>> read_msccl_string(std::string_view text, const std::string& display,
                                                 const msccl::Options& o) {
  CC_TRY(msccl::validate(o));
  return cases_of(read_msccl_program_string(text, display), o, {});
}

}  // namespace cc
