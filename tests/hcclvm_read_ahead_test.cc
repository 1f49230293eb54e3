// The read-ahead VFS every file connection of the HCCL VM importer uses
// (io/hcclvm/read_ahead.h): whatever the layout of the file, and however it
// changes between transactions, a connection reads what the default VFS
// reads.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/hcclvm/sqlite.h"
#include "test_util.h"

namespace cc::test {
namespace {

void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg), SQLITE_OK) << (msg ? msg : "") << ": " << sql;
}

// Rows [from, to) of `table` in one transaction: a 300-byte blob each,
// about 13 to a page.
void insert(sqlite3* db, const std::string& table, int from, int to) {
  exec(db, "BEGIN");
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, fmt::format("INSERT INTO {} (id, v) VALUES (?, ?)", table).c_str(), -1, &st,
                               nullptr),
            SQLITE_OK);
  for (int i = from; i < to; ++i) {
    std::vector<u8> v(300);
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<u8>(i * 31 + static_cast<int>(k) + table.size());
    sqlite3_bind_int64(st, 1, i);
    sqlite3_bind_blob(st, 2, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  exec(db, "COMMIT");
}

// The rows of `table` with ids from `from` on as text, read through the
// importer's connection.
std::string rows_via_importer(hcclvm::Db& db, const std::string& table, int from = 0) {
  std::string out;
  hcclvm::Query q(db, table, fmt::format("SELECT id, v FROM {} WHERE id >= {} ORDER BY id", table, from));
  while (q.next()) {
    auto v = q.blob(1, "v");
    unsigned sum = 0;
    for (u8 b : v) sum = sum * 131 + b;
    out += fmt::format("{}:{}:{};", q.row(), v.size(), sum);
  }
  EXPECT_TRUE(q.ok()) << q.error();
  return out;
}

// The same in a read transaction of its own.
std::string rows_in_transaction(hcclvm::Db& db, const std::string& table, int from = 0) {
  EXPECT_TRUE(db.begin_read().ok());
  std::string out = rows_via_importer(db, table, from);
  db.end_read();
  return out;
}

// The same through SQLite's default VFS.
std::string rows_via_default(const std::string& path, const std::string& table, int from = 0) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, fmt::format("SELECT id, v FROM {} WHERE id >= {} ORDER BY id", table, from).c_str(),
                               -1, &st, nullptr),
            SQLITE_OK);
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const auto* v = static_cast<const u8*>(sqlite3_column_blob(st, 1));
    int n = sqlite3_column_bytes(st, 1);
    unsigned sum = 0;
    for (int k = 0; k < n; ++k) sum = sum * 131 + v[k];
    out += fmt::format("{}:{}:{};", sqlite3_column_int64(st, 0), n, sum);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::string fresh(const std::string& name) {
  std::string path = temp_path(name);
  for (const char* side : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + side);
  return path;
}

TEST(HcclvmReadAhead, ReadsWhatTheDefaultVfsReadsWhateverTheLayout) {
  std::string path = fresh("read_ahead_layout.db");
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  exec(w, "PRAGMA synchronous=OFF");
  for (const char* t : {"whole", "a", "b"}) exec(w, fmt::format("CREATE TABLE {} (id INTEGER PRIMARY KEY, v BLOB)", t));
  // `whole` in one go (its pages follow each other, as a task table's do);
  // `a` and `b` a few rows at a time in turn (their pages interleave).
  insert(w, "whole", 0, 20000);
  for (int i = 0; i < 3000; i += 40) {
    insert(w, "a", i, i + 40);
    insert(w, "b", i, i + 40);
  }
  Result<hcclvm::Db> db = hcclvm::Db::open(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  ASSERT_TRUE(db->begin_read().ok());
  // Back and forth between tables in one transaction: each scan starts
  // where the last one's copy does not reach.
  for (const char* t : {"whole", "a", "b", "a", "whole"})
    EXPECT_EQ(rows_via_importer(*db, t), rows_via_default(path, t)) << t;
  db->end_read();
  sqlite3_close(w);
}

TEST(HcclvmReadAhead, AChangeBetweenTransactionsIsSeen) {
  std::string path = fresh("read_ahead_change.db");
  sqlite3* w = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  exec(w, "PRAGMA synchronous=OFF");
  // t's root is not the page after the header's, so the first reads of a
  // transaction do not follow each other.
  exec(w, "CREATE TABLE first (x)");
  exec(w, "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)");
  insert(w, "t", 0, 5000);
  Result<hcclvm::Db> db = hcclvm::Db::open(path);
  ASSERT_TRUE(db.ok()) << db.error().message;
  std::string before = rows_in_transaction(*db, "t");
  EXPECT_EQ(before, rows_via_default(path, "t"));
  // Rewritten in place (same pages, new bytes), grown, then shrunk: each
  // new transaction reads the file as it is now. The first read goes
  // straight to the last rows, the part of the file the scan before read
  // ahead.
  exec(w, "UPDATE t SET v = zeroblob(300) WHERE id % 7 = 3");
  EXPECT_EQ(rows_in_transaction(*db, "t", 4900), rows_via_default(path, "t", 4900));
  std::string updated = rows_in_transaction(*db, "t");
  EXPECT_NE(updated, before);
  EXPECT_EQ(updated, rows_via_default(path, "t"));
  insert(w, "t", 5000, 9000);
  EXPECT_EQ(rows_in_transaction(*db, "t"), rows_via_default(path, "t"));
  exec(w, "DELETE FROM t WHERE id >= 1000");
  exec(w, "VACUUM");
  std::string shrunk = rows_in_transaction(*db, "t");
  EXPECT_EQ(shrunk, rows_via_default(path, "t"));
  EXPECT_EQ(shrunk.find("1000:"), std::string::npos);
  // And in WAL mode, where nothing is read ahead, the same.
  exec(w, "PRAGMA journal_mode=WAL");
  insert(w, "t", 20000, 21000);
  EXPECT_EQ(rows_in_transaction(*db, "t"), rows_via_default(path, "t"));
  sqlite3_close(w);
}

}  // namespace
}  // namespace cc::test
