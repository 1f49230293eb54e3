#include "io/hcclvm/op.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "io/hcclvm/op_ext.h"

namespace cc::hcclvm {

Finding import_error(u16 code, std::string message) {
  return make_finding(code, code >= 400 ? StageTag::SemanticCheck : StageTag::GenGraph, std::move(message));
}

Finding import_warning(std::string tag, std::string message) {
  Finding f = make_finding(0, StageTag::GenGraph, std::move(message));
  f.tag = std::move(tag);
  return f;
}

bool refuse_group(GroupOp& out, u16 code, std::string message, std::vector<std::string> details) {
  Finding f = import_error(code, std::move(message));
  f.details = std::move(details);
  out.findings.push_back(std::move(f));
  out.refused = true;
  return false;
}

namespace {

std::optional<OpType> map_cmd(u16 code) {
  switch (code) {
    case kCmdBroadcast: return OpType::Broadcast;
    case kCmdAllReduce: return OpType::AllReduce;
    case kCmdReduce: return OpType::Reduce;
    case kCmdAllGather: return OpType::AllGather;
    case kCmdReduceScatter: return OpType::ReduceScatter;
    case kCmdAllToAllV:
    case kCmdAllToAllVC: return OpType::AllToAllV;
    case kCmdAllToAll: return OpType::AllToAll;
    case kCmdGather: return OpType::Gather;
    case kCmdScatter: return OpType::Scatter;
    case kCmdBatchSendRecv: return OpType::BatchSendRecv;
    case kCmdAllGatherV: return OpType::AllGatherV;
    case kCmdReduceScatterV: return OpType::ReduceScatterV;
    default: return std::nullopt;
  }
}

std::string cmd_text(u16 code) {
  std::string_view n = hccl_cmd_name(code);
  return n.empty() ? fmt::format("code {}", code) : fmt::format("{} ({})", n, code);
}

bool is_p2p(u16 code) { return code == kCmdSend || code == kCmdReceive; }
bool is_all_to_all(u16 code) { return code == kCmdAllToAll || code == kCmdAllToAllV || code == kCmdAllToAllVC; }

class Assembler {
 public:
  Assembler(Db& db, const OpGroup& g) : db_(db), g_(g) {}

  Result<GroupOp> run() {
    if (!basic() || !counts_agree()) return std::move(out_);
    Op& op = out_.op;
    u16 code = g_.members.front()->detail.op_type;
    Status err;
    if (is_p2p(code)) {
      pairs();
    } else if (!complete()) {
      // refused
    } else if (op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV) {
      err = v_counts_of(db_, g_, out_);
    } else if (code == kCmdAllToAllV || code == kCmdAllToAllVC) {
      err = matrix_of(db_, g_, out_, code == kCmdAllToAllVC);
    } else if (code == kCmdBatchSendRecv) {
      err = batch_items_of(db_, g_, out_);
    }
    if (!err) return err.error();
    return std::move(out_);
  }

 private:
  bool refuse(u16 code, std::string message, std::vector<std::string> details = {}) {
    return refuse_group(out_, code, std::move(message), std::move(details));
  }

  // Every member must give the same `value`; otherwise 405 naming each.
  bool agree(const char* what, const std::function<std::string(const OpRow&)>& value) {
    std::string first = value(*g_.members.front());
    bool same = std::all_of(g_.members.begin(), g_.members.end(),
                            [&](const OpRow* m) { return value(*m) == first; });
    if (same) return true;
    std::vector<std::string> details;
    for (const OpRow* m : g_.members) details.push_back(fmt::format("{}: {}", member_name(*m), value(*m)));
    return refuse(405, fmt::format("The members of op group {} disagree on the {}: they are not one operator.",
                                   g_.name(), what),
                  std::move(details));
  }

  bool data_type(u16 code, bool receive, DataType& out) {
    for (const OpRow* m : g_.members) {
      u16 c = receive ? m->detail.recv_data_type : m->detail.data_type;
      auto d = hccl_data_type(c);
      if (!d) return refuse(101, fmt::format("{}: {}data type code {} is not an HCCL data type collcheck knows "
                                             "(op {}).", member_name(*m), receive ? "receive " : "", c, cmd_text(code)));
      out = *d;
    }
    return true;
  }

