#include "io/hcclvm/read_ahead.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cc::hcclvm {

namespace {

constexpr int kMaxChunk = 1 << 20;

// The file as SQLite sees it: our part, then the default VFS's file (its
// size is known only at run time, so it follows in the same allocation).
struct File {
  sqlite3_file base;  // base.pMethods = &kMethods
  sqlite3_file* real;
  bool main_db;     // the database file itself (not a journal or WAL)
  bool never;       // in WAL mode: never read ahead
  unsigned char* chunk;
  sqlite3_int64 at;  // the copy holds the file's bytes [at, at + len)
  int len;
  sqlite3_int64 next;  // where the last read ended
  int window;          // bytes to read at the next sequential read (0: one read)
  sqlite3_int64 size;  // the file's size under the current lock (-1: not asked)
};

constexpr std::size_t kOurs = (sizeof(File) + 15) & ~std::size_t{15};

sqlite3_vfs* g_default = nullptr;
sqlite3_vfs g_vfs;

File* ours(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
sqlite3_file* real(sqlite3_file* f) { return ours(f)->real; }
const sqlite3_io_methods& fwd(sqlite3_file* f) { return *real(f)->pMethods; }

void drop(File* f) {
  f->len = 0;
  f->window = 0;
  f->size = -1;
}

// Serves [off, off + amt) from the copy, or refills the copy from `off`
// when the read follows the last one, or reads it from the file.
int read_through(File* f, void* out, int amt, sqlite3_int64 off) {
  const sqlite3_io_methods& file = *f->real->pMethods;
  if (f->len > 0 && off >= f->at && off + amt <= f->at + f->len) {
    std::memcpy(out, f->chunk + (off - f->at), static_cast<std::size_t>(amt));
    f->next = off + amt;
    return SQLITE_OK;
  }
  // The window doubles while reads follow each other, and closes at the
  // first that does not.
  bool follows = off == f->next && amt > 0;
  f->next = off + amt;
  f->window = !follows ? 0 : f->window ? std::min(2 * f->window, kMaxChunk) : std::min(2 * amt, kMaxChunk);
  if (f->window > amt) {
    if (f->size < 0 && file.xFileSize(f->real, &f->size) != SQLITE_OK) f->size = -1;
    sqlite3_int64 n = f->size > off ? std::min<sqlite3_int64>(f->window, f->size - off) : 0;
    if (n > amt && (f->chunk || (f->chunk = static_cast<unsigned char*>(std::malloc(kMaxChunk))))) {
      if (file.xRead(f->real, f->chunk, static_cast<int>(n), off) == SQLITE_OK) {
        f->at = off;
        f->len = static_cast<int>(n);
        std::memcpy(out, f->chunk, static_cast<std::size_t>(amt));
        return SQLITE_OK;
      }
      drop(f);  // the file changed size, or cannot be read there: read as the default VFS does
    }
  }
  return file.xRead(f->real, out, amt, off);
}

int x_read(sqlite3_file* pf, void* out, int amt, sqlite3_int64 off) {
  File* f = ours(pf);
  if (!f->main_db || f->never) return fwd(pf).xRead(f->real, out, amt, off);
  int rc = read_through(f, out, amt, off);
  // A database in WAL mode says so in its header (bytes 18 and 19 of the
  // file), which SQLite reads before any other page of a transaction.
  if (rc == SQLITE_OK && off == 0 && amt >= 20) {
    const auto* h = static_cast<const unsigned char*>(out);
    if (h[18] == 2 || h[19] == 2) {
      f->never = true;
      drop(f);
    }
  }
  return rc;
}

int x_close(sqlite3_file* pf) {
  std::free(ours(pf)->chunk);
  return fwd(pf).xClose(real(pf));
}
int x_write(sqlite3_file* pf, const void* b, int amt, sqlite3_int64 off) {
  drop(ours(pf));
  return fwd(pf).xWrite(real(pf), b, amt, off);
}
int x_truncate(sqlite3_file* pf, sqlite3_int64 size) {
  drop(ours(pf));
  return fwd(pf).xTruncate(real(pf), size);
}
int x_sync(sqlite3_file* pf, int flags) { return fwd(pf).xSync(real(pf), flags); }
int x_file_size(sqlite3_file* pf, sqlite3_int64* size) { return fwd(pf).xFileSize(real(pf), size); }
int x_lock(sqlite3_file* pf, int level) {
  drop(ours(pf));
  return fwd(pf).xLock(real(pf), level);
}
int x_unlock(sqlite3_file* pf, int level) {
  drop(ours(pf));
  return fwd(pf).xUnlock(real(pf), level);
}
int x_check_reserved_lock(sqlite3_file* pf, int* out) { return fwd(pf).xCheckReservedLock(real(pf), out); }
int x_file_control(sqlite3_file* pf, int op, void* arg) { return fwd(pf).xFileControl(real(pf), op, arg); }
int x_sector_size(sqlite3_file* pf) { return fwd(pf).xSectorSize(real(pf)); }
int x_device_characteristics(sqlite3_file* pf) { return fwd(pf).xDeviceCharacteristics(real(pf)); }
int x_shm_map(sqlite3_file* pf, int region, int size, int extend, void volatile** p) {
  return fwd(pf).xShmMap(real(pf), region, size, extend, p);
}
int x_shm_lock(sqlite3_file* pf, int offset, int n, int flags) { return fwd(pf).xShmLock(real(pf), offset, n, flags); }
void x_shm_barrier(sqlite3_file* pf) { fwd(pf).xShmBarrier(real(pf)); }
int x_shm_unmap(sqlite3_file* pf, int del) { return fwd(pf).xShmUnmap(real(pf), del); }
// Memory-mapped pages would bypass the copy; the importer maps nothing
// (PRAGMA mmap_size stays 0), and these say so to SQLite if it ever asks.
int x_fetch(sqlite3_file*, sqlite3_int64, int, void** p) {
  *p = nullptr;
  return SQLITE_OK;
}
int x_unfetch(sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; }

const sqlite3_io_methods kMethods = {
    3,           x_close,    x_read,        x_write,     x_truncate,  x_sync,  x_file_size,
    x_lock,      x_unlock,   x_check_reserved_lock,      x_file_control,       x_sector_size,
    x_device_characteristics, x_shm_map, x_shm_lock,      x_shm_barrier, x_shm_unmap, x_fetch, x_unfetch};

int x_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* pf, int flags, int* out_flags) {
  File* f = ours(pf);
  std::memset(static_cast<void*>(f), 0, kOurs);
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f) + kOurs);
  int rc = g_default->xOpen(g_default, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK || !f->real->pMethods) {
    f->base.pMethods = nullptr;  // nothing to close (SQLite's rule for a failed open)
    return rc;
  }
  // A default VFS older than version 3 lacks the methods forwarded above.
  if (f->real->pMethods->iVersion < 3) {
    f->real->pMethods->xClose(f->real);
    f->base.pMethods = nullptr;
    return SQLITE_CANTOPEN;
  }
  f->main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  f->next = -1;  // the first read follows none
  f->size = -1;
  f->base.pMethods = &kMethods;
  return rc;
}

}  // namespace

const char* read_ahead_vfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_default = sqlite3_vfs_find(nullptr);
    g_vfs = *g_default;  // every other method is the default VFS's own
    g_vfs.pNext = nullptr;
    g_vfs.zName = "collcheck-read-ahead";
    g_vfs.szOsFile = static_cast<int>(kOurs) + g_default->szOsFile;
    g_vfs.xOpen = x_open;
    sqlite3_vfs_register(&g_vfs, 0);
  });
  return g_vfs.zName;
}

}  // namespace cc::hcclvm
