#!/usr/bin/env python3
"""Writes the golden AIV cases (trace format version 2 with AIV data,
docs/AIV_FORMAT.md).

The worked examples of aiv.md §8 are built task by task as the spec prints
them (example 1 is the 2-rank AllGather that passes; examples 2 and 3 change
exactly one task of it); every other case is example 1 or a small kernel
changed in exactly one place so that it raises exactly one code or warning.
Each case carries its expectation. Run it from anywhere; it rewrites the
files in this directory. tests/aiv_examples_test.cc checks the nodes, edges
and messages of the three examples beyond the codes.
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

HEADER = {"format": "collcheck-trace", "version": 2,
          "op": {"type": "AllGather", "ranks": 2, "dataType": "INT32", "count": 64},
          "buffers": {"CCL": 4096}}
D = 0x100
BASE = 0x100000


def READY(x): return BASE + 0x80 * x
def DONE(x): return BASE + 0x80 * (2 + x)


def sl(buf, off, size): return {"bufferType": buf, "offset": off, "size": size}
INPUT, OUTPUT, CCL, UB, COMM = 0, 1, 2, 3, 4
S, MTE2, MTE3, ALL = 0, 1, 2, 3


def t(tt, tid, rank, pipe, payload, block=0):
    return {"taskType": tt, "taskId": tid, "rankId": rank, "blockId": block, "curPipe": pipe, "payload": payload}


def copy_(tid, r, pipe, src_rank, src, dst_rank, dst, block=0):
    return t(0, tid, r, pipe, {"srcRank": src_rank, "src": src, "dstRank": dst_rank, "dst": dst}, block)


def reduce_(tid, r, pipe, src_rank, src, dst_rank, dst, dt=2, op=0, block=0):
    return t(1, tid, r, pipe, {"srcRank": src_rank, "src": src, "dstRank": dst_rank, "dst": dst,
                               "dataType": dt, "reduceOp": op}, block)


def setf(tid, r, pipe, sp, dp, ev, block=0): return t(2, tid, r, pipe, {"srcPipe": sp, "dstPipe": dp, "eventId": ev}, block)
def waitf(tid, r, pipe, sp, dp, ev, block=0): return t(3, tid, r, pipe, {"srcPipe": sp, "dstPipe": dp, "eventId": ev}, block)
def send(tid, r, owner, off, v, block=0): return t(6, tid, r, S, {"rank": owner, "commInfoOffset": off, "flagValue": v}, block)
def recv(tid, r, owner, off, v, block=0): return t(7, tid, r, S, {"rank": owner, "commInfoOffset": off, "targetValue": v}, block)
def barrier(tid, r, pipe, ptype, group, block=0):
    return t(4, tid, r, pipe, {"pipeType": ptype, "barrierGroupTaskIds": group}, block)
def syncall(tid, r, pipe, rnd, block=0): return t(5, tid, r, pipe, {"syncRound": rnd}, block)


def snapshot(r, cores, **root):
    s = {"mode": "aiv", "rank": r, "launchIndex": 0, "rankSize": 2, "inputGlobalOffsetBase": 0,
         "outputGlobalOffsetBase": 0, "inBufferSize": D, "outBufferSize": 2 * D, "cclBufferSize": 4096,
         "aivCommInfoSize": 68157440, "ubBufferSize": 194560, "aivCores": cores}
    s.update(root)
    return s


def core(block, scalar, mte2, mte3):
    return {"blockIdx": block, "scalarTasks": scalar, "mte2Tasks": mte2, "mte3Tasks": mte3}


def example1(r):
    """aiv.md §8.1, the kernel of rank r."""
    p = 1 - r
    scalar = [
        waitf(6, r, S, MTE3, S, 0),
        send(7, r, p, READY(r), 1),
        recv(8, r, r, READY(p), 1),
        setf(9, r, S, S, MTE2, 1),
        waitf(16, r, S, MTE3, S, 1),
        send(17, r, p, DONE(r), 1),
        recv(18, r, r, DONE(p), 1),
    ]
    mte2 = [
        copy_(0, r, MTE2, r, sl(INPUT, 0, D), r, sl(UB, 0, D)),
        setf(1, r, MTE2, MTE2, MTE3, 0),
        waitf(10, r, MTE2, S, MTE2, 1),
        copy_(11, r, MTE2, p, sl(CCL, 0, D), r, sl(UB, D, D)),
        setf(12, r, MTE2, MTE2, MTE3, 1),
    ]
    mte3 = [
        waitf(2, r, MTE3, MTE2, MTE3, 0),
        copy_(3, r, MTE3, r, sl(UB, 0, D), r, sl(CCL, 0, D)),
        copy_(4, r, MTE3, r, sl(UB, 0, D), r, sl(OUTPUT, r * D, D)),
        setf(5, r, MTE3, MTE3, S, 0),
        waitf(13, r, MTE3, MTE2, MTE3, 1),
        copy_(14, r, MTE3, r, sl(UB, D, D), r, sl(OUTPUT, p * D, D)),
        setf(15, r, MTE3, MTE3, S, 1),
    ]
    return snapshot(r, [core(0, scalar, mte2, mte3)])


def lane(snap, name, block=0):
    return snap["aivCores"][block][name]


def write(name, expect, comment, snaps, header=HEADER, tasks=None, extra_lines=()):
    lines = [f"# expect: {expect}"]
    lines += [f"# {c}" for c in comment.strip().split("\n")]
    lines.append(json.dumps(header, separators=(",", ":")))
    for s in snaps:
        lines.append(json.dumps({"aiv": s}, separators=(",", ":")))
    if tasks is None:
        tasks = [{"rank": r, "stream": 0, "type": "AIV_GRAPH", "launch": 0} for r in range(header["op"]["ranks"])]
    for k in tasks:
        lines.append(json.dumps(k, separators=(",", ":")) if isinstance(k, dict) else k)
    lines += list(extra_lines)
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def ex1():
    return [example1(0), example1(1)]


def changed(fn):
    snaps = ex1()
    fn(snaps)
    return snaps


def main():
    for f in os.listdir(HERE):
        if f.endswith(".jsonl"):
            os.remove(os.path.join(HERE, f))

    # --- aiv.md §8 ---
    write("example1_pass.jsonl", "exit=0 codes= warnings=",
          "aiv.md 8.1: 2-rank AllGather, one block per rank, that passes (no 103 either).", ex1())

    def drop_t0(s): del lane(s[0], "mte3Tasks")[0]
    write("example2_missing_wait.jsonl", "exit=1 codes=103,302 warnings=",
          "aiv.md 8.2: rank 0's MTE3 lane lacks its WaitFlag MTE2->MTE3 #0 (taskId 2):\n"
          "two 302 on rank 0's UB [0x0,0x100) and a 103 warning; stage 5 finds the data right.",
          changed(drop_t0))

    def target2(s): lane(s[0], "scalarTasks")[2]["payload"]["targetValue"] = 2
    write("example3_recv_never.jsonl", "exit=1 codes=102,902 warnings=",
          "aiv.md 8.3: rank 0's RecvFlag (taskId 8) wants 2, which nobody writes: one 102 with\n"
          "four blocked heads and their wait-for chains; stages 4-5 skipped (902).",
          changed(target2))

    # --- format: version 1, exit 2 ---
    v1 = dict(HEADER, version=1)
    write("101_v1_aiv_graph.jsonl", "exit=1 codes=101,902",
          "An AIV_GRAPH task line in a version-1 trace is finding 101 (as CCU_GRAPH).", [], header=v1)
    write("exit2_aiv_line_v1.jsonl", 'exit=2 error="AIV snapshot lines need trace format version 2"',
          "An \"aiv\" line in a version-1 trace is an input error.", [example1(0)], header=v1, tasks=[])
    write("exit2_not_object.jsonl", 'exit=2 error="must be a snapshot object"',
          "The value of \"aiv\" must be an object.", [], extra_lines=['{"aiv":[1,2]}'])
    write("exit2_rank_missing.jsonl", 'exit=2 error="lacks \\"rank\\""',
          "A snapshot line without its rank.", [], extra_lines=['{"aiv":{"launchIndex":0,"aivCores":[]}}'])
    write("exit2_rank_outside.jsonl", 'exit=2 error="rank 2 is outside"',
          "A snapshot line of rank 2 in a 2-rank operator.", [],
          extra_lines=['{"aiv":{"rank":2,"launchIndex":0,"aivCores":[]}}'])
    write("exit2_launch_missing.jsonl", 'exit=2 error="lacks \\"launchIndex\\""',
          "A snapshot line without launchIndex.", [], extra_lines=['{"aiv":{"rank":0,"aivCores":[]}}'])
    write("exit2_launch_negative.jsonl", 'exit=2 error="launchIndex\\" must not be negative"',
          "A snapshot line whose launchIndex is negative.", [],
          extra_lines=['{"aiv":{"rank":0,"launchIndex":-1,"aivCores":[]}}'])
    write("exit2_duplicate_snapshot.jsonl", 'exit=2 error="a second snapshot of rank 0 launch 0"',
          "Two snapshot lines for the same (rank, launch).", [example1(0), example1(0)])
    write("exit2_reserved_buffer.jsonl", 'exit=2 error="buffer type AIV_UB is reserved"',
          "A trace with AIV data must not declare AIV_UB.", ex1(),
          header=dict(HEADER, buffers={"CCL": 4096, "AIV_UB": 1024}))
    write("exit2_reserved_task_slice.jsonl", 'exit=2 error="buffer type AIV_COMM is reserved"',
          "A host task of a trace with AIV data must not name AIV_COMM.", ex1(),
          tasks=[{"rank": 0, "stream": 0, "type": "AIV_GRAPH", "launch": 0},
                 {"rank": 1, "stream": 0, "type": "AIV_GRAPH", "launch": 0},
                 {"rank": 0, "stream": 1, "type": "TRANS_MEM", "src": {"rank": 0, "type": "INPUT", "offset": 0, "len": 4},
                  "dst": {"rank": 0, "type": "AIV_COMM", "offset": 0, "len": 4}}])
    write("exit2_launch_field.jsonl", 'exit=2 error="AIV_GRAPH lacks \\"launch\\""',
          "An AIV_GRAPH task line without its launch.", ex1(),
          tasks=[{"rank": 0, "stream": 0, "type": "AIV_GRAPH"}])

    # --- 102 ---
    def no_set(s): del lane(s[0], "mte2Tasks")[1]  # rank 0 m1 SetFlag MTE2->MTE3 #0
    write("102_event_never_set.jsonl", "exit=1 codes=102,902",
          "Rank 0's SetFlag MTE2->MTE3 #0 is deleted: its MTE3 lane waits forever.", changed(no_set))

    def barrier_cycle(s):
        # Rank 0: a PIPE_ALL barrier whose MTE2 member comes after a WaitFlag S->MTE2 that
        # is set only after the S member: the members can never all arrive.
        sc, m2, m3 = lane(s[0], "scalarTasks"), lane(s[0], "mte2Tasks"), lane(s[0], "mte3Tasks")
        sc.insert(0, barrier(100, 0, S, ALL, [101, 102]))
        sc.insert(1, setf(103, 0, S, S, MTE2, 7))
        m2.insert(0, waitf(104, 0, MTE2, S, MTE2, 7))
        m2.insert(1, barrier(101, 0, MTE2, ALL, [100, 102]))
        m3.insert(0, barrier(102, 0, MTE3, ALL, [100, 101]))
    write("102_barrier_cycle.jsonl", "exit=1 codes=102,902",
          "A PIPE_ALL barrier whose MTE2 member waits for an event the S lane sets only after\n"
          "its own member: the reference matches the event anyway (Q3); collcheck reports 102.",
          changed(barrier_cycle))

    def syncall_order(s):
        c0 = lane(s[0], "scalarTasks"), lane(s[0], "mte2Tasks"), lane(s[0], "mte3Tasks")
        c0[0].insert(0, syncall(100, 0, S, 0)); c0[0].insert(1, syncall(101, 0, S, 1))
        c0[1].insert(0, syncall(102, 0, MTE2, 1)); c0[1].insert(1, syncall(103, 0, MTE2, 0))
        c0[2].insert(0, syncall(104, 0, MTE3, 0)); c0[2].insert(1, syncall(105, 0, MTE3, 1))
    write("102_syncall_order.jsonl", "exit=1 codes=102,601,902",
          "SyncAll rounds 0 and 1 appear in different orders on two lanes of one block: 102,\n"
          "and the lanes alone make a cycle of the two SYNCALL nodes (601).",
          changed(syncall_order))

    def flag_overwritten(s):
        # Rank 1 sets READY(1) on rank 0 to 1 and straight back to 0: rank 0's wait sees
        # 1 only because the release is eager; a 602 says the order is missing.
        lane(s[1], "scalarTasks").insert(2, send(100, 1, 0, READY(1), 0))
    write("602_flag_overwritten.jsonl", "exit=1 codes=602",
          "Rank 1 resets rank 0's READY(1) cell right after setting it: rank 0's RecvFlag\n"
          "observes 1 (eager release), but nothing orders it before the reset (602).",
          changed(flag_overwritten))

    # --- 103 (warning) ---
    def extra_set(s): lane(s[0], "mte2Tasks").append(setf(100, 0, MTE2, MTE2, MTE3, 5))
    write("103_event_never_waited.jsonl", "exit=0 codes=103 warnings=",
          "A SetFlag MTE2->MTE3 #5 nobody waits for: 103 warning only.", changed(extra_set))

    # --- 104 ---
    def pipe_all_missing(s):
        lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, ALL, [101]))
        lane(s[0], "mte2Tasks").insert(0, barrier(101, 0, MTE2, ALL, [100]))
    write("104_pipe_all_missing_pipe.jsonl", "exit=1 codes=104",
          "A PIPE_ALL barrier with members on S and MTE2 only: 104 names MTE3.", changed(pipe_all_missing))

    def absent_member(s):
        lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, ALL, [101, 102, 555]))
        lane(s[0], "mte2Tasks").insert(0, barrier(101, 0, MTE2, ALL, [100, 102]))
        lane(s[0], "mte3Tasks").insert(0, barrier(102, 0, MTE3, ALL, [100, 101]))
    write("104_barrier_member_absent.jsonl", "exit=1 codes=104",
          "A barrier lists taskId 555, which the snapshot lacks.", changed(absent_member))

    def syncall_missing(s):
        lane(s[0], "scalarTasks").insert(0, syncall(100, 0, S, 0))
        lane(s[0], "mte2Tasks").insert(0, syncall(101, 0, MTE2, 0))
    write("104_syncall_missing.jsonl", "exit=1 codes=104",
          "SyncAll round 0 without a member on block 0's MTE3 lane.", changed(syncall_missing))

    # --- 105 (the launch becomes an empty kernel: 902; rank 1 then waits for flags rank 0
    # never sends: 102, with a note that a launch could not be expanded) ---
    def dup_id(s): lane(s[0], "mte2Tasks")[3]["taskId"] = 0
    write("105_duplicate_task_id.jsonl", "exit=1 codes=102,105,902", "Two tasks of rank 0 with taskId 0.", changed(dup_id))

    def dup_block(s): s[0]["aivCores"].append(core(0, [], [], []))
    write("105_duplicate_block.jsonl", "exit=1 codes=102,105,902", "Two cores with blockIdx 0.", changed(dup_block))

    def bad_rank_id(s): lane(s[0], "mte2Tasks")[0]["rankId"] = 1
    write("105_rank_id.jsonl", "exit=1 codes=102,105,902", "A task of rank 0's snapshot says rankId 1 (Q1).",
          changed(bad_rank_id))

    def bad_block_id(s): lane(s[0], "mte2Tasks")[0]["blockId"] = 3
    write("105_block_id.jsonl", "exit=1 codes=102,105,902", "A task says blockId 3 in the core of blockIdx 0.",
          changed(bad_block_id))

    def bad_pipe(s): lane(s[0], "mte2Tasks")[0]["curPipe"] = 2
    write("105_cur_pipe.jsonl", "exit=1 codes=102,105,902", "A task of the MTE2 list says curPipe 2.", changed(bad_pipe))

    def two_on_lane(s):
        lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, ALL, [101, 102, 103]))
        lane(s[0], "scalarTasks").insert(1, barrier(101, 0, S, ALL, [100]))
        lane(s[0], "mte2Tasks").insert(0, barrier(102, 0, MTE2, ALL, [100]))
        lane(s[0], "mte3Tasks").insert(0, barrier(103, 0, MTE3, ALL, [100]))
    write("105_barrier_two_on_lane.jsonl", "exit=1 codes=102,105,902", "A barrier group with two members on S.",
          changed(two_on_lane))

    def disagree(s):
        lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, ALL, [101, 102]))
        lane(s[0], "mte2Tasks").insert(0, barrier(101, 0, MTE2, MTE2, [100, 102]))
        lane(s[0], "mte3Tasks").insert(0, barrier(102, 0, MTE3, ALL, [100, 101]))
    write("105_barrier_pipe_type.jsonl", "exit=1 codes=102,105,902", "Barrier members that disagree on pipeType.",
          changed(disagree))

    def one_pipe_wrong_lane(s): lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, MTE3, []))
    write("105_one_pipe_wrong_lane.jsonl", "exit=1 codes=102,105,902", "A PIPE_MTE3 barrier on the S lane.",
          changed(one_pipe_wrong_lane))

    def one_pipe_two(s):
        lane(s[0], "mte3Tasks").insert(0, barrier(100, 0, MTE3, MTE3, [101]))
        lane(s[0], "mte2Tasks").insert(0, barrier(101, 0, MTE2, MTE3, []))
    write("105_one_pipe_two_members.jsonl", "exit=1 codes=102,105,902", "A one-pipe barrier with two members.",
          changed(one_pipe_two))

    def across_blocks(s):
        s[0]["aivCores"].append(core(1, [barrier(101, 0, S, S, [], block=1)], [], []))
        lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, S, [101]))
    write("105_barrier_across_blocks.jsonl", "exit=1 codes=102,105,902", "A barrier group across two blocks.",
          changed(across_blocks))

    def syncall_dup(s):
        for i, (name, pipe) in enumerate([("scalarTasks", S), ("mte2Tasks", MTE2), ("mte3Tasks", MTE3)]):
            lane(s[0], name).insert(0, syncall(100 + i, 0, pipe, 0))
        lane(s[0], "scalarTasks").insert(1, syncall(110, 0, S, 0))
    write("105_syncall_duplicate.jsonl", "exit=1 codes=102,105,902", "SyncAll round 0 twice on one lane.",
          changed(syncall_dup))

    write("105_duplicate_record.jsonl", "exit=1 codes=105,902",
          "Two AIV_GRAPH records of rank 0 name launch 0.", ex1(),
          tasks=[{"rank": 0, "stream": 0, "type": "AIV_GRAPH", "launch": 0},
                 {"rank": 0, "stream": 0, "type": "AIV_GRAPH", "launch": 0},
                 {"rank": 1, "stream": 0, "type": "AIV_GRAPH", "launch": 0}])

    # --- 106 ---
    write("106_rank_size.jsonl", "exit=1 codes=106", "A snapshot says rankSize 4 in a 2-rank operator.",
          changed(lambda s: s[0].update(rankSize=4)))
    write("106_ub_size.jsonl", "exit=1 codes=106", "The two snapshots disagree on ubBufferSize.",
          changed(lambda s: s[1].update(ubBufferSize=65536)))
    write("106_comm_size.jsonl", "exit=1 codes=106", "The two snapshots disagree on aivCommInfoSize.",
          changed(lambda s: s[1].update(aivCommInfoSize=2097152)))

    # --- 107 (empty kernel: 902) ---
    write("107_no_snapshot.jsonl", "exit=1 codes=102,107,902", "Rank 1's AIV_GRAPH has no \"aiv\" line.", [example1(0)])

    def missing_offset(s): del lane(s[0], "mte2Tasks")[3]["payload"]["src"]["offset"]
    write("107_missing_field.jsonl", "exit=1 codes=102,107,902",
          "aivCores[0].mte2Tasks[3].payload.src.offset is missing (the reference reads 0, Q7).",
          changed(missing_offset))

    def wrong_type(s): lane(s[0], "scalarTasks")[1]["payload"]["commInfoOffset"] = "0x100000"
    write("107_wrong_type.jsonl", "exit=1 codes=102,107,902", "commInfoOffset given as a string.", changed(wrong_type))

    def event_range(s): lane(s[0], "mte2Tasks")[1]["payload"]["eventId"] = 2147483648
    write("107_event_range.jsonl", "exit=1 codes=102,107,902", "eventId 2^31 does not fit in i32.", changed(event_range))

    def lane_not_array(s): s[0]["aivCores"][0]["mte3Tasks"] = {"x": 1}
    write("107_lane_not_array.jsonl", "exit=1 codes=102,107,902", "mte3Tasks is an object.", changed(lane_not_array))

    write("107_cores_missing.jsonl", "exit=1 codes=102,107,902", "A snapshot without aivCores.",
          changed(lambda s: s[0].pop("aivCores")))

    # --- 111 (empty kernel: 902) ---
    def unknown_type(s): lane(s[0], "mte2Tasks")[0]["taskType"] = 9
    write("111_task_type.jsonl", "exit=1 codes=102,111,902", "taskType 9 (the reference's loader says 107, Q8).",
          changed(unknown_type))

    def buffer_type(s): lane(s[0], "mte2Tasks")[0]["payload"]["src"]["bufferType"] = 7
    write("111_buffer_type.jsonl", "exit=1 codes=102,111,902", "A slice of bufferType 7.", changed(buffer_type))

    def same_pipes(s): lane(s[0], "mte2Tasks")[1]["payload"]["dstPipe"] = MTE2
    write("111_event_pipes.jsonl", "exit=1 codes=102,111,902", "A SetFlag from MTE2 to MTE2.", changed(same_pipes))

    def pipe_type(s): lane(s[0], "scalarTasks").insert(0, barrier(100, 0, S, 4, []))
    write("111_pipe_type.jsonl", "exit=1 codes=102,111,902", "A pipe barrier of pipeType 4.", changed(pipe_type))

    def reduce_op(s):
        lane(s[0], "mte3Tasks")[5] = reduce_(14, 0, MTE3, 0, sl(UB, D, D), 0, sl(OUTPUT, D, D), op=7)
    write("111_reduce_op.jsonl", "exit=1 codes=102,111,902", "A REDUCE with reduceOp 7.", changed(reduce_op))

    def data_type(s):
        lane(s[0], "mte3Tasks")[5] = reduce_(14, 0, MTE3, 0, sl(UB, D, D), 0, sl(OUTPUT, D, D), dt=255)
    write("111_data_type.jsonl", "exit=1 codes=102,111,902", "A REDUCE with dataType 255.", changed(data_type))

    # --- 201 / 202 ---
    def ub_past(s): lane(s[0], "mte2Tasks")[3]["payload"]["dst"]["offset"] = 194560 - 0x80
    write("201_ub_bound.jsonl", "exit=1 codes=201,404,406",
          "A UB slice that ends past ubBufferSize (the peer's data never reaches OUTPUT: 404, 406).",
          changed(ub_past))

    def ub_rank(s): lane(s[0], "mte2Tasks")[0]["payload"]["dstRank"] = 1
    write("201_ub_other_rank.jsonl", "exit=1 codes=201,902",
          "A UB slice naming rank 1 in rank 0's kernel. Stage 5 does not apply the rejected copy: what\n"
          "rank 0 stages through that UB slot is unknown, so its OUTPUT and the peer's are not judged (902).",
          changed(ub_rank))

    def comm_past(s):
        lane(s[0], "mte2Tasks").insert(0, copy_(100, 0, MTE2, 0, sl(COMM, 68157440 - 4, 8), 0, sl(UB, 0x1000, 8)))
    write("201_comm_bound.jsonl", "exit=1 codes=201",
          "A copy out of AIV_COMM past aivCommInfoSize. Stage 5 does not apply the rejected copy (no\n"
          "404 for reading the empty AIV_COMM): its UB destination holds unknown data nobody reads.",
          changed(comm_past))

    def flag_align(s):
        lane(s[0], "scalarTasks")[1]["payload"]["commInfoOffset"] = READY(0) + 4
        lane(s[1], "scalarTasks")[2]["payload"]["commInfoOffset"] = READY(0) + 4
    write("201_flag_alignment.jsonl", "exit=1 codes=201",
          "A flag cell whose commInfoOffset is not a multiple of 128.", changed(flag_align))

    def flag_bound(s):
        lane(s[0], "scalarTasks")[1]["payload"]["commInfoOffset"] = 68157440
        lane(s[1], "scalarTasks")[2]["payload"]["commInfoOffset"] = 68157440
    write("201_flag_bound.jsonl", "exit=1 codes=201",
          "A flag cell at aivCommInfoSize: its 4 bytes end past the buffer.", changed(flag_bound))

    def flag_owner(s): lane(s[0], "scalarTasks").insert(0, send(100, 0, 5, READY(0), 1))
    write("201_flag_owner.jsonl", "exit=1 codes=201", "A SendFlag to rank 5 of a 2-rank operator (Q15).",
          changed(flag_owner))

    def size_mismatch(s): lane(s[0], "mte2Tasks")[3]["payload"]["dst"]["size"] = 2 * D
    write("201_size_mismatch.jsonl", "exit=1 codes=201,902",
          "A copy whose src and dst sizes differ.", changed(size_mismatch))

    def reduce_multiple(s):
        lane(s[0], "mte3Tasks").append(reduce_(100, 0, MTE3, 0, sl(UB, 0, 6), 0, sl(OUTPUT, 0, 6)))
    write("201_reduce_multiple.jsonl", "exit=1 codes=201,902",
          "A REDUCE of INT32 over 6 bytes.", changed(reduce_multiple))

    def overlap(s):
        lane(s[0], "mte2Tasks").append(copy_(100, 0, MTE2, 0, sl(UB, 0x1000, 0x100), 0, sl(UB, 0x1080, 0x100)))
    write("202_ub_overlap.jsonl", "exit=1 codes=202,404",
          "A UB-to-UB copy whose source and destination overlap.", changed(overlap))

    # --- 302 ---
    def flag_clear(s):
        # Rank 0's MTE3 lane clears the flag area (a copy into AIV_COMM of rank 0) while
        # rank 1's SendFlag into READY(1) of rank 0 is unordered with it.
        lane(s[0], "mte3Tasks").insert(0, copy_(100, 0, MTE3, 0, sl(UB, 0x1000, 0x400), 0, sl(COMM, BASE, 0x400)))
    write("302_flag_vs_copy.jsonl", "exit=1 codes=302,404",
          "A copy that clears the flag area races with the peer's SendFlag into it (Q14);\n"
          "the copy's UB source was never written (404).", changed(flag_clear))

    def ccl_early(s):
        # Rank 0 announces READY before writing its CCL: rank 1 may read it too early.
        sc = lane(s[0], "scalarTasks")
        sc[0], sc[1] = sc[1], sc[0]
    write("302_ready_too_early.jsonl", "exit=1 codes=302",
          "Rank 0 sends READY before its MTE3 lane has written its CCL slot (in the simulated\n"
          "order the slot is written first, so stage 5 finds the data right).", changed(ccl_early))

    # --- 4xx ---
    def drop_peer_copy(s): del lane(s[0], "mte3Tasks")[5]
    write("406_missing_output.jsonl", "exit=1 codes=406",
          "Rank 0 never copies the peer's block from UB into OUTPUT.", changed(drop_peer_copy))

    def reduce_empty(s):
        lane(s[0], "mte3Tasks")[5] = reduce_(14, 0, MTE3, 0, sl(UB, D, D), 0, sl(OUTPUT, D, D))
    write("403_reduce_into_empty.jsonl", "exit=1 codes=401,403,409",
          "Rank 0 reduces the peer's block into an OUTPUT range that holds nothing.", changed(reduce_empty))

    # --- 602 ---
    def event_reuse(s):
        # Rank 0 reuses event MTE2->MTE3 #0 twice in a row without a wait in between:
        # the second set may be lost while the event is still raised.
        m2, m3 = lane(s[0], "mte2Tasks"), lane(s[0], "mte3Tasks")
        m2.insert(2, setf(100, 0, MTE2, MTE2, MTE3, 0))
        m3.insert(1, waitf(101, 0, MTE3, MTE2, MTE3, 0))
    write("602_event_reuse.jsonl", "exit=1 codes=602",
          "Two SetFlags of one event before either wait: the pairing depends on timing.", changed(event_reuse))

    def two_writers(s):
        # Both ranks write cell (0, 0x100400) first thing; nothing orders the two writes.
        lane(s[0], "scalarTasks").insert(0, send(100, 0, 0, BASE + 0x400, 5))
        lane(s[1], "scalarTasks").insert(0, send(100, 1, 0, BASE + 0x400, 6))
    write("602_two_unordered_writes.jsonl", "exit=1 codes=602",
          "Two ranks write one cell unordered.", changed(two_writers))

    def early_release(s):
        # Rank 0 writes 1, 0 and (after rank 1's Z) 1 again into rank 1's cell X. Rank 1's
        # RecvFlag X==1 comes after a WaitFlag released by its own MTE2 lane, which sends Z:
        # in the simulation it observes the second 1, but nothing orders the reset to 0
        # before the wait is armed, so the first 1 may release it.
        X, Z = BASE + 0x800, BASE + 0x880
        sc0 = lane(s[0], "scalarTasks")
        for i, k in enumerate([send(100, 0, 1, X, 1), send(101, 0, 1, X, 0), recv(102, 0, 0, Z, 1),
                               send(103, 0, 1, X, 1)]):
            sc0.insert(i, k)
        lane(s[1], "scalarTasks").insert(0, waitf(100, 1, S, MTE2, S, 3))
        lane(s[1], "scalarTasks").insert(1, recv(101, 1, 1, X, 1))
        lane(s[1], "mte2Tasks").insert(0, setf(102, 1, MTE2, MTE2, S, 3))
        lane(s[1], "mte2Tasks").insert(1, t(6, 103, 1, MTE2, {"rank": 0, "commInfoOffset": Z, "flagValue": 1}))
    write("602_released_early.jsonl", "exit=1 codes=602",
          "A RecvFlag that may be released by an earlier write of the same value.", changed(early_release))

    # --- warnings ---
    def event_lane(s):
        m2 = lane(s[0], "mte2Tasks")
        m2.append(setf(100, 0, MTE2, MTE3, S, 6))
        lane(s[0], "scalarTasks").append(waitf(101, 0, S, MTE3, S, 6))
    write("w_event_lane.jsonl", "exit=0 codes=0 warnings=AIV-W-EVENT-LANE",
          "A SetFlag MTE3->S placed on the MTE2 list.", changed(event_lane))

    def resent(s):
        lane(s[1], "scalarTasks").insert(2, send(100, 1, 0, READY(1), 1))
    write("w_flag_resent.jsonl", "exit=0 codes=0 warnings=AIV-W-FLAG-RESENT",
          "Rank 1 writes 1 into READY(1) twice in a row (ordered: same lane).", changed(resent))

    extra = example1(1)
    extra["launchIndex"] = 7
    write("w_unused_snapshot.jsonl", "exit=0 codes=0 warnings=AIV-W-UNUSED-SNAPSHOT",
          "A snapshot of rank 1 launch 7 that no AIV_GRAPH names.", ex1() + [extra])

    def no_size(s):
        for x in s:
            x.pop("ubBufferSize")
    write("w_no_size.jsonl", "exit=0 codes=0 warnings=AIV-W-NO-SIZE",
          "Snapshots without ubBufferSize: UB slices are not bound-checked.", changed(no_size))

    write("w_size_mismatch.jsonl", "exit=0 codes=0 warnings=AIV-W-SIZE-MISMATCH",
          "A snapshot whose inBufferSize disagrees with the operator (Q16).",
          changed(lambda s: s[0].update(inBufferSize=512)))

    # --- host around launches ---
    host_tasks = [
        {"rank": 0, "stream": 0, "type": "RECORD", "waitRank": 0, "notifyId": 1},
        {"rank": 0, "stream": 1, "type": "WAIT", "recordRank": 0, "notifyId": 1},
        {"rank": 0, "stream": 1, "type": "AIV_GRAPH", "launch": 0},
        {"rank": 0, "stream": 1, "type": "RECORD", "waitRank": 0, "notifyId": 2},
        {"rank": 0, "stream": 0, "type": "WAIT", "recordRank": 0, "notifyId": 2},
        {"rank": 1, "stream": 0, "type": "AIV_GRAPH", "launch": 0},
    ]
    write("pass_slave_stream_launch.jsonl", "exit=0 codes= warnings=",
          "Rank 0 launches its kernel on slave stream 1, which has no closing local RECORD\n"
          "shape problem since it holds an AIV_GRAPH (exempt from 203 as in HCCL).",
          ex1(), tasks=host_tasks)



if __name__ == "__main__":
    main()
