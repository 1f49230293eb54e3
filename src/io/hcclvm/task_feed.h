// The task tables (opTask_P_<pid>) an import needs, handed to the
// translator one at a time in the order it takes them. With several
// threads, each reads whole tables ahead on its own read-only connection;
// the translator still takes them in its fixed order and an error is always
// the one of the first failing table by pid, so nothing the import produces
// depends on which thread read what, or when.
//
// The translator never waits for a table no thread has started: it reads
// that one itself, so a reader thread that gets no core costs nothing.
//
// Only a few tables are read ahead of the translator (two per thread), and
// a table's rows are freed once translated: a database of 10^7 tasks never
// holds all its rows at once.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "io/hcclvm/rows.h"

namespace cc::hcclvm {

class TaskFeed {
 public:
  // One table to read: its pid and the wanted operators (ascending).
  struct Need {
    u64 pid = 0;
    std::vector<i64> ops;
  };
  // `needs` in the order the translator takes them (each pid once).
  // `threads` > 1 opens that many extra connections to `main`'s file when
  // `reopen` (a file, not a borrowed handle, and not in WAL mode, where a
  // second connection could see a later snapshot); otherwise every table is
  // read on `main` when it is taken.
  TaskFeed(Db& main, std::vector<Need> needs, unsigned threads, bool reopen);
  ~TaskFeed();
  TaskFeed(const TaskFeed&) = delete;
  TaskFeed& operator=(const TaskFeed&) = delete;

  // The rows of operator `op` in table `pid` (empty when it has none),
  // waiting for the table if need be; valid until done(pid, op). A failing
  // table gives first_error().
  Result<const OpTasks*> take(u64 pid, i64 op);
  // The operator's rows are translated: free them (and the table's, after
  // its last wanted operator).
  void done(u64 pid, i64 op);
  // The first failing table by pid, after reading every table; ok if none.
  Status first_error();

  // Connections reading in parallel (0: all on `main`).
  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Slot {
    Need need;
    bool claimed = false;  // a thread reads it (or has read it)
    bool read = false;     // `rows` or `error` is set
    std::vector<OpTasks> rows;
    std::string error;
    std::size_t left = 0;  // wanted operators not yet done
  };
  void work(Db& db);
  void read_slot(Db& db, Slot& s);
  Slot* slot(u64 pid);

  Db& main_;
  std::vector<Slot> slots_;
  std::unordered_map<u64, std::size_t> at_;  // pid -> slot
  std::vector<std::unique_ptr<Db>> conns_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t next_ = 0;     // no unclaimed slot below this
  std::size_t horizon_ = 0;  // workers read slots below this
  std::size_t window_ = 0;
  bool stop_ = false;
};

}  // namespace cc::hcclvm
