#include "io/hcclvm/db.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "io/aiv/lines.h"
#include "io/hcclvm/ccu.h"
#include "io/hcclvm/notify.h"
#include "io/hcclvm/op.h"
#include "io/hcclvm/task_feed.h"
#include "model/describe.h"

namespace cc {

namespace {

using namespace hcclvm;

class Importer {
 public:
  // `reopen`: the database is a file further connections may open.
  Importer(Db& db, const InputOptions& opt, bool reopen) : db_(db), opt_(opt), reopen_(reopen) {}

  Result<std::vector<LoadedCase>> run() {
    CC_TRY(db_.begin_read());
    auto rows = read_rows(db_);
    if (!rows) return rows.error();
    rows_ = std::move(rows.value());
    if (rows_.ops.empty()) return Error{place_error(db_.file(), "opDetails", kNoRow, "", "no operator is recorded")};
    std::vector<OpGroup> groups = form_groups(rows_);
    std::vector<const OpGroup*> selected;
    for (const OpGroup& g : groups)
      if (opt_.case_glob.empty() || glob_match(opt_.case_glob, g.name()) ||
          glob_match(opt_.case_glob, db_.file() + "#" + g.name()))
        selected.push_back(&g);
    start_feed(selected);
    std::vector<LoadedCase> cases;
    for (const OpGroup* g : selected) {
      Result<ReadTrace> r = g->synced ? group_case(*g) : never_synced(*g);
      if (!r) {
        // A failing task table is reported before anything else (the first
        // by pid), whatever the order the tables were read in.
        Status tables = feed_->first_error();
        return tables ? r.error() : tables.error();
      }
      cases.push_back({db_.file() + "#" + g->name(), std::move(r.value())});
    }
    return cases;
  }

 private:
  // One scan per task table, for the operators of all selected groups,
  // tables in the order the groups' members take them.
  void start_feed(const std::vector<const OpGroup*>& selected) {
    std::vector<TaskFeed::Need> needs;
    std::unordered_map<u64, std::size_t> at;
    for (const OpGroup* g : selected)
      if (g->synced)
        for (const OpRow* m : g->members) {
          if (!db_.has_table(task_table(m->pid))) {
            missing_.insert(m->pid);
            continue;
          }
          auto [it, added] = at.emplace(m->pid, needs.size());
          if (added) needs.push_back({m->pid, {}});
          needs[it->second].ops.push_back(m->id);
        }
    for (TaskFeed::Need& n : needs) {
      std::sort(n.ops.begin(), n.ops.end());
      n.ops.erase(std::unique(n.ops.begin(), n.ops.end()), n.ops.end());
    }
    // A second connection to a database in WAL mode could see a later
    // snapshot than this one: such a database is read on one connection.
    bool parallel = reopen_ && opt_.threads > 1 && !db_.wal_mode();
    if (reopen_) {
      // Room for each case's tasks before any is appended (a hint: see
      // task_row_bounds): no copy of a growing vector of 10^7 tasks.
      bounds_ = task_row_bounds(db_);
      for (const OpRow& r : rows_.ops) ++ops_of_pid_[r.pid];
    }
    feed_ = std::make_unique<TaskFeed>(db_, std::move(needs), parallel ? opt_.threads : 1, parallel);
  }

  // At most the rows the members' task tables can hold, shared among the
  // operators of each pid; capped by the file's size (a task row takes at
  // least its 155-byte blob).
  std::size_t task_hint(const OpGroup& g) const {
    if (bounds_.empty()) return 0;
    std::error_code ec;
    u64 cap = std::filesystem::file_size(db_.file(), ec) / kTaskMetaBytes;
    if (ec) return 0;
    u64 sum = 0;
    for (const OpRow* m : g.members) {
      auto b = bounds_.find(task_table(m->pid));
      auto k = ops_of_pid_.find(m->pid);
      if (b != bounds_.end() && k != ops_of_pid_.end()) sum += std::min(b->second, cap) / k->second;
      if (sum >= cap) return static_cast<std::size_t>(cap);
    }
    return static_cast<std::size_t>(sum);
  }

  Result<ReadTrace> never_synced(const OpGroup& g) {
    ReadTrace rt;
    Trace& t = rt.trace;
    t.file = db_.file();
    t.name = g.name();
    t.unchecked = true;
    u32 n = g.members.front()->rank_size;
    t.op.ranks = n <= kMaxRanks ? n : 0;
    std::string why = rows_.synced ? fmt::format("its window {} comes after the last synchronised window {} (the "
                                                 "highest syncIter in syncRecords)",
                                                 g.window, rows_.max_sync_iter)
                                   : std::string("syncRecords is empty, no stream was ever synchronised");
    Finding f = import_warning("HCCLVM-W-NEVER-SYNCED",
                               fmt::format("Op group {} was never synchronised: {}. HCCL's checker does not check it, "
                                           "and neither does collcheck: not checked.",
                                           g.name(), why));
    std::string members;
    for (std::size_t i = 0; i < g.members.size() && i < 16; ++i)
      members += (i ? ", " : "") + member_name(*g.members[i]);
    f.details.push_back("Rows : " + members + (g.members.size() > 16 ? ", …" : ""));
    rt.findings.push_back(std::move(f));
    (void)finalize_trace(t);  // no tasks: no size can overflow
    return rt;
  }

