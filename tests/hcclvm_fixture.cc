#include "hcclvm_fixture.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdio>
#include <map>

namespace cc::test::vm {

namespace {

void put(Blob& b, std::size_t at, u64 v, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) b[at + i] = static_cast<u8>(v >> (8 * i));
}

}  // namespace

Blob op_detail(u16 op_type, u16 data_type, u16 reduce_type, u64 count) {
  Blob b(28, 0);
  put(b, 0, op_type, 2);
  put(b, 2, data_type, 2);
  put(b, 4, reduce_type, 2);
  put(b, 6, count, 8);
  put(b, 14, data_type, 2);
  bool reduces = op_type == 2 || op_type == 3 || op_type == 7;
  put(b, 16, reduces ? reduce_type : 0, 4);
  return b;
}

Blob op_detail_a2a(u16 op_type, u16 send_type, u64 send_count, u16 recv_type, u64 recv_count) {
  Blob b(28, 0);
  put(b, 0, op_type, 2);
  put(b, 2, send_type, 2);
  put(b, 6, send_count, 8);
  put(b, 14, send_type, 2);
  put(b, 16, recv_count, 8);
  put(b, 24, recv_type, 2);
  return b;
}

Blob v_ext(u64 local, const std::vector<u64>& counts, const std::vector<u64>& displs) {
  Blob b(8 + 8 * counts.size() + 8 * displs.size(), 0);
  put(b, 0, local, 8);
  for (std::size_t i = 0; i < counts.size(); ++i) put(b, 8 + 8 * i, counts[i], 8);
  for (std::size_t i = 0; i < displs.size(); ++i) put(b, 8 + 8 * counts.size() + 8 * i, displs[i], 8);
  return b;
}

Blob matrix_ext(const std::vector<u64>& cells) {
  Blob b(4 + 8 * cells.size(), 0);
  put(b, 0, cells.size(), 4);
  for (std::size_t i = 0; i < cells.size(); ++i) put(b, 4 + 8 * i, cells[i], 8);
  return b;
}

Blob batch_ext(u32 items) {
  Blob b(4, 0);
  put(b, 0, items, 4);
  return b;
}

Blob meta_header(u8 type, u32 rank, u64 stream) {
  Blob b(155, 0);
  b[0] = type;
  put(b, 3, rank, 4);
  put(b, 7, stream, 8);
  put(b, 15, 0xffffffffu, 4);
  return b;
}

Blob memcpy_meta(u32 rank, u64 stream, u32 src_rank, u64 src, u32 dst_rank, u64 dst, u64 len, u8 protocol) {
  Blob b = meta_header(3, rank, stream);
  put(b, 35, src_rank, 4);
  put(b, 39, src, 8);
  put(b, 47, dst_rank, 4);
  put(b, 51, dst, 8);
  put(b, 59, len, 8);
  b[67] = protocol;
  return b;
}

Blob reduce_meta(u32 rank, u64 stream, u32 src_rank, u64 src, u32 dst_rank, u64 dst, u64 count, u8 data_type,
                 u8 reduce_op) {
  Blob b = memcpy_meta(rank, stream, src_rank, src, dst_rank, dst, count);
  b[0] = 2;
  b[67] = data_type;
  b[68] = reduce_op;
  return b;
}

Blob notify_meta(bool record, u32 rank, u64 stream, u64 id, u32 src_rank, u32 dst_rank) {
  Blob b = meta_header(record ? 1 : 0, rank, stream);
  put(b, 35, src_rank, 4);
  put(b, 39, id, 8);
  put(b, 47, dst_rank, 4);
  return b;
}

Blob ccu_meta(u32 rank, u64 stream, const CcuSqe& q) {
  Blob b = meta_header(4, rank, stream);
  b[35] = q.die;
  b[36] = q.mission;
  put(b, 37, q.timeout, 2);
  put(b, 39, q.inst_start, 2);
  put(b, 41, q.inst_count, 2);
  put(b, 43, q.key, 4);
  put(b, 47, q.arg_size, 4);
  for (u32 k = 0; k < kCcuSqeArgs; ++k) put(b, 51 + 8 * k, q.args[k], 8);
  return b;
}

