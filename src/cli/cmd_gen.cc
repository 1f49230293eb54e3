// `collcheck gen`: write the trace of a reference schedule (cli.md, algorithms.md).
#include <fmt/format.h>
#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "gen/aiv.h"
#include "cli/msccl_tools.h"
#include "gen/registry.h"
#include "export/jsonl.h"

namespace cc {

namespace {

struct GenArgs {
  std::string algo, dtype = "FP32", op_type, reduce_op = "SUM", mode = "opbase", send_counts, output, format;
  gen::GenParams p;
  u32 blocks = 4;
  bool list = false;
};

std::string gen_list_text() {
  std::string out = fmt::format("{:<18} {:<52} {}\n", "ALGORITHM", "OPERATORS", "SCHEDULE");
  for (const gen::Algorithm& a : gen::algorithms()) {
    std::string ops;
    for (OpType o : a.ops) ops += fmt::format("{}{}", ops.empty() ? "" : ",", name(o));
    out += fmt::format("{:<18} {:<52} {}\n", a.name, ops, a.summary);
  }
  for (const gen::AivAlgorithm& a : gen::aiv_algorithms())
    out += fmt::format("{:<18} {:<52} {} (--blocks)\n", a.name, name(a.op), a.summary);
  out += "ALGO may also name the operator (ring-allgather, mesh_ReduceScatter); hd is also rhd or "
         "recursive-hd.\n";
  return out;
}

// --send-counts: a JSON matrix, inline or in a file.
Result<std::vector<u64>> parse_matrix(const std::string& text) {
  std::vector<u64> out;
  std::string json = text;
  if (!text.empty() && text.front() != '[') {
    std::ifstream f(text, std::ios::binary);
    if (!f) return Error{fmt::format("--send-counts: cannot read {}", text)};
    std::stringstream ss;
    ss << f.rdbuf();
    json = ss.str();
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc)) return Error{"--send-counts: not valid JSON"};
  simdjson::dom::array rows;
  if (doc.get_array().get(rows)) return Error{"--send-counts: expected an array of rows"};
  for (simdjson::dom::element row : rows) {
    simdjson::dom::array cells;
    if (row.get_array().get(cells)) return Error{"--send-counts: every row must be an array"};
    for (simdjson::dom::element c : cells) {
      u64 v;
      if (c.get_uint64().get(v)) return Error{"--send-counts: entries must be unsigned integers"};
      out.push_back(v);
    }
  }
  return out;
}

int run_gen(GenArgs& a) {
  if (a.format == "msccl") return run_gen_msccl(a.algo, a.op_type, a.p.ranks, a.output, a.list);
  if (!a.format.empty() && a.format != "jsonl")
    return print_error(fmt::format("unknown --format \"{}\" (jsonl, msccl)", a.format)), 2;
  if (a.list) {
    std::string s = gen_list_text();
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
  }
  if (a.algo.empty()) {
    print_error("gen: name an algorithm (collcheck gen --list)");
    return 2;
  }
  auto dt = parse_data_type(a.dtype);
  auto rop = parse_reduce_op(a.reduce_op);
  if (!dt) return print_error(fmt::format("unknown --dtype \"{}\"", a.dtype)), 2;
  if (!rop) return print_error(fmt::format("unknown --reduce-op \"{}\"", a.reduce_op)), 2;
  if (a.mode != "opbase" && a.mode != "graph")
    return print_error(fmt::format("--mode must be opbase or graph, not \"{}\"", a.mode)), 2;
  a.p.dtype = *dt;
  a.p.reduce_op = *rop;
  a.p.graph = a.mode == "graph";
  bool op_given = !a.op_type.empty();
  if (op_given) {
    auto op = parse_op_type(a.op_type);
    if (!op) return print_error(fmt::format("unknown --op-type \"{}\"", a.op_type)), 2;
    a.p.op = *op;
  }
  if (!a.send_counts.empty()) {
    Result<std::vector<u64>> counts = parse_matrix(a.send_counts);
    if (!counts) return print_error(counts.error().message), 2;
    a.p.send_counts = std::move(*counts);
  }
  Result<Trace> t = Error{};
  if (const gen::AivAlgorithm* aiv = gen::find_aiv_algorithm(a.algo)) {
    if (op_given && a.p.op != aiv->op)
      return print_error(fmt::format("{} generates {}, not {}", aiv->name, name(aiv->op), name(a.p.op))), 2;
    gen::AivGenParams ap;
    ap.op = aiv->op;
    ap.ranks = a.p.ranks;
    ap.blocks = a.blocks;
    ap.count = a.p.count;
    ap.dtype = a.p.dtype;
    ap.reduce_op = a.p.reduce_op;
    t = gen::generate_aiv(ap);
  } else {
    t = gen::generate(a.algo, a.p, op_given);
  }
  if (!t) return print_error(t.error().message), 2;
  Status st = a.output.empty() || a.output == "-" ? write_jsonl(*t, stdout) : write_jsonl_file(*t, a.output);
  if (!st) return print_error(st.message()), 2;
  return 0;
}

}  // namespace