  bool basic() {
    Op& op = out_.op;
    const OpRow& first = *g_.members.front();
    if (!agree("rankSize", [](const OpRow& r) { return fmt::format("{}", r.rank_size); })) return false;
    u32 n = first.rank_size;
    if (n == 0 || n > kMaxRanks)
      return refuse(405, fmt::format("{}: rankSize {} is not a communicator size (1 … {}).", member_name(first), n,
                                     kMaxRanks));
    for (const OpRow* m : g_.members)
      if (m->rank >= n)
        return refuse(405, fmt::format("{}: rankId {} is outside rankSize {}.", member_name(*m), m->rank, n));
    op.ranks = n;
    u16 code = first.detail.op_type;
    bool p2p = is_p2p(code);
    if (!agree("operator", [&](const OpRow& r) {
          u16 c = r.detail.op_type;
          return p2p && is_p2p(c) ? std::string("SEND/RECEIVE") : cmd_text(c);
        }))
      return false;
    if (!p2p) {
      auto t = map_cmd(code);
      if (!t) {
        bool named = !hccl_cmd_name(code).empty();
        return refuse(named ? 111 : 101,
                      named ? fmt::format("Operator {} is not supported: op group {} is not checked.", cmd_text(code),
                                          g_.name())
                            : fmt::format("Operator code {} is not an HCCL operator: op group {} cannot be checked.",
                                          code, g_.name()));
      }
      op.type = *t;
    }
    if (!agree("data type", [](const OpRow& r) { return fmt::format("{}", r.detail.data_type); })) return false;
    if (!data_type(code, false, op.data_type)) return false;
    if (is_all_to_all(code)) {
      DataType recv;
      if (!agree("receive data type", [](const OpRow& r) { return fmt::format("{}", r.detail.recv_data_type); }) ||
          !data_type(code, true, recv))
        return false;
      if (recv != op.data_type)
        return refuse(405, fmt::format("{} sends {} and receives {}: collcheck's operator has one data type.",
                                       cmd_text(code), name(op.data_type), name(recv)));
    }
    if (!p2p && op_reduces(op.type)) {
      if (!agree("reduce op", [](const OpRow& r) { return fmt::format("{}", r.detail.reduce_type); })) return false;
      auto ro = hccl_reduce_op(first.detail.reduce_type);
      if (!ro)
        return refuse(101, fmt::format("{}: reduce op code {} is not SUM, PROD, MAX or MIN.", member_name(first),
                                       first.detail.reduce_type));
      op.reduce_op = *ro;
      op.has_reduce_op = true;
    }
    if (!p2p && op_has_root(op.type)) {
      if (!agree("root", [](const OpRow& r) { return fmt::format("{}", r.root); })) return false;
      if (first.root >= n)
        return refuse(405, fmt::format("{}: root {} is outside rankSize {}.", member_name(first), first.root, n));
      op.root = first.root;
    }
    return true;
  }

  // Count at offset 6: equal on every member except for the V operators
  // (per rank) and send/receive (per pair).
  bool counts_agree() {
    Op& op = out_.op;
    u16 code = g_.members.front()->detail.op_type;
    if (is_p2p(code) || op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV ||
        code == kCmdAllToAllV || code == kCmdAllToAllVC)
      return true;
    if (!agree("count", [](const OpRow& r) { return fmt::format("{}", r.detail.count); })) return false;
    op.count = g_.members.front()->detail.count;
    if (code == kCmdAllToAll && g_.members.front()->detail.recv_count != op.count)
      return refuse(405, fmt::format("ALLTOALL sends {} and receives {} elements per rank: collcheck's AllToAll has "
                                     "one count.",
                                     op.count, g_.members.front()->detail.recv_count));
    return true;
  }

  // A collective needs every rank of the communicator in the group.
  bool complete() {
    u32 n = out_.op.ranks;
    if (g_.members.size() == n) return true;  // ranks are distinct and below n
    std::vector<std::string> missing;
    std::size_t at = 0;
    for (u32 r = 0; r < n && missing.size() < 16; ++r) {
      if (at < g_.members.size() && g_.members[at]->rank == r) ++at;
      else missing.push_back(fmt::format("{}", r));
    }
    return refuse(405, fmt::format("Op group {} ({}, rankSize {}) has {} members: rank{} {}{} recorded no operator "
                                   "at this place.",
                                   g_.name(), name(out_.op.type), n, g_.members.size(), missing.size() > 1 ? "s" : "",
                                   fmt::join(missing, ", "), n - g_.members.size() > missing.size() ? ", …" : ""));
  }

  // Send and Receive rows pair up by (srcRank, dstRank).
  void pairs() {
    Op& op = out_.op;
    u32 n = op.ranks;
    struct Pair {
      const OpRow* send = nullptr;
      const OpRow* recv = nullptr;
    };
    std::map<std::pair<u32, u32>, Pair> by_key;
    for (const OpRow* m : g_.members) {
      bool send = m->detail.op_type == kCmdSend;
      u32 self = send ? m->src_rank : m->dst_rank, peer = send ? m->dst_rank : m->src_rank;
      if (self != m->rank || peer >= n) {
        refuse(405, fmt::format("{}: {} with srcRank {}, dstRank {}: the {} must be the row's own rank and the peer "
                                "below rankSize {}.",
                                member_name(*m), send ? "SEND" : "RECEIVE", m->src_rank, m->dst_rank,
                                send ? "srcRank" : "dstRank", n));
        return;
      }
      Pair& p = by_key[{m->src_rank, m->dst_rank}];
      (send ? p.send : p.recv) = m;
    }
    for (const auto& [key, p] : by_key) {
      if (!p.send || !p.recv) {
        const OpRow& m = p.send ? *p.send : *p.recv;
        refuse(405, fmt::format("{} from rank {} to rank {} ({}) has no matching {} in op group {}.",
                                p.send ? "SEND" : "RECEIVE", key.first, key.second, member_name(m),
                                p.send ? "RECEIVE" : "SEND", g_.name()));
        return;
      }
      if (p.send->detail.count != p.recv->detail.count) {
        refuse(405, fmt::format("SEND from rank {} to rank {} sends {} elements, the RECEIVE expects {}.", key.first,
                                key.second, p.send->detail.count, p.recv->detail.count));
        return;
      }
      op.items.push_back({key.first, key.second, p.send->detail.count});
    }
    op.type = op.items.size() == 1 ? OpType::SendRecv : OpType::BatchSendRecv;
  }

  Db& db_;
  const OpGroup& g_;
  GroupOp out_;
};

}  // namespace

Result<GroupOp> assemble_op(Db& db, const OpGroup& group) { return Assembler(db, group).run(); }

}  // namespace cc::hcclvm
