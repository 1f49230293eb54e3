#include "io/hcclvm/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstring>

#include "io/hcclvm/read_ahead.h"

namespace cc::hcclvm {

std::string place_error(const std::string& file, const std::string& table, i64 row,
                        const std::string& column, const std::string& what) {
  std::string s = file + ":";
  if (!table.empty()) s += " table " + table;
  if (row != kNoRow) s += fmt::format(" row {}", row);
  if (!column.empty()) s += " column " + column;
  if (s.back() != ':') s += ":";
  return s + " " + what;
}

Db::Db(sqlite3* borrowed, std::string file) : db_(borrowed), file_(std::move(file)) {}

Db::~Db() {
  end_read();
  if (owned_ && db_) sqlite3_close(db_);
}

Db::Db(Db&& o) noexcept
    : db_(o.db_), owned_(o.owned_), in_read_(o.in_read_), file_(std::move(o.file_)),
      tables_(std::move(o.tables_)), tables_read_(o.tables_read_) {
  o.db_ = nullptr;
  o.owned_ = false;
  o.in_read_ = false;
}

Result<Db> Db::open(const std::string& path) {
  // The raw header, not the decompressed one detection may have seen:
  // SQLite reads the file itself.
  char head[16] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error{fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  std::size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (got != sizeof head || std::memcmp(head, "SQLite format 3", 16) != 0)
    return Error{fmt::format("{}: not an SQLite database (a compressed database must be decompressed first)",
                             path)};
  sqlite3* h = nullptr;
  // Scans of tables written in one go read the file in large chunks
  // (read_ahead.h): a quarter of a reader's time was system calls.
  int rc = sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, read_ahead_vfs());
  if (rc != SQLITE_OK) {
    std::string why = h ? sqlite3_errmsg(h) : sqlite3_errstr(rc);
    sqlite3_close(h);
    return Error{fmt::format("{}: cannot open the database: {}", path, why)};
  }
  // A live database is written by HCCL VM while we read it.
  sqlite3_busy_timeout(h, 5000);
  Db db(h, path);
  db.owned_ = true;
  return db;
}

const std::set<std::string>& Db::tables() {
  if (tables_read_) return tables_;
  tables_read_ = true;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st, nullptr) ==
      SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* n = sqlite3_column_text(st, 0);
      if (n) tables_.insert(reinterpret_cast<const char*>(n));
    }
  }
  sqlite3_finalize(st);
  return tables_;
}

Status Db::require_columns(const std::string& table, const std::vector<std::string>& columns) {
  if (!has_table(table)) return Error{place_error(file_, table, kNoRow, "", "no such table")};
  std::set<std::string> have;
  sqlite3_stmt* st = nullptr;
  std::string sql = fmt::format("PRAGMA table_info(\"{}\")", table);
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string why = sqlite3_errmsg(db_);
    sqlite3_finalize(st);
    return Error{place_error(file_, table, kNoRow, "", "cannot read the schema: " + why)};
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* n = sqlite3_column_text(st, 1);
    if (n) have.insert(reinterpret_cast<const char*>(n));
  }
  sqlite3_finalize(st);
  for (const std::string& c : columns)
    if (!have.count(c)) return Error{place_error(file_, table, kNoRow, c, "no such column")};
  return {};
}

bool Db::wal_mode() {
  sqlite3_stmt* st = nullptr;
  bool wal = false;
  if (sqlite3_prepare_v2(db_, "PRAGMA journal_mode", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* m = sqlite3_column_text(st, 0);
    wal = m && std::strcmp(reinterpret_cast<const char*>(m), "wal") == 0;
  }
  sqlite3_finalize(st);
  return wal;
}

Status Db::begin_read() {
  char* msg = nullptr;
  if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string why = msg ? msg : "unknown error";
    sqlite3_free(msg);
    return Error{place_error(file_, "", kNoRow, "", "cannot read the database: " + why)};
  }
  in_read_ = true;
  return {};
}

void Db::end_read() {
  if (in_read_ && db_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  in_read_ = false;
}

Query::Query(Db& db, std::string table, const std::string& sql) : db_(db), table_(std::move(table)) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
    error_ = place_error(db.file(), table_, kNoRow, "", std::string("cannot query: ") + sqlite3_errmsg(db.handle()));
}

Query::~Query() { sqlite3_finalize(stmt_); }

void Query::bind(int index, i64 value) {
  if (stmt_) sqlite3_bind_int64(stmt_, index, value);
}

