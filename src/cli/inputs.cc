// What every subcommand shares: the error line, and how inputs are named
// and read (--format, --op, --case, the HCCL VM flags).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "pipeline/pipeline.h"

namespace cc {

void print_error(const std::string& message) {
  std::fprintf(stderr, "collcheck: error: %s\n", message.c_str());
}

std::string write_output(const std::string& path, std::string_view data, bool make_dirs) {
  if (path == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout);
    return std::fflush(stdout) == 0 ? "" : fmt::format("cannot write standard output: {}", std::strerror(errno));
  }
  if (make_dirs) {
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      std::filesystem::create_directories(dir, ec);
      if (ec) return fmt::format("cannot write {}: cannot create {}: {}", path, dir.string(), ec.message());
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return fmt::format("cannot write {}: {}", path, std::strerror(errno));
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  int why = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    why = errno;
  }
  return ok ? "" : fmt::format("cannot write {}: {}", path, std::strerror(why ? why : EIO));
}

void add_input_options(CLI::App* c, InputArgs& a) {
  c->add_option("--format", a.format, "input format: jsonl, hcclvm-db, stlog or msccl (default: detect)");
  c->add_option("--op", a.op, "operator parameters (JSON or file) for inputs without them");
  c->add_option("--case", a.case_glob, "only the cases whose name matches this glob");
  c->add_flag("--keep-stream-ids", a.keep_stream_ids,
              "HCCL VM database: keep a rank's recorded stream ids even when it has no stream 0");
  c->add_flag("--recorded-peers", a.recorded_peers,
              "HCCL VM database: trust a notify peer the record stores instead of inferring it from the id");
  c->add_option("--aiv-dir", a.aiv_dir,
                "HCCL VM database: the directory of the AIV snapshot files (default: the database's own)");
  c->add_option("--threads", a.threads,
                 "threads inside one operator: an HCCL VM database's task tables or a large trace file are read, "
                 "and the memory domains of stage 4 swept, in parallel "
                 "(default and 0: number of cores; with -j, shared among the inputs checked at once)")
      ->check(whole_number(0, 4096));
  add_msccl_options(c, a.msccl);
}

bool load_options(const InputArgs& a, InputOptions& load, ExpandOptions& expand) {
  if (!a.format.empty()) {
    load.format = parse_format(a.format);
    if (load.format == InputFormat::Unknown) {
      print_error(fmt::format("unknown --format \"{}\" (jsonl, hcclvm-db, stlog, msccl)", a.format));
      return false;
    }
  }
  load.op = a.op;
  load.case_glob = a.case_glob;
  load.keep_stream_ids = a.keep_stream_ids;
  load.recorded_peers = a.recorded_peers;
  load.aiv_dir = a.aiv_dir;
  load.threads = a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency());
  return msccl_options(a.msccl, expand.msccl);
}

Result<std::vector<LoadedCase>> load_tool_input(const std::string& input, const std::string& format,
                                                const std::string& case_glob, bool expand) {
  InputOptions l;
  if (!format.empty()) {
    l.format = parse_format(format);
    if (l.format == InputFormat::Unknown) return Error{fmt::format("unknown --format \"{}\"", format)};
  }
  l.case_glob = case_glob;
  l.threads = std::max(1u, std::thread::hardware_concurrency());
  ExpandOptions e;
  e.enabled = expand;
  return load_file(input, l, e);
}

}  // namespace cc
