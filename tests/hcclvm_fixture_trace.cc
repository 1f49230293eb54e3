// from_trace: a collcheck trace as the rows HCCL VM writes (AICPU mode).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hcclvm_fixture.h"
#include "model/builder.h"

namespace cc::test::vm {

u64 fixture_address(u32 rank, BufId buf, u64 offset) {
  return ((u64{rank} + 1) << 36) + (u64{buf} << 32) + offset;
}

namespace {

// Buffer of the trace -> 0 INPUT, 1 OUTPUT, 2 CCL (the database's three).
int block_of(const Trace& t, BufId b) {
  const std::string& n = t.buffers.name(b);
  return n == "INPUT" ? 0 : n == "OUTPUT" ? 1 : n == "CCL" ? 2 : -1;
}

class FromTrace {
 public:
  FromTrace(const Trace& t, u64 sync_iter, u64 first_pid) : t_(t), sync_iter_(sync_iter), first_pid_(first_pid) {}

  Fixture run(std::string& error) {
    const Op& op = t_.op;
    if (t_.aiv.expanded) {
      error = "an expanded AIV trace (write the trace as read, before its launches are expanded)";
      return {};
    }
    rows_.assign(op.ranks, {});
    if (!members(error)) return {};
    for (u32 r = 0; r < op.ranks; ++r) memory(r);
    for (const Stream& s : t_.streams)
      for (u32 i = s.first_task; i < s.first_task + s.task_count; ++i)
        if (!task(i, error)) return {};
    Fixture f;
    for (u32 r = 0; r < op.ranks; ++r)
      for (OpFx& o : rows_[r]) {
        if (o.tasks.empty() && o.detail.empty()) continue;
        f.ops.push_back(std::move(o));
      }
    for (u32 r = 0; r < op.ranks; ++r) f.syncs.push_back({first_pid_ + r, r, op.ranks, sync_iter_});
    for (const AivSnapshot& s : t_.aiv.snapshots) f.files.emplace_back(aiv_snapshot_file_name(s.rank, s.launch), s.json);
    return f;
  }

 private:
  OpFx base(u32 r, u16 code) const {
    OpFx o;
    o.pid = first_pid_ + r;
    o.rank = r;
    o.sync_iter = sync_iter_;
    o.rank_size = t_.op.ranks;
    o.src_rank = o.dst_rank = r;
    o.root = op_has_root(t_.op.type) ? t_.op.root : 0;
    o.detail = op_detail(code, data_type_code(t_.op.data_type), t_.op.has_reduce_op || op_reduces(t_.op.type)
                                                                     ? static_cast<u16>(t_.op.reduce_op) : 0,
                         t_.op.count);
    return o;
  }

  bool members(std::string& error) {
    const Op& op = t_.op;
    u32 n = op.ranks;
    u16 dt = data_type_code(op.data_type);
    switch (op.type) {
      case OpType::SendRecv:
      case OpType::BatchSendRecv: {
        // BATCH_SEND_RECV rows when every rank sends one item and receives
        // one, all of one count (HCCL VM records no other item lists).
        std::vector<int> send_to(n, -1), recv_from(n, -1);
        bool batch = op.type == OpType::BatchSendRecv && op.items.size() == n;
        for (const SendRecvItem& it : op.items) {
          batch = batch && send_to[it.src] < 0 && recv_from[it.dst] < 0 && it.count == op.items[0].count;
          send_to[it.src] = static_cast<int>(it.dst);
          recv_from[it.dst] = static_cast<int>(it.src);
        }
        if (batch) {
          for (u32 r = 0; r < n; ++r) {
            OpFx o = base(r, 13);
            o.detail = op_detail(13, dt, 0, op.items[0].count);
            o.src_rank = static_cast<u32>(recv_from[r]);
            o.dst_rank = static_cast<u32>(send_to[r]);
            o.ext = batch_ext(2);
            rows_[r].push_back(o);
          }
          return true;
        }
        // Disjoint pairs: one SEND and one RECEIVE row each.
        std::vector<bool> used(n, false);
        for (const SendRecvItem& it : op.items) {
          if (used[it.src] || used[it.dst] || it.src == it.dst) {
            error = "send/receive items that are not disjoint pairs cannot be one op group";
            return false;
          }
          used[it.src] = used[it.dst] = true;
          OpFx s = base(it.src, 4), d = base(it.dst, 5);
          s.detail = op_detail(4, dt, 0, it.count);
          d.detail = op_detail(5, dt, 0, it.count);
          s.src_rank = d.src_rank = it.src;
          s.dst_rank = d.dst_rank = it.dst;
          rows_[it.src].push_back(s);
          rows_[it.dst].push_back(d);
        }
        return true;
      }
      case OpType::AllGatherV:
      case OpType::ReduceScatterV: {
        std::vector<u64> displs = op.displs;
        if (!op.displs_given) {
          displs.assign(n, 0);
          for (u32 q = 1; q < n; ++q) displs[q] = displs[q - 1] + op.counts[q - 1];
        }
        for (u32 r = 0; r < n; ++r) {
          OpFx o = base(r, cmd_code(op.type));
          o.detail = op_detail(cmd_code(op.type), dt, static_cast<u16>(op.reduce_op), op.counts[r]);
          o.ext = v_ext(op.counts[r], op.counts, displs);
          rows_[r].push_back(o);
        }
        return true;
      }
      case OpType::AllToAll:
      case OpType::AllToAllV: {
        for (u32 r = 0; r < n; ++r) {
          std::vector<u64> cells(u64{n} * n, 0);
          u64 sent = 0, received = 0;
          for (u32 k = 0; k < n; ++k) {
            u64 row = op.type == OpType::AllToAll ? op.count : op.send_counts[u64{r} * n + k];
            u64 col = op.type == OpType::AllToAll ? op.count : op.send_counts[u64{k} * n + r];
            cells[u64{r} * n + k] = row;
            cells[u64{k} * n + r] = col;
            sent += row;
            received += col;
          }
          if (op.type == OpType::AllToAll) cells.assign(cells.size(), op.count);
          OpFx o = base(r, cmd_code(op.type));
          o.detail = op.type == OpType::AllToAll ? op_detail_a2a(10, dt, op.count, dt, op.count)
                                                 : op_detail_a2a(8, dt, sent, dt, received);
          o.ext = matrix_ext(cells);
          rows_[r].push_back(o);
        }
        return true;
      }
      default:
        for (u32 r = 0; r < n; ++r) rows_[r].push_back(base(r, cmd_code(op.type)));
        return true;
    }
  }