Blob aiv_meta(u32 rank, u64 stream, u64 launch) {
  Blob b = meta_header(5, rank, stream);
  put(b, 35, launch, 8);
  return b;
}

u16 cmd_code(OpType t) {
  switch (t) {
    case OpType::Broadcast: return 1;
    case OpType::AllReduce: return 2;
    case OpType::Reduce: return 3;
    case OpType::AllGather: return 6;
    case OpType::ReduceScatter: return 7;
    case OpType::AllToAllV: return 8;
    case OpType::AllToAll: return 10;
    case OpType::Gather: return 11;
    case OpType::Scatter: return 12;
    case OpType::BatchSendRecv: return 13;
    case OpType::AllGatherV: return 16;
    case OpType::ReduceScatterV: return 17;
    case OpType::SendRecv: return 4;
  }
  return 0;
}

u16 data_type_code(DataType t) {
  using D = DataType;
  switch (t) {
    case D::INT8: return 0;
    case D::INT16: return 1;
    case D::INT32: return 2;
    case D::FP16: return 3;
    case D::FP32: return 4;
    case D::INT64: return 5;
    case D::UINT64: return 6;
    case D::UINT8: return 7;
    case D::UINT16: return 8;
    case D::UINT32: return 9;
    case D::FP64: return 10;
    case D::BFP16: return 11;
    case D::INT128: return 12;
    case D::HIF8: return 14;
    case D::FP8E4M3: return 15;
    case D::FP8E5M2: return 16;
    case D::FP8E8M0: return 17;
  }
  return 255;
}

// ---- writing ----

namespace {

class Writer {
 public:
  explicit Writer(sqlite3* db) : db_(db) {}

  bool exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) == SQLITE_OK) return true;
    error_ = fmt::format("{}: {}", sql.substr(0, 80), msg ? msg : "?");
    sqlite3_free(msg);
    return false;
  }

  // Runs `sql` with the values bound in order: integers bind_int64, blobs
  // as transient blobs (an empty one as a zero-length blob, §13.1).
  struct Value {
    bool is_blob = false;
    i64 integer = 0;
    const Blob* blob = nullptr;
  };
  bool insert(const std::string& sql, std::initializer_list<Value> values) {
    sqlite3_stmt*& st = statements_[sql];  // prepared once per text
    if (!st && sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      error_ = fmt::format("{}: {}", sql, sqlite3_errmsg(db_));
      return false;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    int i = 1;
    for (const Value& v : values) {
      if (!v.is_blob) sqlite3_bind_int64(st, i, v.integer);
      else if (v.blob->empty()) sqlite3_bind_zeroblob(st, i, 0);
      else sqlite3_bind_blob(st, i, v.blob->data(), static_cast<int>(v.blob->size()), SQLITE_TRANSIENT);
      ++i;
    }
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    if (!ok) error_ = fmt::format("{}: {}", sql, sqlite3_errmsg(db_));
    sqlite3_reset(st);
    return ok;
  }

  ~Writer() {
    for (auto& [sql, st] : statements_) sqlite3_finalize(st);
  }

  std::string error_;

 private:
  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*> statements_;
};

Writer::Value I(u64 v) { return {false, static_cast<i64>(v), nullptr}; }  // u64 bit for bit
Writer::Value B(const Blob& b) { return {true, 0, &b}; }

