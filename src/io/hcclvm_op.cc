#include "io/hcclvm_op.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace cc::hcclvm {

Finding import_error(u16 code, std::string message) {
  return make_finding(code, code >= 400 ? StageTag::SemanticCheck : StageTag::GenGraph, std::move(message));
}

Finding import_warning(std::string tag, std::string message) {
  Finding f = make_finding(0, StageTag::GenGraph, std::move(message));
  f.tag = std::move(tag);
  return f;
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

std::string list_u64(const std::vector<u64>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size() && i < 16; ++i) s += fmt::format("{}{}", i ? "," : "", v[i]);
  return s + (v.size() > 16 ? ",…]" : "]");
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
    std::string err;
    if (is_p2p(code)) {
      pairs();
    } else if (!complete()) {
      // refused
    } else if (op.type == OpType::AllGatherV || op.type == OpType::ReduceScatterV) {
      err = v_counts();
    } else if (code == kCmdAllToAllV || code == kCmdAllToAllVC) {
      err = matrix(code == kCmdAllToAllVC);
    } else if (code == kCmdBatchSendRecv) {
      err = batch_ring();
    }
    if (!err.empty()) return Error{err};
    return std::move(out_);
  }

 private:
  bool refuse(u16 code, std::string message, std::vector<std::string> details = {}) {
    Finding f = import_error(code, std::move(message));
    f.details = std::move(details);
    out_.findings.push_back(std::move(f));
    out_.refused = true;
    return false;
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

  // Calls `fn(member, blob)` for every member's decoded opExtInfo.
  template <typename T>
  std::string each_ext(const std::function<std::optional<T>(Bytes, std::string&)>& decode,
                       const std::function<void(const OpRow&, T&)>& fn) {
    for (const OpRow* m : g_.members) {
      auto ext = read_ext(db_, m->id);
      if (!ext) return ext.error().message;
      std::string why;
      std::optional<T> v = decode(ext.value(), why);
      if (!v) return place_error(db_.file(), "opDetails", m->id, "opExtInfo", why);
      fn(*m, *v);
    }
    return {};
  }

  std::string v_counts() {
    Op& op = out_.op;
    u32 n = op.ranks;
    auto decode = [n](Bytes b, std::string& why) { return decode_v_counts(b, n, why); };
    op.counts.assign(n, 0);
    std::vector<u64> displs;
    bool ok = true;
    std::string err = each_ext<VCounts>(decode, [&](const OpRow& m, VCounts& v) {
      if (!ok) return;
      if (v.local != m.detail.count) {
        ok = refuse(405, fmt::format("{}: localCount {} in opExtInfo differs from the count {} in opDetail.",
                                     member_name(m), v.local, m.detail.count));
        return;
      }
      op.counts[m.rank] = v.local;
      if (displs.empty()) displs = v.displs;
      else if (v.displs != displs)
        ok = refuse(405, fmt::format("The members of op group {} disagree on the displacements: {} reports {}, {} "
                                     "reports {}.",
                                     g_.name(), member_name(*g_.members.front()), list_u64(displs), member_name(m),
                                     list_u64(v.displs)));
    });
    if (!err.empty() || !ok) return err;
    // Every member's counts must be the localCounts of the ranks they name.
    err = each_ext<VCounts>(decode, [&](const OpRow& m, VCounts& v) {
      for (u32 q = 0; q < n && ok; ++q) {
        if (v.counts[q] == op.counts[q]) continue;
        ok = refuse(405, fmt::format("{} counts: {} reports {} elements for rank {}, whose localCount is {}.",
                                     name(op.type), member_name(m), v.counts[q], q, op.counts[q]));
      }
    });
    if (!err.empty() || !ok) return err;
    op.displs = displs;
    op.displs_given = true;
    std::vector<u64> prefix(n, 0);
    for (u32 q = 1; q < n; ++q) prefix[q] = prefix[q - 1] + op.counts[q - 1];
    if (prefix != displs)
      out_.findings.push_back(import_warning(
          "HCCLVM-W-V-DISPLS",
          fmt::format("{} displacements {} differ from the prefix sums {} of the counts, which HCCL's checker uses "
                      "instead; collcheck checks the reported displacements.",
                      name(op.type), list_u64(displs), list_u64(prefix))));
    return {};
  }

  std::string matrix(bool full) {
    Op& op = out_.op;
    u64 n = op.ranks;
    auto decode = [&](Bytes b, std::string& why) { return decode_matrix(b, op.ranks, why); };
    bool ok = true;
    // AllToAllVC: every member stores the whole matrix; AllToAllV: its row
    // (sends) and its column (receives). Rows first, then the columns must
    // agree with them (collcheck rule: no blind OR).
    std::vector<u64> first;
    std::string err = each_ext<std::vector<u64>>(decode, [&](const OpRow& m, std::vector<u64>& v) {
      if (!ok) return;
      if (full) {
        if (first.empty()) {
          first = std::move(v);
          return;
        }
        for (u64 c = 0; c < n * n && ok; ++c)
          if (v[c] != first[c])
            ok = refuse(405, fmt::format("ALLTOALLVC matrices disagree: {} has [{}][{}] = {}, {} has {} (first "
                                         "disagreeing cell).",
                                         member_name(*g_.members.front()), c / n, c % n, first[c], member_name(m), v[c]));
        return;
      }
      if (op.send_counts.empty()) op.send_counts.assign(n * n, 0);  // as large as the blob just read
      std::copy(v.begin() + m.rank * n, v.begin() + (m.rank + 1) * n, op.send_counts.begin() + m.rank * n);
    });
    if (!err.empty() || !ok) return err;
    if (full) {
      op.send_counts = std::move(first);
      return {};
    }
    u64 bad_i = n, bad_j = n, row_v = 0, col_v = 0;
    err = each_ext<std::vector<u64>>(decode, [&](const OpRow& m, std::vector<u64>& v) {
      u64 j = m.rank;
      for (u64 i = 0; i < n; ++i) {
        u64 c = i * n + j;
        if (v[c] == op.send_counts[c] || std::pair{i, j} >= std::pair{bad_i, bad_j}) continue;
        bad_i = i, bad_j = j, row_v = op.send_counts[c], col_v = v[c];
      }
    });
    if (!err.empty()) return err;
    if (bad_i < n)
      refuse(405, fmt::format("ALLTOALLV matrix: rank {} reports sending {} elements to rank {}, rank {} reports "
                              "receiving {} from rank {} (first disagreeing cell [{}][{}]).",
                              bad_i, row_v, bad_j, bad_j, col_v, bad_i, bad_i, bad_j));
    else
      check_totals();
    return {};
  }

  // The V2 view's sendCount / recvCount are the row / column totals (§5).
  void check_totals() {
    const Op& op = out_.op;
    u64 n = op.ranks;
    for (const OpRow* m : g_.members) {
      u64 sent = 0, received = 0;
      for (u64 k = 0; k < n; ++k) {
        sent += op.send_counts[m->rank * n + k];
        received += op.send_counts[k * n + m->rank];
      }
      if (sent == m->detail.count && received == m->detail.recv_count) continue;
      out_.findings.push_back(import_warning(
          "HCCLVM-W-A2A-TOTALS",
          fmt::format("{}: opDetail says it sends {} and receives {} elements; its matrix row and column sum to {} and "
                      "{}. collcheck checks the matrix.",
                      member_name(*m), m->detail.count, m->detail.recv_count, sent, received)));
      return;
    }
  }

  std::string batch_ring() {
    Op& op = out_.op;
    u32 n = op.ranks;
    bool ok = true;
    std::string err = each_ext<u32>(decode_batch_items, [&](const OpRow& m, u32& items) {
      if (ok && items != 2)
        ok = refuse(405, fmt::format("{}: BATCH_SEND_RECV with itemNum {}; HCCL VM records one send and one receive "
                                     "(itemNum 2), other item lists are not in the database.",
                                     member_name(m), items));
    });
    if (!err.empty() || !ok) return err;
    std::vector<u32> recv_from(n);  // every rank is a member (complete())
    for (const OpRow* m : g_.members) {
      if (m->dst_rank < n && m->src_rank < n) {
        recv_from[m->rank] = m->src_rank;
        continue;
      }
      refuse(405, fmt::format("{}: BATCH_SEND_RECV peers (receive {}, send {}) outside rankSize {}.", member_name(*m),
                              m->src_rank, m->dst_rank, n));
      return {};
    }
    bool ring = true;
    for (const OpRow* m : g_.members) {
      u32 r = m->rank, d = m->dst_rank;
      if (recv_from[d] != r) {
        refuse(405, fmt::format("BATCH_SEND_RECV: rank {} sends to rank {}, but rank {} receives from rank {}.", r, d,
                                d, recv_from[d]));
        return {};
      }
      ring = ring && d == (r + 1) % n && m->src_rank == (r + n - 1) % n;
      op.items.push_back({r, d, op.count});
    }
    if (!ring)
      out_.findings.push_back(import_warning(
          "HCCLVM-W-BSR-NOT-RING",
          fmt::format("BATCH_SEND_RECV of op group {} is not a ring (rank r sends to r+1): HCCL's checker refuses it; "
                      "collcheck checks it as a general BatchSendRecv.",
                      g_.name())));
    return {};
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