  void memory(u32 r) {
    for (OpFx& o : rows_[r]) {
      u64 in = t_.buffer_size(r, kInput), out = t_.buffer_size(r, kOutput);
      auto ccl = t_.buffers.ids.find("CCL");
      u64 c = ccl == t_.buffers.ids.end() ? 0 : t_.buffer_size(r, ccl->second);
      auto known = [](u64 v) { return v == BufferSizes::kUndeclared ? 0 : v; };
      o.in_addr = known(in) ? fixture_address(r, 0, 0) : 0;
      o.in_size = known(in);
      o.out_addr = t_.op.in_place ? o.in_addr : known(out) ? fixture_address(r, 1, 0) : 0;
      o.out_size = t_.op.in_place ? o.in_size : known(out);
      o.ccl_addr = known(c) ? fixture_address(r, 2, 0) : 0;
      o.ccl_size = known(c);
    }
  }

  // The row that owns rank r's tasks: its only operator row.
  OpFx* owner(u32 r) { return rows_[r].empty() ? nullptr : &rows_[r].front(); }

  bool task(u32 i, std::string& error) {
    const Task& k = t_.tasks[i];
    OpFx* o = owner(k.rank);
    if (!o) {
      error = fmt::format("rank {} has tasks but no operator row", k.rank);
      return false;
    }
    auto add = [&](Blob b) { o->tasks.push_back({seq_[k.rank]++, std::move(b), {}}); };
    auto addr = [&](const Slice& s, bool& ok) {
      int b = block_of(t_, s.buf);
      ok = ok && b >= 0;
      if (t_.op.in_place && b == 1) b = 0;
      return fixture_address(s.rank, static_cast<BufId>(b < 0 ? 0 : b), s.offset);
    };
    bool ok = true;
    switch (k.type) {
      case TaskType::TRANS_MEM:
      case TaskType::BATCH_TRANS_MEM:
      case TaskType::REDUCE:
      case TaskType::BATCH_REDUCE:
        for (u32 g = 0; g < k.group_count(); ++g) {
          const Group& gr = t_.group(k, g);
          const Slice& d = t_.slice(gr.dst);
          for (u32 s = 0; s < gr.src_count; ++s) {
            const Slice& src = t_.slice(gr.first_src + s);
            u64 sa = addr(src, ok), da = addr(d, ok);
            if (is_reduce_task(k.type))
              add(reduce_meta(k.rank, k.stream, src.rank, sa, d.rank, da, d.len, static_cast<u8>(data_type_code(k.data_type)),
                              static_cast<u8>(k.reduce_op)));
            else
              add(memcpy_meta(k.rank, k.stream, src.rank, sa, d.rank, da, d.len, k.link == Link::RDMA ? 2 : 0));
          }
        }
        break;
      case TaskType::RECORD:
      case TaskType::WAIT: {
        bool rec = k.type == TaskType::RECORD;
        auto key = rec ? std::tuple{k.rank, k.peer(), k.notify()} : std::tuple{k.peer(), k.rank, k.notify()};
        auto [it, added] = ids_.emplace(key, ids_.size() + 1);
        add(notify_meta(rec, k.rank, k.stream, it->second, k.rank, k.rank));
        break;
      }
      case TaskType::AIV_GRAPH:
        add(aiv_meta(k.rank, k.stream, k.notify() < t_.aiv.records.size() ? t_.aiv.records[k.notify()].launch : 0));
        break;
      default:
        error = fmt::format("task type {} has no AICPU record", name(k.type));
        return false;
    }
    if (!ok) error = "a slice names a buffer other than INPUT, OUTPUT and CCL (generate with --fold-ccl)";
    return ok;
  }