std::string write_rows(const Fixture& f, Writer& w) {
  auto omitted = [&](const std::string& t) { return f.omit_tables.count(t) != 0; };
  std::map<u64, bool> pids;
  for (const OpFx& o : f.ops) pids[o.pid] = true;
  std::vector<std::string> schema = {
      "opDetails (id INTEGER PRIMARY KEY AUTOINCREMENT, pid INTEGER, rankId INTEGER, opIter INTEGER, syncIter "
      "INTEGER, streamId INTEGER, root INTEGER, opExpansionMode INTEGER, devType INTEGER, rankSize INTEGER, srcRank "
      "INTEGER, dstRank INTEGER, opDetail BLOB, opExtInfo BLOB)",
      "opMemInfo (id INTEGER PRIMARY KEY AUTOINCREMENT, opDetailId INTEGER, inputAddr INTEGER, inputSize INTEGER, "
      "outputAddr INTEGER, outputSize INTEGER, cclAddr INTEGER, cclSize INTEGER)",
      "syncRecords (id INTEGER PRIMARY KEY AUTOINCREMENT, pid INTEGER, rankId INTEGER, rankSize INTEGER, syncIter "
      "INTEGER, streamId INTEGER, status INTEGER)",
      "ccuChannels (id INTEGER PRIMARY KEY AUTOINCREMENT, channelId INTEGER, srcDieId INTEGER, dstDieId INTEGER, "
      "srcRankId INTEGER, dstRankId INTEGER, leid BLOB, reid BLOB, protocol INTEGER, jettyNum INTEGER, jettyId BLOB)",
      "ccuInstrRes (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId INTEGER, rankId INTEGER, dieId INTEGER, "
      "instrCount INTEGER, instrSpace BLOB)"};
  for (const auto& [pid, _] : pids)
    schema.push_back(fmt::format("opTask_P_{} (id INTEGER PRIMARY KEY AUTOINCREMENT, opDetailId INTEGER, taskSeq "
                                 "INTEGER, opTaskMeta BLOB)",
                                 pid));
  for (const std::string& s : schema) {
    std::string table = s.substr(0, s.find(' '));
    if (!omitted(table) && !w.exec("CREATE TABLE " + s)) return w.error_;
  }
  i64 id = 0;
  for (const OpFx& o : f.ops) {
    ++id;
    if (!omitted("opDetails") &&
        !w.insert("INSERT INTO opDetails (pid, rankId, opIter, syncIter, streamId, root, opExpansionMode, devType, "
                  "rankSize, srcRank, dstRank, opDetail, opExtInfo) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                  {I(o.pid), I(o.rank), I(o.op_iter), I(o.sync_iter), I(0x7f0000001000ull + o.rank), I(o.root),
                   I(o.mode), I(static_cast<u64>(o.dev_type)), I(o.rank_size), I(o.src_rank), I(o.dst_rank),
                   B(o.detail), B(o.ext)}))
      return w.error_;
    if (o.mem_row && !omitted("opMemInfo") &&
        !w.insert("INSERT INTO opMemInfo (opDetailId, inputAddr, inputSize, outputAddr, outputSize, cclAddr, "
                  "cclSize) VALUES (?,?,?,?,?,?,?)",
                  {I(id), I(o.in_addr), I(o.in_size), I(o.out_addr), I(o.out_size), I(o.ccl_addr), I(o.ccl_size)}))
      return w.error_;
    std::string table = fmt::format("opTask_P_{}", o.pid);
    if (omitted(table)) continue;
    for (const TaskFx& k : o.tasks)
      if (!w.insert(fmt::format("INSERT INTO {} (opDetailId, taskSeq, opTaskMeta) VALUES (?,?,?)", table),
                    {I(k.op_detail_id ? static_cast<u64>(*k.op_detail_id) : id), I(k.seq), B(k.meta)}))
        return w.error_;
  }
  if (!omitted("syncRecords"))
    for (const SyncFx& s : f.syncs)
      if (!w.insert("INSERT INTO syncRecords (pid, rankId, rankSize, syncIter, streamId, status) VALUES "
                    "(?,?,?,?,?,?)",
                    {I(s.pid), I(s.rank), I(s.rank_size), I(s.sync_iter), I(0x7f0000001000ull + s.rank), I(1)}))
        return w.error_;
  if (!omitted("ccuInstrRes"))
    for (const CcuImageFx& c : f.images)
      if (!w.insert("INSERT INTO ccuInstrRes (deviceId, rankId, dieId, instrCount, instrSpace) VALUES (?,?,?,?,?)",
                    {I(c.device), I(c.rank), I(c.die), I(c.count), B(c.space)}))
        return w.error_;
  if (!omitted("ccuChannels")) {
    Blob eid(16, 0), jetty;
    for (const CcuChannelFx& c : f.channels)
      if (!w.insert("INSERT INTO ccuChannels (channelId, srcDieId, dstDieId, srcRankId, dstRankId, leid, reid, "
                    "protocol, jettyNum, jettyId) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    {I(c.channel), I(c.src_die), I(c.dst_die), I(c.src_rank), I(c.dst_rank), B(eid), B(eid), I(0),
                     I(0), B(jetty)}))
        return w.error_;
  }
  for (const std::string& sql : f.extra_sql)
    if (!w.exec(sql)) return w.error_;
  return {};
}

}  // namespace