  Result<ReadTrace> group_case(const OpGroup& g) {
    ReadTrace rt;
    Trace& t = rt.trace;
    t.file = db_.file();
    auto op = assemble_op(db_, g);
    if (!op) return op.error();
    t.op = std::move(op.value().op);
    t.name = fmt::format("{} {}", g.name(), name(t.op.type));
    rt.findings = std::move(op.value().findings);
    if (op.value().refused) {
      t.unchecked = true;
      (void)finalize_trace(t);  // no tasks; implied sizes of a refused operator do not matter
      return rt;
    }
    Blocks blocks;
    for (const OpRow* m : g.members) {
      auto it = rows_.mem.find(m->id);
      if (it == rows_.mem.end())
        return Error{place_error(db_.file(), "opMemInfo", kNoRow, "opDetailId",
                                 fmt::format("no row for {} (op group {})", member_name(*m), g.name()))};
      blocks.add(m->rank, it->second);
    }
    t.op.in_place = in_place_allowed(t.op.type) && blocks_in_place(blocks, t.op.type);
    declare_sizes(t, blocks);
    ImportOptions io{opt_.keep_stream_ids, opt_.recorded_peers};
    TaskTranslator tr(t, blocks, rt.findings, io);
    tr.reserve(task_hint(g));
    for (const OpRow* m : g.members) {
      if (missing_.count(m->pid) && g.members.size() > 1)
        return Error{place_error(db_.file(), task_table(m->pid), kNoRow, "",
                                 fmt::format("no such table, but {} belongs to op group {} of {} members", member_name(*m),
                                             g.name(), g.members.size()))};
      auto rows = feed_->take(m->pid, m->id);
      if (!rows) return rows.error();
      tr.member(*m, *rows.value());
      feed_->done(m->pid, m->id);  // translated: the rows are not needed again
    }
    infer_peers(t, tr.take_syncs(), opt_.recorded_peers, std::max(1u, opt_.threads), rt.findings);
    CC_TRY(fill_ccu(db_, ccu_, g, blocks, t, rt.findings));
    if (!t.aiv.records.empty())  // AIV_GRAPH records: their snapshots beside the database (aiv.md §2.2)
      aiv_io::attach_snapshot_files(
          t, opt_.aiv_dir.empty() ? std::filesystem::path(db_.file()).parent_path().string() : opt_.aiv_dir,
          rt.findings);
    // A lone rank of a one-rank communicator that issued no task counts
    // as a success (§4 step 5).
    if (g.members.size() == 1 && t.op.ranks == 1 && t.tasks.empty()) t.unchecked = true;
    std::vector<u32> new_id;
    Status finalized = finalize_trace(t, &new_id);
    for (Finding& f : rt.findings) {
      for (u32& task : f.tasks) task = new_id[task];
      // Where the record sits, now that positions are final.
      if (f.code != 0 && f.tasks.size() == 1) f.details.insert(f.details.begin(), "Task : " + task_line(t, f.tasks[0]));
    }
    if (!finalized) {
      rt.findings.push_back(import_error(405, fmt::format("Op group {}: the {} parameters cannot be checked: {}.",
                                                          g.name(), name(t.op.type), finalized.message())));
      t.unchecked = true;
    }
    return rt;
  }

  // Each member's blocks are its buffer sizes: a slice past the end of its
  // block is 201 in stage 2 (§9). OUTPUT of an in-place operator is INPUT.
  static void declare_sizes(Trace& t, const Blocks& blocks) {
    t.buffers.intern("CCL");
    for (const auto& [rank, rb] : blocks.all())
      for (u32 b = 0; b < kBlockTypes; ++b) {
        u64 size = t.op.in_place && b == kOutput ? rb[kInput].size : rb[b].size;
        t.sizes.per_rank[(u64{rank} << 16) | b] = size;
      }
  }

  Db& db_;
  const InputOptions& opt_;
  bool reopen_;
  DbRows rows_;
  std::unique_ptr<TaskFeed> feed_;
  std::unordered_map<std::string, u64> bounds_;  // task_row_bounds
  std::unordered_map<u64, u64> ops_of_pid_;      // opDetails rows per pid
  std::set<u64> missing_;  // pids without a task table
  CcuTables ccu_;
};

}  // namespace

Result<std::vector<LoadedCase>> read_hcclvm_db(const std::string& path, const InputOptions& options) {
  auto db = Db::open(path);
  if (!db) return db.error();
  return Importer(db.value(), options, true).run();
}

Result<std::vector<LoadedCase>> read_hcclvm_handle(sqlite3* handle, const std::string& display,
                                                   const InputOptions& options) {
  Db db(handle, display);
  return Importer(db, options, false).run();
}

}  // namespace cc
