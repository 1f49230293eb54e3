// SQLite access for the HCCL VM importer: a read-only connection opened in
// place (so the WAL side files of a live database are honoured), schema
// look-ups, and a query whose typed column reads follow the storage rules of
// hcclvm-db.md §2. Every failure names the place: "FILE: table T row N
// column C: what is wrong".
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/types.h"

struct sqlite3;
struct sqlite3_stmt;
struct sqlite3_value;

namespace cc::hcclvm {

using i64 = std::int64_t;
inline constexpr i64 kNoRow = -1;

// "FILE: table T row N column C: what" (only the parts that apply).
std::string place_error(const std::string& file, const std::string& table, i64 row,
                        const std::string& column, const std::string& what);

// A database connection. Either owns the handle (open) or borrows one.
class Db {
 public:
  Db(sqlite3* borrowed, std::string file);
  ~Db();
  Db(Db&& o) noexcept;
  Db& operator=(Db&&) = delete;
  Db(const Db&) = delete;

  // Opens `path` read-only, in place; checks it is an SQLite database.
  static Result<Db> open(const std::string& path);

  sqlite3* handle() const { return db_; }
  const std::string& file() const { return file_; }

  // Every table name (read once).
  const std::set<std::string>& tables();
  bool has_table(const std::string& name) { return tables().count(name) != 0; }
  // Exit-2 text when `table` lacks one of `columns` (or does not exist);
  // "" when all are there.
  Status require_columns(const std::string& table, const std::vector<std::string>& columns);

  // The database is in WAL mode (PRAGMA journal_mode).
  bool wal_mode();

  // Reads in one snapshot (a live database may be written meanwhile).
  Status begin_read();
  void end_read();

 private:
  sqlite3* db_ = nullptr;
  bool owned_ = false;
  bool in_read_ = false;
  std::string file_;
  std::set<std::string> tables_;
  bool tables_read_ = false;
};

// One SELECT over one table. Column 0 must be the row's `id`. Read a row's
// columns with the typed getters; the first failure is kept (error()) and
// later getters return 0, so a row is read straight through and checked once.
class Query {
 public:
  Query(Db& db, std::string table, const std::string& sql);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  void bind(int index, i64 value);  // 1-based, before the first next()
  // Advances; false at the end or on a failure (error() says which).
  bool next();
  i64 row() const { return row_; }

  // INTEGER, or TEXT holding a decimal integer; anything else fails.
  i64 int64(int col, const char* name);
  // Addresses and sizes: values >= 2^63 are stored negative (§2).
  u64 uint64(int col, const char* name);
  // Non-negative and below 2^32.
  u32 uint32(int col, const char* name);
  // Non-negative.
  u64 count(int col, const char* name);
  // Raw bytes; NULL and a zero-length blob are both empty. Valid until the
  // next call of next().
  std::span<const u8> blob(int col, const char* name);

  // Records a failure at the current row (first one wins).
  void fail(const char* column, const std::string& what);
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }

 private:
  // The integer in column `col` as sign and magnitude; false on failure.
  bool value(int col, const char* name, bool& negative, u64& magnitude);
  sqlite3_value* column(int col);

  Db& db_;
  std::string table_;
  sqlite3_stmt* stmt_ = nullptr;
  i64 row_ = kNoRow;
  std::string error_;
};

}  // namespace cc::hcclvm