  const Trace& t_;
  u64 sync_iter_, first_pid_;
  std::vector<std::vector<OpFx>> rows_;
  std::map<u32, i64> seq_;
  std::map<std::tuple<u32, u32, u32>, u64> ids_;
};

}  // namespace

Fixture from_trace(const Trace& t, std::string& error, u64 sync_iter, u64 first_pid) {
  error.clear();
  return FromTrace(t, sync_iter, first_pid).run(error);
}

namespace {

struct Pull {
  u32 dst = 0, src = 0;
  u64 src_off = 0, dst_off = 0, len = 0;
  bool reduce = false;
};

std::vector<Pull> pulls_of(const Op& op) {
  std::vector<Pull> out;
  u32 n = op.ranks;
  u64 u = op.elem_size();
  auto add = [&](Pull p) {
    if (p.len) out.push_back(p);
  };
  switch (op.type) {
    case OpType::AllGatherV:
      for (u32 r = 0; r < n; ++r)
        for (u32 q = 0; q < n; ++q) add({r, q, 0, op.displs[q] * u, op.counts[q] * u});
      break;
    case OpType::ReduceScatterV:
      for (u32 r = 0; r < n; ++r) {
        add({r, r, op.displs[r] * u, 0, op.counts[r] * u});
        for (u32 q = 0; q < n; ++q)
          if (q != r) add({r, q, op.displs[r] * u, 0, op.counts[r] * u, true});
      }
      break;
    case OpType::AllToAll:
    case OpType::AllToAllV: {
      auto m = [&](u32 i, u32 j) { return op.type == OpType::AllToAll ? op.count : op.send_counts[u64{i} * n + j]; };
      for (u32 r = 0; r < n; ++r)
        for (u32 q = 0; q < n; ++q) {
          u64 so = 0, d = 0;
          for (u32 j = 0; j < r; ++j) so += m(q, j);
          for (u32 i = 0; i < q; ++i) d += m(i, r);
          add({r, q, so * u, d * u, m(q, r) * u});
        }
      break;
    }
    case OpType::SendRecv:
    case OpType::BatchSendRecv: {
      std::map<u32, u64> sent, received;
      for (const SendRecvItem& it : op.items) {
        add({it.dst, it.src, sent[it.src], received[it.dst], it.count * u});
        sent[it.src] += it.count * u;
        received[it.dst] += it.count * u;
      }
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace

Trace pull_schedule(const Op& op) {
  TraceBuilder b(op, "pull schedule");
  std::vector<Pull> pulls = pulls_of(op);
  for (u32 r = 0; r < op.ranks; ++r) {
    std::vector<u32> readers, sources;
    for (const Pull& p : pulls) {
      if (p.src == r && p.dst != r && std::find(readers.begin(), readers.end(), p.dst) == readers.end())
        readers.push_back(p.dst);
      if (p.dst == r && p.src != r && std::find(sources.begin(), sources.end(), p.src) == sources.end())
        sources.push_back(p.src);
    }
    for (u32 d : readers) b.record(r, 0, d, 1);
    std::vector<u32> waited;
    for (const Pull& p : pulls) {
      if (p.dst != r) continue;
      if (p.src != r && std::find(waited.begin(), waited.end(), p.src) == waited.end()) {
        b.wait(r, 0, p.src, 1);
        waited.push_back(p.src);
      }
      Slice src = b.slice(p.src, "INPUT", p.src_off, p.len), dst = b.slice(r, "OUTPUT", p.dst_off, p.len);
      if (p.reduce) b.reduce(r, 0, {src}, dst, Link::SDMA);
      else b.copy(r, 0, src, dst, p.src == r ? Link::LOCAL : Link::SDMA);
    }
    for (u32 s : sources) b.record(r, 0, s, 2);
    for (u32 d : readers) b.wait(r, 0, d, 2);
  }
  return b.finish();
}

}  // namespace cc::test::vm
