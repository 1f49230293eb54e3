// `collcheck mutate`: write faulty variants of a trace (cli.md, algorithms.md §17).
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/msccl_tools.h"
#include "export/jsonl.h"
#include "mutate/mutants.h"
#include "pipeline/pipeline.h"

namespace cc {

namespace {

struct MutateArgs : InputArgs {
  std::string input, kind, output = ".";
  u64 seed = 1;
  u32 count = 1;
  bool list = false;
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
  u32 written = 0;
  for (mutate::FaultKind k : kinds) {
    auto mutants = mutate::make_mutants(t, k, a.seed, a.count);
    if (!mutants) return print_error(mutants.error().message), 2;
    const mutate::FaultInfo& f = mutate::fault_info(k);
    if (mutants->empty() && kinds.size() == 1) {
      print_error(fmt::format("{}: no place to apply {} ({})", a.input, f.name, f.what));
      return 2;
    }
    for (const mutate::Mutant& m : *mutants) {
      std::string path = (std::filesystem::path(a.output) /
                          fmt::format("{}.{}.{}.jsonl", stem(a.input, cases->front().name), f.name, m.site_index))
                             .string();
      if (Status st = write_jsonl_file(m.trace, path); !st) return print_error(st.message()), 2;
      std::printf("%s: %s | %s\n", path.c_str(), m.what.c_str(), m.label.text.c_str());
      ++written;
    }
  }
  if (written == 0) std::printf("no mutant: no kind applies to %s\n", a.input.c_str());
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
  add_input_options(c, *a);  // --case: of inputs with several operators, the one to mutate
  return [a] { return run_mutate(*a); };
}

}  // namespace cc
