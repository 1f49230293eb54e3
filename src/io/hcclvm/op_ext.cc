#include "io/hcclvm/op_ext.h"

#include <fmt/format.h>

#include <functional>

namespace cc::hcclvm {

namespace {

std::string list_u64(const std::vector<u64>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size() && i < 16; ++i) s += fmt::format("{}{}", i ? "," : "", v[i]);
  return s + (v.size() > 16 ? ",…]" : "]");
}

class ExtReader {
 public:
  ExtReader(Db& db, const OpGroup& g, GroupOp& out) : db_(db), g_(g), out_(out) {}

  // Calls `fn(member, blob)` for every member's decoded opExtInfo.
  template <typename T>
  Status each_ext(const std::function<Result<T>(Bytes)>& decode, const std::function<void(const OpRow&, T&)>& fn) {
    for (const OpRow* m : g_.members) {
      auto ext = read_ext(db_, m->id);
      if (!ext) return ext.error();
      Result<T> v = decode(ext.value());
      if (!v) return Error{place_error(db_.file(), "opDetails", m->id, "opExtInfo", v.error().message)};
      fn(*m, *v);
    }
    return {};
  }

  Status v_counts() {
    Op& op = out_.op;
    u32 n = op.ranks;
    auto decode = [n](Bytes b) { return decode_v_counts(b, n); };
    op.counts.assign(n, 0);
    std::vector<u64> displs;
    bool ok = true;
    Status err = each_ext<VCounts>(decode, [&](const OpRow& m, VCounts& v) {
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
    if (!err || !ok) return err;
    // Every member's counts must be the localCounts of the ranks they name.
    err = each_ext<VCounts>(decode, [&](const OpRow& m, VCounts& v) {
      for (u32 q = 0; q < n && ok; ++q) {
        if (v.counts[q] == op.counts[q]) continue;
        ok = refuse(405, fmt::format("{} counts: {} reports {} elements for rank {}, whose localCount is {}.",
                                     name(op.type), member_name(m), v.counts[q], q, op.counts[q]));
      }
    });
    if (!err || !ok) return err;
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

  Status matrix(bool full) {
    Op& op = out_.op;
    u64 n = op.ranks;
    auto decode = [&](Bytes b) { return decode_matrix(b, op.ranks); };
    bool ok = true;
    // AllToAllVC: every member stores the whole matrix; AllToAllV: its row
    // (sends) and its column (receives). Rows first, then the columns must
    // agree with them (collcheck rule: no blind OR).
    std::vector<u64> first;
    Status err = each_ext<std::vector<u64>>(decode, [&](const OpRow& m, std::vector<u64>& v) {
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
    if (!err || !ok) return err;
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
    if (!err) return err;
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

  Status batch_ring() {
    Op& op = out_.op;
    u32 n = op.ranks;
    bool ok = true;
    Status err = each_ext<u32>(decode_batch_items, [&](const OpRow& m, u32& items) {
      if (ok && items != 2)
        ok = refuse(405, fmt::format("{}: BATCH_SEND_RECV with itemNum {}; HCCL VM records one send and one receive "
                                     "(itemNum 2), other item lists are not in the database.",
                                     member_name(m), items));
    });
    if (!err || !ok) return err;
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

 private:
  bool refuse(u16 code, std::string message, std::vector<std::string> details = {}) {
    return refuse_group(out_, code, std::move(message), std::move(details));
  }

  Db& db_;
  const OpGroup& g_;
  GroupOp& out_;
};

}  // namespace

Status v_counts_of(Db& db, const OpGroup& group, GroupOp& out) { return ExtReader(db, group, out).v_counts(); }

Status matrix_of(Db& db, const OpGroup& group, GroupOp& out, bool full) {
  return ExtReader(db, group, out).matrix(full);
}

Status batch_items_of(Db& db, const OpGroup& group, GroupOp& out) {
  return ExtReader(db, group, out).batch_ring();
}

}  // namespace cc::hcclvm
