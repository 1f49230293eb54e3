#include "check/sync.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/describe.h"

namespace cc {

namespace {

// Successors of a task: next on its chain, its released WAIT, explicit edges.
template <typename F>
void for_each_successor(const Trace& t, const TaskGraph& g, u32 v, F&& f) {
  if (u32 next = g.stream_next(v); next != kNone) f(next);
  u32 p = g.partner[v];
  if (p != kNone && t.tasks[v].type == TaskType::RECORD) f(p);
  if (g.has_explicit_edges())
    for (u32 e = g.out_begin[v]; e < g.out_begin[v + 1]; ++e) f(g.out_to[e]);
}

}  // namespace

bool find_cycle(const Trace& t, const TaskGraph& g, std::vector<u32>& cycle) {
  // Iterative three-colour DFS; only needed when explicit edges exist, since
  // the simulation alone only ever pairs tasks in a topological order.
  u32 n = g.task_count;
  std::vector<u8> colour(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<u32> parent(n, kNone);
  std::vector<std::pair<u32, std::vector<u32>>> stack;
  for (u32 root = 0; root < n; ++root) {
    if (colour[root]) continue;
    stack.push_back({root, {}});
    colour[root] = 1;
    for_each_successor(t, g, root, [&](u32 w) { stack.back().second.push_back(w); });
    while (!stack.empty()) {
      auto& [v, succ] = stack.back();
      if (succ.empty()) {
        colour[v] = 2;
        stack.pop_back();
        continue;
      }
      u32 w = succ.back();
      succ.pop_back();
      if (colour[w] == 1) {
        cycle.clear();
        for (u32 x = v; x != w && x != kNone; x = parent[x]) cycle.push_back(x);
        cycle.push_back(w);
        std::reverse(cycle.begin(), cycle.end());
        return true;
      }
      if (colour[w] == 2) continue;
      colour[w] = 1;
      parent[w] = v;
      std::vector<u32> next;
      for_each_successor(t, g, w, [&](u32 x) { next.push_back(x); });
      stack.push_back({w, std::move(next)});
    }
  }
  return false;
}

namespace {

// Why two unserialised pairs of one key may be an artefact of the record
// rather than of the schedule (stlog.md §5.3): the record cannot tell
// whether the uses are of one notify.
enum class Inexact : u8 {
  No,
  Index,    // a generic Post(idx)/Wait(idx) among them: its notify index was dropped
  Streams,  // the id may stand for one notify per stream, and the key is used on several
};

// The distinct streams a key is posted on and waited on (sorted ids).
struct KeyStreams {
  std::vector<u32> posts, waits;
  bool several() const { return posts.size() > 1 || waits.size() > 1; }
};

KeyStreams key_streams(const Trace& t, const TaskGraph& g, u32 key) {
  KeyStreams ks;
  for (u32 i = g.key_begin[key]; i < g.key_begin[key + 1]; ++i) {
    const Task& k = t.tasks[g.key_tasks[i]];
    (k.type == TaskType::RECORD ? ks.posts : ks.waits).push_back(k.stream);
  }
  for (std::vector<u32>* v : {&ks.posts, &ks.waits}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return ks;
}

// An inexact id used on several streams of either rank may merge the
// notifies of several planes: then the simulation's FIFO pairing may cross
// planes, and the orders it derives from that key, and this one, may not
// exist as found. Posted and waited on one stream each, it is one notify.
Inexact inexact_pair(const Trace& t, const KeyStreams& ks, u32 r1, u32 w1, u32 r2, u32 w2) {
  for (u32 x : {r1, w1, r2, w2})
    if (t.tasks[x].flags & kTaskNotifyIndexLost) return Inexact::Index;
  if (t.notify_inexact(t.tasks[r1].notify()) && ks.several()) return Inexact::Streams;
  return Inexact::No;
}

// "rank0/s0, s1 and s2" (at most 8 named).
std::string stream_list(u32 rank, const std::vector<u32>& ids) {
  std::string out = fmt::format("rank{}/", rank);
  for (std::size_t i = 0; i < ids.size() && i < 8; ++i)
    out += fmt::format("{}s{}", i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ", ids[i]);
  if (ids.size() > 8) out += fmt::format(" and {} more", ids.size() - 8);
  return out;
}

// "0→1 #19 K(FIN,SDMA)": a notify with its key's name, if it has one.
std::string notify_text(const Trace& t, u32 task) {
  const Task& k = t.tasks[task];
  std::string_view key = t.notify_name(k.notify());
  return fmt::format("{}\u2192{} #{}{}{}", record_rank(k), wait_rank(k), k.notify(), key.empty() ? "" : " ", key);
}

std::string stream_text(const Task& k) { return fmt::format("rank{}/s{}", k.rank, k.stream); }

void add_pairs(const Trace& t, Finding& f, u32 r1, u32 w1, u32 r2, u32 w2) {
  f.details.push_back("First pair  : " + task_line(t, r1));
  f.details.push_back("              " + task_line(t, w1));
  f.details.push_back("Second pair : " + task_line(t, r2));
  f.details.push_back("              " + task_line(t, w2));
  f.tasks = {r1, w1, r2, w2};
}

// 602 for pairs whose notify is known to be one notify.
Finding conflict(const Trace& t, u32 r1, u32 w1, u32 r2, u32 w2) {
  std::string missing = fmt::format("Missing order: {} does not happen before {}", task_position(t, w1),
                                    task_position(t, r2));
  if (t.tasks[r1].stream != t.tasks[r2].stream) {
    Finding f = make_finding(
        602, StageTag::SyncCheck,
        fmt::format("Two uses of notify {} are not serialised: the pairing depends on timing.", notify_text(t, r1)));
    add_pairs(t, f, r1, w1, r2, w2);
    f.details.push_back(missing + "; the second RECORD may fire before the first WAIT has consumed the first signal.");
    return f;
  }
  // One stream posts the same notify twice: the second post may come
  // before the first is consumed.
  Finding f = make_finding(602, StageTag::SyncCheck,
                           fmt::format("Notify {} is posted twice on {} with nothing ordering the wait for the "
                                       "first post before the second: the second post can be lost.",
                                       notify_text(t, r1), stream_text(t.tasks[r1])));
  f.details.push_back("First post  : " + task_line(t, r1));
  f.details.push_back("Its wait    : " + task_line(t, w1));
  f.details.push_back("Second post : " + task_line(t, r2));
  f.details.push_back("Second wait : " + task_line(t, w2));
  f.details.push_back(missing + ".");
  f.details.push_back(
      "Why  : a hardware notify is a flag, not a counter. If the second post arrives before the first wait has "
      "consumed the first, the two leave a single signal: one post is lost, and a later wait blocks or passes "
      "before its data is ready.");
  f.details.push_back(
      "Fix  : put an acknowledgement between the two posts (the waiting rank posts back once its wait has run, and "
      "this stream waits for that before posting again), or otherwise order the first wait before the second post.");
  f.tasks = {r1, w1, r2, w2};
  return f;
}

// One warning per key whose unserialised pairs the record cannot judge:
// the first such pair, and how many more.
Finding ambiguity(const Trace& t, const KeyStreams& ks, Inexact why, u32 r1, u32 w1, u32 r2, u32 w2, u64 more) {
  Finding f = make_finding(0, StageTag::SyncCheck, "");
  f.tag = "STLOG-W-NOTIFY-AMBIGUOUS";
  if (why == Inexact::Streams)
    f.message = fmt::format(
        "Notify {} is used on several streams (posted on {}, waited for on {}) and two of its uses have no order "
        "between them; the record does not say whether these streams share one notify, so whether the pairing "
        "depends on timing is unknown.",
        notify_text(t, r1), stream_list(record_rank(t.tasks[r1]), ks.posts),
        stream_list(wait_rank(t.tasks[r1]), ks.waits));
  else
    f.message = fmt::format(
        "Notify {} has uses with no order between them, made by generic Post(idx)/Wait(idx) calls whose notify "
        "index the record drops; it does not say whether they use one notify, so the pairing may or may not depend "
        "on timing.",
        notify_text(t, r1));
  add_pairs(t, f, r1, w1, r2, w2);
  f.details.push_back(fmt::format("Missing order: {} does not happen before {}.", task_position(t, w1),
                                  task_position(t, r2)));
  if (more) f.details.push_back(fmt::format("And {} more such pair{} of this notify.", more, more == 1 ? "" : "s"));
  f.details.push_back(
      why == Inexact::Streams
          ? "What the dump lacks: which transport or plane a stream's notifies belong to. Executors that run several "
            "planes give each stream its own notifies, which a task dump prints alike; paired first-come "
            "first-served across planes, uses of different notifies may be taken for one and orders missed."
          : "What the dump lacks: the notify index of generic Post(idx)/Wait(idx) (tags POST/WAIT), which a task dump "
            "does not print; different indices print alike.");
  f.details.push_back(
      "For an exact answer, check the operator's HCCL VM database (hccl_vm_data.db), which records every notify id: "
      "if these uses share one notify there, a post can be lost (602).");
  return f;
}

}  // namespace

void check_sync(const Trace& t, const TaskGraph& g, Reachability& reach, FindingSink& out) {
  std::vector<u32> cycle;
  if (!g.complete && g.has_explicit_edges() && find_cycle(t, g, cycle)) {
    Finding f = make_finding(601, StageTag::SyncCheck,
                             fmt::format("The task graph has a cycle of {} tasks.", cycle.size()));
    std::string path;
    for (u32 v : cycle) path += task_position(t, v) + " \u2192 ";
    path += task_position(t, cycle.front());
    f.details.push_back("Cycle : " + path);
    f.tasks = cycle;
    out.add(std::move(f));
  }
  constexpr std::string_view kAmbiguous = "STLOG-W-NOTIFY-AMBIGUOUS";
  for (u32 key = 0; key < g.key_count; ++key) {
    u32 first = kNone;  // the first ambiguous pair of this key (index of its second WAIT)
    Inexact first_why = Inexact::No;
    u64 ambiguous = 0;
    KeyStreams ks;
    bool have_streams = false;
    for (u32 i = g.pair_begin[key] + 1; i < g.pair_begin[key + 1]; ++i) {
      u32 w1 = g.pairs[i - 1], w2 = g.pairs[i];
      u32 r1 = g.partner[w1], r2 = g.partner[w2];
      if (reach.happens_before(w1, r2)) continue;
      if (!have_streams && t.notify_inexact(t.tasks[r1].notify())) ks = key_streams(t, g, key), have_streams = true;
      if (Inexact why = inexact_pair(t, ks, r1, w1, r2, w2); why != Inexact::No) {
        if (ambiguous++ == 0) first = i, first_why = why;
        continue;
      }
      if (!out.wants(602)) {
        out.count(602, Severity::Error);
        continue;
      }
      out.add(conflict(t, r1, w1, r2, w2));
    }
    if (!ambiguous) continue;
    if (!out.wants(0, kAmbiguous)) {
      out.count(0, Severity::Warning, kAmbiguous);
      continue;
    }
    u32 w1 = g.pairs[first - 1], w2 = g.pairs[first];
    out.add(ambiguity(t, ks, first_why, g.partner[w1], w1, g.partner[w2], w2, ambiguous - 1));
  }
}

}  // namespace cc
