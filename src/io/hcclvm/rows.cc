#include "io/hcclvm/rows.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>

namespace cc::hcclvm {

namespace {

// A blob decoder's failure, named by its place.
template <typename T>
bool decoded(Query& q, const char* column, Result<T>&& v, T& out) {
  if (!v) {
    q.fail(column, v.error().message);
    return false;
  }
  out = std::move(*v);
  return true;
}

Result<std::vector<OpRow>> read_ops(Db& db) {
  const char* t = "opDetails";
  CC_TRY(db.require_columns(t, {"id", "pid", "rankId", "syncIter", "root", "devType", "rankSize",
                                           "srcRank", "dstRank", "opDetail", "opExtInfo"}));
  Query q(db, t,
          "SELECT id, pid, rankId, syncIter, root, devType, rankSize, srcRank, dstRank, opDetail "
          "FROM opDetails ORDER BY id");
  std::vector<OpRow> ops;
  while (q.next()) {
    OpRow r;
    r.id = q.row();
    r.pid = q.count(1, "pid");
    r.rank = q.uint32(2, "rankId");
    r.sync_iter = q.count(3, "syncIter");
    r.root = q.uint32(4, "root");
    r.dev_type = q.int64(5, "devType");
    r.rank_size = q.uint32(6, "rankSize");
    r.src_rank = q.uint32(7, "srcRank");
    r.dst_rank = q.uint32(8, "dstRank");
    decoded(q, "opDetail", decode_op_detail(q.blob(9, "opDetail")), r.detail);
    if (!q.ok()) break;
    ops.push_back(std::move(r));
  }
  if (!q.ok()) return Error{q.error()};
  return ops;
}

Result<std::unordered_map<i64, MemRow>> read_mem(Db& db) {
  const char* t = "opMemInfo";
  CC_TRY(db.require_columns(
      t, {"id", "opDetailId", "inputAddr", "inputSize", "outputAddr", "outputSize", "cclAddr", "cclSize"}));
  Query q(db, t,
          "SELECT id, opDetailId, inputAddr, inputSize, outputAddr, outputSize, cclAddr, cclSize "
          "FROM opMemInfo ORDER BY id");
  std::unordered_map<i64, MemRow> mem;
  static const char* kCols[] = {"inputAddr", "inputSize", "outputAddr", "outputSize", "cclAddr", "cclSize"};
  while (q.next()) {
    MemRow m;
    m.id = q.row();
    i64 op = q.int64(1, "opDetailId");
    for (int b = 0; b < 3; ++b) {
      m.addr[b] = q.uint64(2 + 2 * b, kCols[2 * b]);
      m.size[b] = q.uint64(3 + 2 * b, kCols[2 * b + 1]);
    }
    if (!q.ok()) break;
    mem.emplace(op, m);  // the first row of an operator wins (§3.2)
  }
  if (!q.ok()) return Error{q.error()};
  return mem;
}

}  // namespace

Result<DbRows> read_rows(Db& db) {
  DbRows rows;
  auto ops = read_ops(db);
  if (!ops) return ops.error();
  rows.ops = std::move(ops.value());
  auto mem = read_mem(db);
  if (!mem) return mem.error();
  rows.mem = std::move(mem.value());
  CC_TRY(db.require_columns("syncRecords", {"id", "syncIter"}));
  Query q(db, "syncRecords", "SELECT id, syncIter FROM syncRecords ORDER BY id");
  while (q.next()) {
    u64 s = q.count(1, "syncIter");
    if (!q.ok()) break;
    rows.max_sync_iter = rows.synced ? std::max(rows.max_sync_iter, s) : s;
    rows.synced = true;
  }
  if (!q.ok()) return Error{q.error()};
  return rows;
}

Result<std::vector<u8>> read_ext(Db& db, i64 id) {
  Query q(db, "opDetails", "SELECT id, opExtInfo FROM opDetails WHERE id = ?");
  q.bind(1, id);
  std::vector<u8> out;
  if (q.next()) {
    auto b = q.blob(1, "opExtInfo");
    out.assign(b.begin(), b.end());
  }
  if (!q.ok()) return Error{q.error()};
  return out;
}

std::string task_table(u64 pid) { return fmt::format("opTask_P_{}", pid); }

Result<std::vector<OpTasks>> read_tasks(Db& db, u64 pid, const std::vector<i64>& wanted) {
  std::vector<OpTasks> out;
  std::string t = task_table(pid);
  if (!db.has_table(t)) return out;
  CC_TRY(db.require_columns(t, {"id", "opDetailId", "taskSeq", "opTaskMeta"}));
  Query q(db, t, fmt::format("SELECT id, opDetailId, taskSeq, opTaskMeta FROM \"{}\"", t));
  // Rows of one operator usually follow each other: the last operator's
  // slot is looked up once per run of rows, not once per row.
  std::vector<int> slot(wanted.size(), -1);
  i64 last_op = 0;
  OpTasks* cur = nullptr;
  bool cur_valid = false;
  while (q.next()) {
    i64 op = q.int64(1, "opDetailId");
    if (!q.ok()) break;
    if (!cur_valid || op != last_op) {
      last_op = op;
      cur_valid = true;
      cur = nullptr;
      auto it = std::lower_bound(wanted.begin(), wanted.end(), op);
      if (it != wanted.end() && *it == op) {
        int& s = slot[static_cast<std::size_t>(it - wanted.begin())];
        if (s < 0) {
          s = static_cast<int>(out.size());
          out.push_back({op, {}, {}});
        }
        cur = &out[static_cast<std::size_t>(s)];
      }
    }
    if (!cur) continue;
    TaskRow r;
    r.id = q.row();
    r.seq = q.int64(2, "taskSeq");
    Bytes meta = q.blob(3, "opTaskMeta");
    if (!q.ok()) break;
    if (meta.size() < kTaskMetaBytes) {
      q.fail("opTaskMeta", decode_task_meta(meta).error().message);
      break;
    }
    // The fields of the row's type (the others stay zero); a CCU SQE
    // beside the rows.
    copy_task_fields(TaskMetaBytes(meta.data()), r, [&](TaskMetaBytes m) {
      r.sqe_index = cur->sqes.size();
      cur->sqes.push_back(m.sqe());
    });
    cur->rows.push_back(r);
  }
  if (!q.ok()) return Error{q.error()};
  // The reference orders by taskSeq; ties get a fixed order by id (§3.4).
  // Rows in id order already sorted by taskSeq (the usual case) are left as
  // they are.
  auto before = [](const TaskRow& a, const TaskRow& b) { return a.seq != b.seq ? a.seq < b.seq : a.id < b.id; };
  for (OpTasks& o : out)
    if (!std::is_sorted(o.rows.begin(), o.rows.end(), before)) std::sort(o.rows.begin(), o.rows.end(), before);
  std::sort(out.begin(), out.end(), [](const OpTasks& a, const OpTasks& b) { return a.op < b.op; });
  return out;
}

std::unordered_map<std::string, u64> task_row_bounds(Db& db) {
  std::unordered_map<std::string, u64> out;
  if (!db.has_table("sqlite_sequence")) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.handle(), "SELECT name, seq FROM sqlite_sequence", -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* n = sqlite3_column_text(st, 0);
      sqlite3_int64 seq = sqlite3_column_int64(st, 1);
      if (n && seq > 0) out[reinterpret_cast<const char*>(n)] = static_cast<u64>(seq);
    }
  }
  sqlite3_finalize(st);
  return out;
}

