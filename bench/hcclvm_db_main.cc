// bench_hcclvm_db ALGO RANKS STEM [OP]: writes STEM.db, the HCCL VM database
// of a `collcheck gen` schedule (--fold-ccl, count 65536 FP32), and
// STEM.jsonl, the same schedule as a trace, so that `collcheck check` can be
// timed on both (docs/PERFORMANCE.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gen/registry.h"
#include "hcclvm_fixture.h"
#include "export/jsonl.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_hcclvm_db ALGO RANKS STEM [OP]\n");
    return 2;
  }
  cc::gen::GenParams p;
  p.ranks = static_cast<cc::u32>(std::strtoul(argv[2], nullptr, 10));
  p.count = 65536;
  p.fold_ccl = true;
  auto op = argc > 4 ? cc::parse_op_type(argv[4]) : std::nullopt;
  if (op) p.op = *op;
  cc::Result<cc::Trace> t = cc::gen::generate(argv[1], p, op.has_value());
  if (!t) {
    std::fprintf(stderr, "bench_hcclvm_db: %s\n", t.error().message.c_str());
    return 2;
  }
  std::string stem = argv[3], err;
  cc::test::vm::Fixture f = cc::test::vm::from_trace(*t, err);
  auto t0 = std::chrono::steady_clock::now();
  if (err.empty()) err = cc::test::vm::write_fixture(f, stem + ".db");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (err.empty())
    if (cc::Status st = cc::write_jsonl_file(*t, stem + ".jsonl"); !st) err = st.message();
  if (!err.empty()) {
    std::fprintf(stderr, "bench_hcclvm_db: %s\n", err.c_str());
    return 2;
  }
  std::printf("%s.db: %zu tasks, written in %.0f ms\n", stem.c_str(), t->tasks.size(), ms);
  return 0;
}
