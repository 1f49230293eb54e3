// `collcheck mutate`: write faulty variants of a trace (cli.md, algorithms.md §17).
#include <fmt/format.h>

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/msccl_tools.h"
#include "export/jsonl.h"
#include "cli/disk_room.h"
#include "mutate/mutant_stream.h"
#include "pipeline/pipeline.h"
#include "pipeline/progress_line.h"

namespace cc {

namespace {

struct MutateArgs : InputArgs {
  std::string input, kind, output = ".";
  u64 seed = 1;
  u32 count = 1;
  bool list = false;
  LongRunArgs run;
};

std::string mutate_list_text() {
  std::string out = fmt::format("{:<27} {}\n", "KIND", "FAULT (codes that catch it)");
  for (const mutate::FaultInfo& f : mutate::fault_kinds()) {
    std::string codes;
    for (u16 c : f.codes) codes += fmt::format("{}{}", codes.empty() ? "" : ",", c);
    out += fmt::format("{:<27} {} ({})\n", f.name, f.what, codes);
  }
  return out;
}

// What mutant files are named after: "ring.jsonl" -> "ring";
// "a/b/x.jsonl.gz" -> "x"; a case of a database or an ST log, "FILE#CASE",
// -> CASE (an ST case is a gtest name with dots of its own).
std::string stem(const std::string& input, const std::string& case_name) {
  if (input == "-" && case_name == "-") return "stdin";
  if (case_name.size() > input.size() + 1 && case_name.compare(0, input.size() + 1, input + "#") == 0) {
    std::string s = case_name.substr(input.size() + 1);
    for (char& c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    return s;
  }
  std::string s = std::filesystem::path(input).filename().string();
  std::size_t dot = s.find('.');
  return dot == std::string::npos || dot == 0 ? s : s.substr(0, dot);
}

// Writes each mutant as it comes: to FILE.part, renamed when whole (an
// interrupted run leaves no truncated mutant under a mutant's name), then
// one line on standard output, with a progress line on standard error.
struct MutantWriter {
  std::string dir, stem;
  std::size_t total = 0;
  ProgressLine line;
  std::size_t written = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool shared_screen = isatty(1) != 0;  // stdout's lines would land on the progress line

  MutantWriter(std::string d, std::string s, std::size_t n, bool progress)
      : dir(std::move(d)), stem(std::move(s)), total(n), line(progress) {}

  Status write(const mutate::Mutant& m) {
    const mutate::FaultInfo& f = mutate::fault_info(m.kind);
    std::string path = (std::filesystem::path(dir) / fmt::format("{}.{}.{}.jsonl", stem, f.name, m.site_index)).string();
    CC_TRY(write_jsonl_file(m.trace, path + ".part"));
    std::error_code ec;
    std::filesystem::rename(path + ".part", path, ec);
    if (ec) return Error{fmt::format("cannot write {}: {}", path, ec.message())};
    ++written;
    if (shared_screen) line.clear();
    std::printf("%s: %s | %s\n", path.c_str(), m.what.c_str(), m.label.text.c_str());
    if (shared_screen) std::fflush(stdout);
    if (written == 1) CC_TRY(room_for_the_rest(path));
    if (line.enabled() && (shared_screen || line.due())) line.draw(progress_text());
    return {};
  }

  Status room_for_the_rest(const std::string& first) const {
    std::error_code ec;
    u64 size = std::filesystem::file_size(first, ec);
    if (ec) return {};
    std::filesystem::space_info sp = std::filesystem::space(dir, ec);
    if (ec) return {};
    return room_for_files(size, total - written, sp.available, dir, "mutants");
  }

  std::string progress_text() const {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string text = fmt::format("collcheck mutate: {}/{} mutants", written, total);
    if (written < total && s > 0) text += ", ETA " + progress_duration(s / written * (total - written));
    return text;
  }
};

int run_mutate(const MutateArgs& a) {
  if (a.list) {
    std::string s = mutate_list_text() + "\n" + msccl_mutate_list_text();
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
  }
  if (a.input.empty() || a.kind.empty()) {
    print_error("mutate: give INPUT and --kind (collcheck mutate --list)");
    return 2;
  }
  InputOptions lo;
  ExpandOptions expand;
  if (!load_options(a, lo, expand)) return 2;
  if (!start_memory_limit(a.run)) return 2;
  InputFormat format = lo.format != InputFormat::Unknown ? lo.format : detect_format(a.input, false);
  if (format == InputFormat::Msccl) {  // mutants as MSCCL XML
    msccl::Options mo;
    if (!msccl_options(a.msccl, mo)) return 2;
    return run_mutate_msccl(a.input, a.kind, a.seed, a.count, a.output, mo);
  }
  std::vector<mutate::FaultKind> kinds;
  if (a.kind == "all") {
    for (const mutate::FaultInfo& f : mutate::fault_kinds()) kinds.push_back(f.kind);
  } else if (const mutate::FaultInfo* f = mutate::find_fault(a.kind)) {
    kinds.push_back(f->kind);
  } else {
    print_error(fmt::format("unknown --kind \"{}\" (collcheck mutate --list)", a.kind));
    return 2;
  }
  // AIV faults change snapshots; each mutant is expanded when it is labelled.
  expand.aiv_enabled = false;
  auto cases = load_file(a.input, lo, expand);
  if (!cases) return print_error(cases.error().message), 2;
  if (cases->size() != 1) {
    print_error(fmt::format("{}: holds {} cases; choose one with --case", a.input, cases->size()));
    return 2;
  }
  const Trace& t = cases->front().read.trace;
  std::error_code ec;
  std::filesystem::create_directories(a.output, ec);
  if (ec) return print_error(fmt::format("cannot create {}: {}", a.output, ec.message())), 2;
  std::vector<mutate::MutantJob> jobs = mutate::plan_mutants(t, kinds, a.seed, a.count);
  if (jobs.empty() && kinds.size() == 1) {
    const mutate::FaultInfo& f = mutate::fault_info(kinds[0]);
    print_error(fmt::format("{}: no place to apply {} ({})", a.input, f.name, f.what));
    return 2;
  }
  if (jobs.empty()) {
    std::printf("no mutant: no kind applies to %s\n", a.input.c_str());
    return 0;
  }
  MutantWriter w{a.output, stem(a.input, cases->front().name), jobs.size(), progress_wanted(a.run)};
  // lo.threads: --threads, with 0 already turned into every core.
  Status st = mutate::stream_mutants(t, jobs, lo.threads, [&](mutate::Mutant&& m) { return w.write(m); });
  w.line.clear();
  if (!st) return print_error(st.message()), 2;
  return 0;
}

}  // namespace

CommandRun add_mutate_command(CLI::App& app) {
  auto a = std::make_shared<MutateArgs>();
  CLI::App* c = app.add_subcommand("mutate", "write faulty variants of a trace (--list lists the faults)");
  c->add_option("INPUT", a->input, "a trace (or any input collcheck check reads; - = standard input)");
  c->add_flag("--list", a->list, "print the fault kinds");
  c->add_option("--kind", a->kind, "the fault kind (see --list), or all");
  c->add_option("--seed", a->seed, "seed choosing the places (default 1)")->check(whole_number(0, ~u64{0}));
  c->add_option("--count", a->count, "mutants per kind, at distinct places; 0 = every place (default 1)")
      ->check(whole_number(0, ~u32{0}));
  c->add_option("-o,--output", a->output, "directory for the mutants (default: the current one)");
  add_long_run_options(c, a->run);
  add_input_options(c, *a);  // --case: of inputs with several operators, the one to mutate
  c->get_option("--threads")->description(
      "mutants made at once, and threads to read the input (default and 0: number of cores)");
  return [a] { return run_mutate(*a); };
}

}  // namespace cc
