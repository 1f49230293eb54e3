// Test helper: CCU traces (format version 2) written by test code, their
// expansion, and a canonical text of the expanded nodes and edges.
#pragma once

#include <string>
#include <vector>

#include "ccu/expand.h"
#include "ccu_asm.h"
#include "pipeline/stages.h"
#include "model/trace.h"

namespace cc::test {

struct CcuProgram {
  std::string op = R"({"type":"AllReduce","ranks":2,"dataType":"FP32","count":64,"reduceOp":"SUM"})";
  std::string buffers;  // e.g. R"("buffers":{"CCL":4096})" (without braces around)
  std::string isa = "A5";
  std::vector<std::string> lines;  // data and task lines, in order

  void image(u32 rank, u32 die, u32 start, const std::vector<ccu::Word>& words, int size = -1);
  void channel(u32 rank, u32 die, u32 ch, u32 dst_rank, u32 dst_die);
  void address(u32 rank, const std::string& buf, u64 addr);
  void die_base(u32 rank, u32 die, u64 base);
  // A CCU_GRAPH task line; arg_size < 0: the number of args.
  void sqe(u32 rank, u32 stream, u32 die, u32 mission, u32 start, u32 count, const std::vector<u64>& args,
           int arg_size = -1);
  void line(const std::string& task_line) { lines.push_back(task_line); }

  std::string text() const;
};

struct Expanded {
  Trace trace;
  std::vector<Finding> findings;  // reader's and expansion's
};

// Reads `text` (the test fails on a reader error) and expands it.
Expanded expand_text(const std::string& text, const CcuOptions& opt = {});
// Codes of the expansion's findings alone (sorted, repeated), errors and warnings.
std::vector<u16> expansion_codes(const Expanded& e, bool warnings = false);
// Tags of its named warnings (sorted).
std::vector<std::string> warning_tags(const Expanded& e);
// Every finding of a full check of `text` with the CCU options: (code, tag)
// pairs, sorted; and the check result itself.
CheckResult check_text(const std::string& text, const CcuOptions& ccu = {}, const CheckOptions& opt = {});
std::vector<u16> error_codes(const CheckResult& r);  // sorted, each code once

// One line per CCU node of every mission, in mission and creation order:
// "m0.3 WAIT die 0 cke 8 0x1 <- m0.2 m1.2", data nodes with their slices,
// then one line per edge between a host task and a CCU node
// ("host 0/0/0 -> m0.0", "m0.9 -> host 0/0/0").
std::string render_ccu(const Trace& t);

}  // namespace cc::test
