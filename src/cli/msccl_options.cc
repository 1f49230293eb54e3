#include "cli/msccl_options.h"

#include <fmt/format.h>

#include "cli/commands.h"

namespace cc {

void add_msccl_options(CLI::App* c, MscclArgs& a) {
  msccl::Options& o = a.options;
  c->add_option("--msccl-chunk-bytes", o.chunk_bytes,
                "MSCCL: bytes one step moves per chunk per iteration (default 256; a positive multiple of 16)");
  c->add_option("--msccl-iterations", o.iterations,
                "MSCCL: times each thread block program runs; a chunk is iterations x chunk-bytes (default 2)");
  c->add_option("--msccl-reduce-op", a.reduce_op, "MSCCL: the call's reduce operator, SUM PROD MAX MIN (default SUM)");
  c->add_option("--msccl-data-type", a.data_type, "MSCCL: the call's data type (default FP32)");
  c->add_option("--msccl-root", o.root, "MSCCL: root of broadcast, reduce, gather, scatter (default 0)");
  c->add_option("--msccl-mode", a.mode,
                "MSCCL: check only this call mode, inplace or outofplace (default: every mode the file declares)");
  c->add_option("--msccl-fifo-depth", o.fifo_depth,
                "MSCCL: calls a connection holds in the deadlock model (default: 2 for Simple, 8 for LL and LL128)");
  c->add_option("--msccl-max-count", o.max_count,
                "MSCCL: chunks per call in the deadlock model, 1..71 (default: from the file's maxBytes)");
}

bool msccl_options(const MscclArgs& a, msccl::Options& out) {
  out = a.options;
  if (!a.reduce_op.empty()) {
    auto op = parse_reduce_op(a.reduce_op);
    if (!op) return print_error(fmt::format("unknown --msccl-reduce-op \"{}\" (SUM, PROD, MAX, MIN)", a.reduce_op)), false;
    out.reduce_op = *op;
  }
  if (!a.data_type.empty()) {
    auto dt = parse_data_type(a.data_type);
    if (!dt) return print_error(fmt::format("unknown --msccl-data-type \"{}\"", a.data_type)), false;
    out.data_type = *dt;
  }
  if (a.mode == "inplace") out.mode = msccl::ModeFilter::InPlace;
  else if (a.mode == "outofplace") out.mode = msccl::ModeFilter::OutOfPlace;
  else if (!a.mode.empty())
    return print_error(fmt::format("unknown --msccl-mode \"{}\" (inplace, outofplace)", a.mode)), false;
  if (Status s = msccl::validate(out); !s) return print_error(s.message()), false;
  return true;
}

}  // namespace cc
