// Editing a finalized trace: remove, change, insert and move tasks, then
// rebuild it. The mutations of `collcheck mutate` are written with it.
#pragma once

#include <map>
#include <vector>

#include "model/trace.h"

namespace cc::mutate {

class TraceEdit {
 public:
  explicit TraceEdit(const Trace& base);

  const Trace& base() const { return t_; }
  void remove(u32 task);
  // The task, to change its fields in place (type, peer, notify, op, stream).
  Task& task(u32 id) { return t_.tasks[id]; }
  // Slice `i` of the task's flattened slices (per group: sources, then the
  // destination), private to this task so that it can be changed.
  Slice& slice(u32 task, u32 i);
  void insert_before(u32 task, const Task& t) { before_[task].push_back(t); }
  void insert_after(u32 task, const Task& t) { after_[task].push_back(t); }
  // Appends at the end of its (rank, stream), possibly a new stream.
  void append(const Task& t) { appended_.push_back(t); }

  // The edited trace, finalized; explicit edges follow their tasks (edges of
  // removed tasks are dropped).
  Trace finish();

 private:
  Trace t_;
  std::vector<u8> removed_;
  std::vector<u8> own_slices_;
  std::map<u32, std::vector<Task>> before_, after_;
  std::vector<Task> appended_;
};

// Number of slices of a task (sources and destinations of every group).
u32 slice_count(const Trace& t, const Task& k);
// Index into Trace::slices of the task's i-th slice in that order.
u32 slice_index(const Trace& t, const Task& k, u32 i);
// Whether the i-th slice is a destination.
bool slice_is_dst(const Trace& t, const Task& k, u32 i);

}  // namespace cc::mutate
