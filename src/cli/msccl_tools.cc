#include "cli/msccl_tools.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "gen/msccl_gen.h"
#include "io/msccl/xml_reader.h"
#include "msccl/writer.h"
#include "mutate/msccl_mutate.h"

namespace cc {

namespace {

std::string write_text_file(const std::string& path, const std::string& text) {
  return write_output(path.empty() ? "-" : path, text);
}

}  // namespace

int run_gen_msccl(const std::string& algo, const std::string& op_type, unsigned ranks, const std::string& output,
                  bool list) {
  if (list) {
    std::string out = fmt::format("{:<10} {:<30} {}\n", "ALGORITHM", "OPERATORS", "SCHEDULE (MSCCL XML)");
    for (const gen::MscclAlgorithm& a : gen::msccl_algorithms()) {
      std::string ops;
      for (OpType o : a.ops) ops += fmt::format("{}{}", ops.empty() ? "" : ",", name(o));
      out += fmt::format("{:<10} {:<30} {}\n", a.name, ops, a.summary);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  if (algo.empty()) return print_error("gen: name an algorithm (collcheck gen --format msccl --list)"), 2;
  OpType op = OpType::AllReduce;
  if (!op_type.empty()) {
    auto o = parse_op_type(op_type);
    if (!o) return print_error(fmt::format("unknown --op-type \"{}\"", op_type)), 2;
    op = *o;
  }
  Result<msccl::Program> p = gen::generate_msccl(algo, op, ranks);
  if (!p) return print_error(p.error().message), 2;
  std::string err = write_text_file(output, msccl::write_xml(p.value()));
  if (!err.empty()) return print_error(err), 2;
  return 0;
}

std::string msccl_mutate_list_text() {
  std::string out = fmt::format("{:<27} {}\n", "KIND (MSCCL files)", "FAULT (codes that catch it)");
  for (const mutate::MscclFaultInfo& f : mutate::msccl_faults()) {
    std::string codes;
    for (u16 c : f.codes) codes += fmt::format("{}{}", codes.empty() ? "" : ",", c);
    out += fmt::format("{:<27} {} ({})\n", f.name, f.what, codes);
  }
  return out;
}

bool is_msccl_kind(const std::string& kind) { return mutate::find_msccl_fault(kind) != nullptr; }

int run_mutate_msccl(const std::string& input, const std::string& kind, unsigned long long seed, unsigned count,
                     const std::string& output_dir, const msccl::Options& options) {
  std::vector<mutate::MscclFault> kinds;
  if (kind == "all") {
    for (const mutate::MscclFaultInfo& f : mutate::msccl_faults()) kinds.push_back(f.kind);
  } else if (const mutate::MscclFaultInfo* f = mutate::find_msccl_fault(kind)) {
    kinds.push_back(f->kind);
  } else {
    return print_error(fmt::format("--kind \"{}\" is not a fault of MSCCL files (collcheck mutate --list)", kind)), 2;
  }
  Result<msccl::Program> p = read_msccl_program_file(input);
  if (!p) return print_error(p.error().message), 2;
  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  if (ec) return print_error(fmt::format("cannot create {}: {}", output_dir, ec.message())), 2;
  std::string stem = std::filesystem::path(input).filename().string();
  if (std::size_t dot = stem.find('.'); dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  unsigned written = 0;
  for (mutate::MscclFault k : kinds) {
    const mutate::MscclFaultInfo& f = mutate::msccl_fault_info(k);
    auto mutants = mutate::make_msccl_mutants(p.value(), k, seed, count, options);
    if (!mutants) return print_error(mutants.error().message), 2;
    if (mutants->empty() && kinds.size() == 1)
      return print_error(fmt::format("{}: no place to apply {} ({})", input, f.name, f.what)), 2;
    for (const mutate::MscclMutant& m : *mutants) {
      std::string path =
          (std::filesystem::path(output_dir) / fmt::format("{}.{}.{}.xml", stem, f.name, m.site_index)).string();
      std::string err = write_text_file(path, m.xml);
      if (!err.empty()) return print_error(err), 2;
      std::printf("%s: %s | %s\n", path.c_str(), m.what.c_str(), m.label.text.c_str());
      ++written;
    }
  }
  if (written == 0) std::printf("no mutant: no kind applies to %s\n", input.c_str());
  return 0;
}

}  // namespace cc
