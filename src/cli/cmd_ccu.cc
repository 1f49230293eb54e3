// `collcheck ccu-dis`: the CCU instruction images of an input (or words
// given in hex), one instruction per line.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "ccu/disasm.h"
#include "cli/commands.h"

namespace cc {

namespace {

struct DisArgs {
  std::string input, format, case_glob, isa;
  std::vector<std::string> hex;
  std::vector<u32> ranks, dies;
  u32 from = 0, to = kCcuMaxWords;
};

bool parse_isa(const std::string& s, CcuIsa& out) {
  if (s == "A5") out = CcuIsa::A5;
  else if (s == "A6") out = CcuIsa::A6;
  else return false;
  return true;
}

bool selected(const std::vector<u32>& list, u32 v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

int run_dis(const DisArgs& a) {
  CcuIsa isa = CcuIsa::A5;
  if (!a.isa.empty() && !parse_isa(a.isa, isa)) {
    print_error(fmt::format("unknown --isa \"{}\" (A5, A6)", a.isa));
    return 2;
  }
  if (!a.hex.empty()) {
    for (const std::string& h : a.hex) {
      ccu::Word w;
      if (!ccu::parse_word_hex(h, w)) {
        print_error(fmt::format("--hex {}: not 64 hexadecimal digits", h));
        return 2;
      }
      std::printf("%04x  %s\n", w.header(), ccu::disasm(isa, w).c_str());
    }
    if (a.input.empty()) return 0;
  }
  if (a.input.empty()) {
    print_error("ccu-dis needs an INPUT or --hex words");
    return 2;
  }
  auto cases = load_tool_input(a.input, a.format, a.case_glob, false);
  if (!cases) {
    print_error(cases.error().message);
    return 2;
  }
  for (const LoadedCase& c : cases.value()) {
    const CcuData& ccu = c.read.trace.ccu;
    CcuIsa case_isa = a.isa.empty() ? ccu.isa : isa;
    if (cases.value().size() > 1) std::printf("== %s\n", c.name.c_str());
    if (ccu.images.empty()) std::printf("(no CCU instruction image)\n");
    for (const CcuImage& img : ccu.images) {
      if (!selected(a.ranks, img.rank) || !selected(a.dies, img.die)) continue;
      std::printf("# rank %u die %u: %u words (%s)\n", img.rank, img.die, img.size, case_isa == CcuIsa::A6 ? "A6" : "A5");
      std::string s = ccu::disasm_image(case_isa, img, a.from, a.to);
      std::fwrite(s.data(), 1, s.size(), stdout);
    }
  }
  return 0;
}

}  // namespace

CommandRun add_ccu_dis_command(CLI::App& app) {
  auto a = std::make_shared<DisArgs>();
  CLI::App* c = app.add_subcommand("ccu-dis", "disassemble the CCU instruction images of an input");
  c->add_option("INPUT", a->input, "a trace (version 2) or HCCL VM database");
  c->add_option("--hex", a->hex, "disassemble these 32-byte words (64 hex digits, byte 0 first) instead");
  c->add_option("--isa", a->isa, "A5 or A6 (default: the input's; A5 for --hex)");
  c->add_option("--rank", a->ranks, "only these ranks");
  c->add_option("--die", a->dies, "only these dies");
  c->add_option("--from", a->from, "first instruction id (default 0)");
  c->add_option("--to", a->to, "instruction id to stop before (default: the image's end)");
  c->add_option("--format", a->format, "input format: jsonl or hcclvm-db (default: detect)");
  c->add_option("--case", a->case_glob, "only the cases whose name matches this glob");
  return [a] { return run_dis(*a); };
}

}  // namespace cc
