#include "io/hcclvm/tasks.h"

#include <fmt/format.h>

#include <unordered_map>

#include "io/hcclvm/op.h"

namespace cc::hcclvm {

namespace {

const char* kBlockNames[kBlockTypes] = {"INPUT", "OUTPUT", "CCL"};

std::string block_text(const Block& b, u32 type) {
  return fmt::format("{} [{:#x},+{:#x})", kBlockNames[type], b.start, b.size);
}

std::string blocks_text(const Blocks& blocks) {
  std::string s;
  u32 shown = 0;
  for (const auto& [rank, rb] : blocks.all()) {
    if (++shown > 8) return s + "; …";
    s += fmt::format("{}rank {}:", s.empty() ? "" : "; ", rank);
    bool any = false;
    for (u32 b = 0; b < kBlockTypes; ++b) {
      if (!rb[b].size) continue;
      s += " " + block_text(rb[b], b);
      any = true;
    }
    if (!any) s += " no block";
  }
  return s;
}

}  // namespace

void Blocks::add(u32 rank, const MemRow& m) {
  RankBlocks& rb = by_rank_[rank];
  for (u32 b = 0; b < kBlockTypes; ++b)
    if (m.addr[b] != 0 && m.size[b] != 0) rb[b] = {m.addr[b], m.size[b]};  // §9 step 1
}

const RankBlocks* Blocks::of(u32 rank) const {
  auto it = by_rank_.find(rank);
  return it == by_rank_.end() ? nullptr : &it->second;
}

bool blocks_in_place(const Blocks& blocks, OpType type) {
  if (blocks.all().empty()) return false;
  for (const auto& [rank, rb] : blocks.all()) {
    const Block& in = rb[0];
    const Block& out = rb[1];
    bool same = in.size && out.size && in.start == out.start && in.size == out.size;
    // HCCL's Broadcast records its one buffer as both, or no OUTPUT block.
    if (!(same || (type == OpType::Broadcast && !out.size))) return false;
  }
  return true;
}

TaskTranslator::TaskTranslator(Trace& trace, const Blocks& blocks, std::vector<Finding>& findings,
                               const ImportOptions& options)
    : t_(trace), blocks_(blocks), findings_(findings), opt_(options) {}

std::string TaskTranslator::where(const TaskRow& row) const {
  return fmt::format("{} row {} (taskSeq {}) of {}", table_, row.id, row.seq, member_name(*m_));
}

void TaskTranslator::push(Task k) {
  u32 id = static_cast<u32>(t_.tasks.size());
  t_.tasks.push_back(k);
  for (Finding& f : pending_) {
    f.tasks.push_back(id);
    findings_.push_back(std::move(f));
  }
  pending_.clear();
}

void TaskTranslator::unknown(const TaskRow& row, u16 code, std::string message) {
  Finding f = import_error(code, std::move(message));
  f.details.push_back("Record : " + where(row));
  pending_.push_back(std::move(f));
  Task k;
  k.type = TaskType::UNKNOWN;
  k.rank = m_->rank;
  k.stream = static_cast<u32>(row.stream);
  push(k);
}

TaskTranslator::Side TaskTranslator::resolve(const char* side, u64 a, u64 len, u32 expected) {
  Side out;
  auto hit = [&](u32 rank, u32 b, const Block& blk) {
    out.resolved = true;
    out.slice.rank = rank;
    out.slice.buf = static_cast<BufId>(b);
    if (t_.op.in_place && out.slice.buf == kOutput) out.slice.buf = kInput;
    out.slice.offset = a - blk.start;
    out.slice.len = len;
  };
  // The rank the record names first (INPUT, OUTPUT, CCL), then the others.
  if (const RankBlocks* own = blocks_.of(expected)) {
    for (u32 b = 0; b < kBlockTypes; ++b) {
      if (!(*own)[b].contains(a)) continue;
      hit(expected, b, (*own)[b]);
      for (u32 b2 = b + 1; b2 < kBlockTypes; ++b2) {
        if (!(*own)[b2].contains(a) || (t_.op.in_place && b == 0 && b2 == 1)) continue;
        if (ambiguous_warned_[{expected, b, b2}]) continue;
        ambiguous_warned_[{expected, b, b2}] = true;
        Finding f = import_warning(
            "HCCLVM-W-AMBIGUOUS-BUFFER",
            fmt::format("Ambiguous in-place buffer: address {:#x} lies in rank {}'s {} and {}; it is taken as {} "
                        "(HCCL's lookup order).",
                        a, expected, block_text((*own)[b], b), block_text((*own)[b2], b2), kBlockNames[b]));
        pending_.push_back(std::move(f));
      }
      return out;
    }
  }
  for (const auto& [rank, rb] : blocks_.all()) {
    if (rank == expected) continue;
    for (u32 b = 0; b < kBlockTypes; ++b) {
      if (!rb[b].contains(a)) continue;
      hit(rank, b, rb[b]);
      pending_.push_back(import_error(
          112, fmt::format("The {} address {:#x} of the record names rank {}, but lies in rank {}'s {}.", side, a,
                           expected, rank, block_text(rb[b], b))));
      return out;
    }
  }
  if (len == 0) {
    // Touches no memory: a warning, and an empty slice on the named rank.
    pending_.push_back(import_warning(
        "HCCLVM-W-ZERO-LEN-ADDRESS",
        fmt::format("The {} address {:#x} of a zero-length record lies in no block (it touches no memory).", side, a)));
    out.resolved = true;
    out.slice = Slice{0, 0, expected, kInput};
    return out;
  }
  Finding f = import_error(110, fmt::format("The {} address {:#x} ({} bytes, rank {}) lies in no INPUT, OUTPUT or CCL "
                                            "block of the op group: the record cannot become a task.",
                                            side, a, len, expected));
  f.details.push_back("Blocks : " + blocks_text(blocks_));
  pending_.push_back(std::move(f));
  return out;
}

void TaskTranslator::data_task(const TaskRow& row, TaskType type, u64 len) {
  const TaskRow& k = row;
  std::size_t before = pending_.size();
  Side src = resolve("source", k.src_addr, len, k.src_rank);
  Side dst = resolve("destination", k.dst_addr, len, k.dst_rank);
  for (std::size_t i = before; i < pending_.size(); ++i)
    if (pending_[i].code != 0) pending_[i].details.push_back("Record : " + where(row));
  if (!src.resolved || !dst.resolved) {
    Task u;
    u.type = TaskType::UNKNOWN;
    u.rank = m_->rank;
    u.stream = static_cast<u32>(k.stream);
    push(u);
    return;
  }
  Task t;
  t.type = type;
  t.rank = m_->rank;
  t.stream = static_cast<u32>(k.stream);
  t.data_type = t_.op.data_type;
  t.reduce_op = t_.op.reduce_op;
  bool local = src.slice.rank == t.rank && dst.slice.rank == t.rank;
  t.link = local ? Link::LOCAL : k.protocol == 2 ? Link::RDMA : Link::SDMA;  // advisory (§8.5)
  t.set_first_group(static_cast<u32>(t_.groups.size()));
  t.set_group_count(1);
  Group g;
  g.first_src = static_cast<u32>(t_.slices.size());
  g.src_count = 1;
  t_.slices.push_back(src.slice);
  g.dst = static_cast<u32>(t_.slices.size());
  t_.slices.push_back(dst.slice);
  t_.groups.push_back(g);
  if (type == TaskType::REDUCE) {
    t.data_type = *hccl_data_type(k.data_type);  // checked by the caller
    u8 op = k.reduce_op;
    t.reduce_op = op <= 3 ? static_cast<ReduceOp>(op) : op == 10 ? ReduceOp::SUM : op == 11 ? ReduceOp::MAX : ReduceOp::MIN;
  }
  push(t);
}

void TaskTranslator::reserve(std::size_t n) {
  t_.tasks.reserve(t_.tasks.size() + n);
  t_.groups.reserve(t_.groups.size() + n);
  t_.slices.reserve(t_.slices.size() + 2 * n);
  syncs_.reserve(syncs_.size() + n);
}

void TaskTranslator::member(const OpRow& m, const OpTasks& tasks) {
  const std::vector<TaskRow>& rows = tasks.rows;
  m_ = &m;
  table_ = task_table(m.pid);
  u32 first = static_cast<u32>(t_.tasks.size());
  for (const TaskRow& row : rows) {
    const TaskRow& k = row;
    if (k.rank != m.rank || k.stream >= 0xffffffffu) {
      // No position can be trusted: the record is reported and left out.
      Finding f = import_error(
          101, k.rank != m.rank
                   ? fmt::format("A task record's header rankId {} differs from rankId {} of its operator: the record "
                                 "is left out.",
                                 k.rank, m.rank)
                   : fmt::format("A task record's streamId {} is not a stream index (must be below 2^32−1): the "
                                 "record is left out.",
                                 k.stream));
      f.details.push_back("Record : " + where(row));
      findings_.push_back(std::move(f));
      continue;
    }
    std::string_view kind = meta_type_name(k.type);
    switch (k.type) {
      case kMetaMemCpy:
        data_task(row, TaskType::TRANS_MEM, k.len);
        break;
      case kMetaReduce: {
        auto dt = hccl_data_type(k.data_type);
        if (!dt) {
          unknown(row, 101, fmt::format("REDUCE record with data type code {}: not an HCCL data type collcheck "
                                        "knows.", k.data_type));
          break;
        }
        u64 bytes = k.len;  // dataCount, a byte length for the checker (§7.2)
        if (k.reduce_op >= 10 && k.reduce_op <= 12) {
          // The host reduce stub stores ACL's reduce kind and an element
          // count (§8.4).
          auto b = checked_mul(k.len, size_of(*dt));
          if (!b) {
            unknown(row, 101, fmt::format("Host-stub REDUCE of {} {} elements: the byte length overflows 64 bits.",
                                          k.len, name(*dt)));
            break;
          }
          bytes = *b;
          if (!host_stub_warned_) {
            host_stub_warned_ = true;
            pending_.push_back(import_warning(
                "HCCLVM-W-HOST-STUB-REDUCE",
                fmt::format("Host-stub reduce record (ACL reduce kind {}): its dataCount {} is taken as {} elements "
                            "({} bytes) and the kind as {}; further host-stub records of this op group are read the "
                            "same way.",
                            k.reduce_op, k.len, name(*dt), bytes,
                            k.reduce_op == 10 ? "SUM" : k.reduce_op == 11 ? "MAX" : "MIN")));
          }
        } else if (k.reduce_op > 3) {
          unknown(row, 101, fmt::format("REDUCE record with reduce op code {}: not SUM, PROD, MAX or MIN (nor "
                                        "ACL's 10–12).", k.reduce_op));
          break;
        }
        data_task(row, TaskType::REDUCE, bytes);
        break;
      }
      case kMetaNotifyRecord:
      case kMetaNotifyWait: {
        bool record = k.type == kMetaNotifyRecord;
        syncs_.push_back({k.notify_id, static_cast<u32>(t_.tasks.size()), m.rank});
        Task s;
        s.type = record ? TaskType::RECORD : TaskType::WAIT;
        s.rank = m.rank;
        s.stream = static_cast<u32>(k.stream);
        s.set_peer(record ? k.dst_rank : k.src_rank);  // as stored; decided by the notify inference
        push(s);
        break;
      }
      case kMetaCcuGraph: {
        // Expanded into its mission's nodes when the case is loaded (ccu.md, src/ccu/).
        const CcuSqe& q = tasks.sqes[k.sqe_index];
        Task c;
        c.type = TaskType::CCU_GRAPH;
        c.rank = m.rank;
        c.stream = static_cast<u32>(k.stream);
        c.set_notify(static_cast<u32>(t_.ccu.sqes.size()));
        t_.ccu.sqes.push_back(q);
        push(c);
        break;
      }
      case kMetaAivGraph: {
        // Expanded from its snapshot file when the case is loaded (aiv.md, src/aiv/).
        Task a;
        a.type = TaskType::AIV_GRAPH;
        a.rank = m.rank;
        a.stream = static_cast<u32>(k.stream);
        a.set_notify(static_cast<u32>(t_.aiv.records.size()));
        t_.aiv.records.push_back({k.launch_idx, fmt::format("{} row {}", table_, row.id), false});
        push(a);
        break;
      }
      case kMetaEventWait:
      case kMetaEventRecord:
        unknown(row, 111, fmt::format("{} record: not supported (HCCL's checker refuses it too).", kind));
        break;
      default:
        unknown(row, 101, fmt::format("Task type code {} is not an HCCL VM task type: the record cannot become a "
                                      "task.", k.type));
        break;
    }
  }
  number_streams(first);
}

void TaskTranslator::number_streams(u32 first) {
  u32 end = static_cast<u32>(t_.tasks.size());
  if (first == end || opt_.keep_stream_ids) return;
  for (u32 i = first; i < end; ++i)
    if (t_.tasks[i].stream == 0) return;
  // AICPU stream ids are hardware queue ids (§10): without a stream 0 the
  // rank would have no main stream. Dense ids in order of first use.
  std::unordered_map<u32, u32> dense;
  std::string mapping;
  for (u32 i = first; i < end; ++i) {
    u32 raw = t_.tasks[i].stream;
    auto [it, added] = dense.emplace(raw, static_cast<u32>(dense.size()));
    if (added && dense.size() <= 8) mapping += fmt::format("{}{}→{}", dense.size() > 1 ? ", " : "", raw, it->second);
    t_.tasks[i].stream = it->second;
  }
  Finding f = import_warning(
      "HCCLVM-W-NO-MAIN-STREAM",
      fmt::format("No main stream on rank {}: it has no stream 0, so its streams are numbered in order of first use "
                  "({}{}); --keep-stream-ids keeps the recorded ids.",
                  m_->rank, mapping, dense.size() > 8 ? ", …" : ""));
  f.tasks.push_back(first);
  findings_.push_back(std::move(f));
}

}  // namespace cc::hcclvm