std::string write_fixture(const Fixture& f, sqlite3* db) {
  Writer w(db);
  if (f.wal && (!w.exec("PRAGMA journal_mode=WAL") || !w.exec("PRAGMA wal_autocheckpoint=0"))) return w.error_;
  if (!w.exec("BEGIN")) return w.error_;
  std::string err = write_rows(f, w);
  if (!err.empty()) {
    w.exec("ROLLBACK");
    return err;
  }
  return w.exec("COMMIT") ? std::string() : w.error_;
}

std::string write_fixture(const Fixture& f, const std::string& path) {
  for (const char* side : {"", "-wal", "-shm", "-journal"}) std::remove((path + side).c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return path + ": " + why;
  }
  std::string err = write_fixture(f, db);
  sqlite3_close(db);
  if (!err.empty()) return err;
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  for (const auto& [name, content] : f.files) {
    std::FILE* out = std::fopen((dir + name).c_str(), "wb");
    if (!out) return dir + name + ": cannot write";
    bool ok = std::fwrite(content.data(), 1, content.size(), out) == content.size();
    ok = std::fclose(out) == 0 && ok;
    if (!ok) return dir + name + ": cannot write";
  }
  return {};
}

Fixture allgather2() {
  Fixture f;
  for (u32 r = 0; r < 2; ++r) {
    OpFx o;
    o.pid = 5100 + r;
    o.rank = r;
    o.dev_type = 6;
    o.rank_size = 2;
    o.src_rank = o.dst_rank = r;
    o.detail = op_detail(6, 2, 0, 64);
    u64 base = r == 0 ? 0x10000000 : 0x20000000;
    o.in_addr = base;
    o.in_size = 0x100;
    o.out_addr = base + 0x10000;
    o.out_size = 0x200;
    o.ccl_addr = base + 0x20000;
    o.ccl_size = 0x200;
    f.ops.push_back(o);
    f.syncs.push_back({5100 + u64{r}, r, 2, 0});
  }
  auto& t0 = f.ops[0].tasks;
  t0.push_back({0, memcpy_meta(0, 0, 0, 0x10000000, 0, 0x10010000, 256), {}});
  t0.push_back({1, memcpy_meta(0, 0, 0, 0x10000000, 1, 0x20010000, 256), {}});
  t0.push_back({2, notify_meta(true, 0, 0, 7, 0, 0), {}});
  t0.push_back({3, notify_meta(false, 0, 0, 8, 0, 0), {}});
  auto& t1 = f.ops[1].tasks;
  t1.push_back({0, memcpy_meta(1, 0, 1, 0x20000000, 1, 0x20010100, 256), {}});
  t1.push_back({1, memcpy_meta(1, 0, 1, 0x20000000, 0, 0x10010100, 256), {}});
  t1.push_back({2, notify_meta(true, 1, 0, 8, 1, 1), {}});
  t1.push_back({3, notify_meta(false, 1, 0, 7, 1, 1), {}});
  return f;
}

}  // namespace cc::test::vm