Result<std::vector<CcuImageRow>> read_ccu_images(Db& db, std::vector<i64>& skipped) {
  const char* t = "ccuInstrRes";
  std::vector<CcuImageRow> out;
  if (!db.has_table(t)) return out;
  CC_TRY(db.require_columns(t, {"id", "rankId", "dieId", "instrCount", "instrSpace"}));
  // Newest row per (rank, die): rows in id order, later ones replace.
  std::map<std::pair<u32, u32>, std::size_t> at;
  Query q(db, t, "SELECT id, rankId, dieId, instrCount, instrSpace FROM ccuInstrRes ORDER BY id");
  while (q.next()) {
    CcuImageRow r;
    r.id = q.row();
    r.rank = q.uint32(1, "rankId");
    r.die = q.uint32(2, "dieId");
    u64 words = q.count(3, "instrCount");
    if (!q.ok()) break;
    if (words == 0 || words > kCcuMaxWords) {  // skipped by the reference too (§3.5)
      skipped.push_back(r.id);
      continue;
    }
    auto space = q.blob(4, "instrSpace");
    if (space.size() < words * kCcuWordBytes) {
      q.fail("instrSpace", fmt::format("blob is {} bytes; instrCount {} needs {} ({} bytes per word)",
                                       space.size(), words, words * kCcuWordBytes, kCcuWordBytes));
      break;
    }
    r.words = static_cast<u32>(words);
    r.bytes.assign(space.begin(), space.begin() + static_cast<std::ptrdiff_t>(words * kCcuWordBytes));
    auto [it, added] = at.emplace(std::pair{r.rank, r.die}, out.size());
    if (added) out.push_back(std::move(r));
    else out[it->second] = std::move(r);
  }
  if (!q.ok()) return Error{q.error()};
  return out;
}

Result<std::vector<CcuChannelRow>> read_ccu_channels(Db& db) {
  const char* t = "ccuChannels";
  std::vector<CcuChannelRow> out;
  if (!db.has_table(t)) return out;
  CC_TRY(db.require_columns(t, {"id", "channelId", "srcDieId", "dstDieId", "srcRankId", "dstRankId"}));
  Query q(db, t,
          "SELECT id, channelId, srcDieId, dstDieId, srcRankId, dstRankId FROM ccuChannels ORDER BY id");
  while (q.next()) {
    CcuChannelRow c;
    c.id = q.row();
    c.channel = q.uint32(1, "channelId");
    c.src_die = q.uint32(2, "srcDieId");
    c.dst_die = q.uint32(3, "dstDieId");
    c.src_rank = q.uint32(4, "srcRankId");
    c.dst_rank = q.uint32(5, "dstRankId");
    if (!q.ok()) break;
    out.push_back(c);
  }
  if (!q.ok()) return Error{q.error()};
  return out;
}

}  // namespace cc::hcclvm
