// `collcheck convert`: any supported input to the trace format (one file per
// operator) or to an ST-framework dump (cli.md).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "export/jsonl.h"
#include "io/read.h"
#include "report/output_path.h"
#include "export/stlog.h"

namespace cc {

namespace {

struct ConvertArgs : InputArgs {
  std::string input, output, to = "jsonl";
};

// Writes `text` to `path` ("-": standard output), creating its directory.
std::string write_text(const std::string& path, const std::string& text) { return write_output(path, text, true); }

// The trace, with what its importer found and kept (carried in the header
// and as comments, so that checking it gives the same findings).
std::string jsonl_text(const LoadedCase& c) {
  std::string out = fmt::format("# collcheck convert of {}\n", c.name);
  for (const std::string& n : c.read.notes) out += "# " + n + "\n";
  out += jsonl_header(c.read.trace, c.read.findings);
  out += jsonl_ccu_lines(c.read.trace);
  out += jsonl_aiv_lines(c.read.trace);
  for (u32 id = 0; id < c.read.trace.tasks.size(); ++id) append_jsonl_task(c.read.trace, id, out);
  return out;
}

// DIR/OUT.op.json for DIR/OUT.EXT: the sidecar the ST-log reader looks for.
std::string sidecar_path(const std::string& log) {
  std::filesystem::path p(log);
  return (p.parent_path() / (p.stem().string() + ".op.json")).string();
}

int run_convert(const ConvertArgs& a) {
  if (a.to != "jsonl" && a.to != "stlog") {
    print_error(fmt::format("unknown --to \"{}\" (jsonl, stlog)", a.to));
    return 2;
  }
  InputOptions load;
  ExpandOptions expand;
  if (!load_options(a, load, expand)) return 2;
  // Not expanded: the written trace keeps CCU records, not their expansion
  // (an MSCCL program is still mapped: its trace is what convert writes).
  expand.enabled = false;
  Result<std::vector<LoadedCase>> cases = load_file(a.input, load, expand);
  if (!cases) {
    print_error(cases.error().message);
    return 2;
  }
  std::vector<LoadedCase>& all = cases.value();
  if (all.empty()) {
    print_error(fmt::format("{}: no case matches --case {}", a.input, a.case_glob));
    return 2;
  }
  bool several = all.size() > 1;
  if (several && a.output == "-") {
    print_error(fmt::format("{}: holds {} cases and -o - writes one; choose one with --case or name a file", a.input,
                            all.size()));
    return 2;
  }
  for (const LoadedCase& c : all) {
    std::string path = case_output_path(a.output, a.input, c.name, several);
    std::string err;
    if (a.to == "jsonl") {
      err = write_text(path, jsonl_text(c));
    } else {
      Result<StLogOutput> st = write_stlog(c.read.trace, "");
      if (!st) {
        print_error(fmt::format("{}: {}", c.name, st.error().message));
        return 2;
      }
      err = write_text(path, st.value().log);
      if (err.empty() && path != "-" && !st.value().sidecar.empty())
        err = write_text(sidecar_path(path), st.value().sidecar);
      for (const std::string& n : st.value().notes)
        std::fprintf(stderr, "collcheck: note: %s: %s\n", c.name.c_str(), n.c_str());
    }
    if (!err.empty()) {
      print_error(err);
      return 2;
    }
    if (several) std::printf("%s -> %s\n", c.name.c_str(), path.c_str());
  }
  return 0;
}

}  // namespace

CommandRun add_convert_command(CLI::App& app) {
  auto a = std::make_shared<ConvertArgs>();
  CLI::App* c = app.add_subcommand("convert", "any supported input to the trace format or an ST dump");
  c->add_option("INPUT", a->input, "a trace, HCCL VM database or ST log (- = standard input)")->required();
  c->add_option("-o,--output", a->output,
                "output file (- = standard output; missing directories are created); an input of several "
                "cases gives one file per case, named FILE with the case before its extension")
      ->required();
  c->add_option("--to", a->to,
                "jsonl (the trace format, default) or stlog (an ST-framework dump; the operator parameters go "
                "to a sidecar OUT.op.json next to it)");
  add_input_options(c, *a);
  return [a] { return run_convert(*a); };
}

}  // namespace cc