CommandRun add_gen_command(CLI::App& app) {
  auto a = std::make_shared<GenArgs>();
  a->p.ranks = 4;
  a->p.count = 65536;
  CLI::App* c = app.add_subcommand("gen", "write the trace of a reference schedule of HCCL's algorithms (--list lists them)");
  c->add_option("ALGO", a->algo, "the algorithm (see --list)");
  c->add_flag("--list", a->list, "print every algorithm with the operators it serves");
  c->add_option("--ranks", a->p.ranks, "number of ranks (default 4)")
      ->check(whole_number(0, ~u32{0}));
  c->add_option("--count", a->p.count, "elements per rank, as the operator defines them (default 65536)")
      ->check(whole_number(0, ~u64{0}));
  c->add_option("--dtype", a->dtype, "data type (default FP32)");
  c->add_option("--op-type", a->op_type, "the operator, when the algorithm serves several (default: the first listed)");
  c->add_option("--reduce-op", a->reduce_op, "SUM, PROD, MAX or MIN (default SUM)");
  c->add_option("--root", a->p.root, "root rank (SendRecv: the sender; the receiver is root+1)")
      ->check(whole_number(0, ~u32{0}));
  c->add_option("--seed", a->p.seed, "seed for drawn parameters (AllToAllV, BatchSendRecv matrix; default 1)")
      ->check(whole_number(0, ~u64{0}));
  c->add_option("--mode", a->mode, "executor framing: opbase (default) or graph");
  c->add_option("--ccl-bytes", a->p.ccl_bytes, "size of each communication buffer (default 209715200)")
      ->check(whole_number(0, ~u64{0}));
  c->add_flag("--physical-notify", a->p.physical_notify, "physical notify ids instead of unique ones");
  c->add_flag("--fold-ccl", a->p.fold_ccl, "map INPUT_CCL/OUTPUT_CCL onto one CCL buffer");
  c->add_option("--servers", a->p.servers, "hierarchical algorithms: number of servers")
      ->check(whole_number(0, ~u32{0}));
  c->add_flag("--non-inline", a->p.non_inline, "reducers stage peer data before reducing (HCCL variant)");
  c->add_flag("--nhr-staging-bug", a->p.nhr_staging_bug,
              "reproduce HCCL's NHR ReduceScatter non-inline last step that loses the staged data");
  c->add_option("--send-counts", a->send_counts,
                "AllToAllV, BatchSendRecv: n×n element matrix as JSON, or a file holding it");
  c->add_option("--blocks", a->blocks, "AIV kernels: blocks (vector cores) per launch (default 4)")
      ->check(whole_number(0, ~u32{0}));
  c->add_option("-o,--output", a->output, "output file (default: standard output)");
  c->add_option("--format", a->format,
                "jsonl (a collcheck trace, default) or msccl (an MSCCL XML algorithm: ring or all-pairs AllReduce, "
                "AllGather, AllToAll)");
  return [a] { return run_gen(*a); };
}

}  // namespace cc