bool Query::next() {
  if (!error_.empty() || !stmt_) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) return false;
  if (rc != SQLITE_ROW) {
    error_ = place_error(db_.file(), table_, row_, "",
                         std::string("cannot read (after this row): ") + sqlite3_errmsg(db_.handle()));
    return false;
  }
  row_ = kNoRow;
  sqlite3_value* id = sqlite3_column_value(stmt_, 0);
  if (sqlite3_value_type(id) != SQLITE_INTEGER) {
    error_ = place_error(db_.file(), table_, kNoRow, "id", "a row without an integer id");
    return false;
  }
  row_ = sqlite3_value_int64(id);
  return true;
}

sqlite3_value* Query::column(int col) {
  // One call into the statement per value, then plain reads of it: the
  // sqlite3_column_* getters each enter and leave the statement, several
  // times per column and 10^7 rows. The value is "unprotected" (SQLite's
  // word): read only on this connection's thread, until the next step.
  return sqlite3_column_value(stmt_, col);
}

void Query::fail(const char* column, const std::string& what) {
  if (error_.empty()) error_ = place_error(db_.file(), table_, row_, column, what);
}

bool Query::value(int col, const char* name, bool& negative, u64& magnitude) {
  if (!error_.empty()) return false;
  negative = false;
  magnitude = 0;
  sqlite3_value* value = column(col);
  int type = sqlite3_value_type(value);
  switch (type) {
    case SQLITE_INTEGER: {
      i64 v = sqlite3_value_int64(value);
      negative = v < 0;
      magnitude = negative ? u64{0} - static_cast<u64>(v) : static_cast<u64>(v);
      return true;
    }
    case SQLITE_NULL:
      fail(name, "NULL where an integer is required");
      return false;
    case SQLITE_TEXT: {
      // HCCL VM's own loader parses text; accept a decimal integer.
      const char* s = reinterpret_cast<const char*>(sqlite3_value_text(value));
      int n = sqlite3_value_bytes(value);
      std::string_view t(s ? s : "", s ? static_cast<std::size_t>(n) : 0);
      std::string_view digits = t;
      if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
      }
      bool ok = !digits.empty() && digits.size() <= 20;
      for (char c : digits) {
        if (c < '0' || c > '9' || __builtin_mul_overflow(magnitude, u64{10}, &magnitude) ||
            __builtin_add_overflow(magnitude, static_cast<u64>(c - '0'), &magnitude)) {
          ok = false;
          break;
        }
      }
      if (!ok) {
        std::string shown(t.substr(0, 40));
        fail(name, fmt::format("text \"{}\"{} is not a decimal integer", shown, t.size() > 40 ? "…" : ""));
        return false;
      }
      if (magnitude == 0) negative = false;
      return true;
    }
    default:
      fail(name, type == SQLITE_FLOAT ? "a floating-point value where an integer is required"
                                      : "a blob where an integer is required");
      return false;
  }
}

i64 Query::int64(int col, const char* name) {
  bool neg;
  u64 mag;
  if (!value(col, name, neg, mag)) return 0;
  u64 limit = neg ? (u64{1} << 63) : (u64{1} << 63) - 1;
  if (mag > limit) {
    fail(name, fmt::format("{}{} does not fit in 64 signed bits", neg ? "-" : "", mag));
    return 0;
  }
  return neg ? static_cast<i64>(u64{0} - mag) : static_cast<i64>(mag);
}

u64 Query::uint64(int col, const char* name) {
  bool neg;
  u64 mag;
  if (!value(col, name, neg, mag)) return 0;
  if (!neg) return mag;
  if (mag > (u64{1} << 63)) {
    fail(name, fmt::format("-{} does not fit in 64 bits", mag));
    return 0;
  }
  return u64{0} - mag;  // the bit pattern SQLite stored for a value >= 2^63
}

u32 Query::uint32(int col, const char* name) {
  bool neg;
  u64 mag;
  if (!value(col, name, neg, mag)) return 0;
  if (neg || mag > 0xffffffffu) {
    fail(name, fmt::format("{}{} is outside 0 … 2^32−1", neg ? "-" : "", mag));
    return 0;
  }
  return static_cast<u32>(mag);
}

u64 Query::count(int col, const char* name) {
  bool neg;
  u64 mag;
  if (!value(col, name, neg, mag)) return 0;
  if (neg) {
    fail(name, fmt::format("-{} is negative", mag));
    return 0;
  }
  return mag;
}

std::span<const u8> Query::blob(int col, const char* name) {
  if (!error_.empty()) return {};
  sqlite3_value* value = column(col);
  int type = sqlite3_value_type(value);
  if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
    fail(name, "a number where a blob is required");
    return {};
  }
  const void* p = sqlite3_value_blob(value);
  int n = sqlite3_value_bytes(value);
  if (!p || n <= 0) return {};
  return {static_cast<const u8*>(p), static_cast<std::size_t>(n)};
}

}  // namespace cc::hcclvm
