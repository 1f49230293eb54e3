#!/usr/bin/env python3
"""Writes the golden HCCL ST-framework logs of this directory (stlog.md).

Each log is a gtest run as the ST binary prints it: gtest lines, fixture
chatter, the checker's task dumps, its log and timing lines. Expectations go
to LOG.expect sidecars (a log has no comment syntax), operator parameters to
LOG.op.json / CASE.op.json sidecars or to --op files. Rerun after a change:
    python3 tests/cases/stlog/make_stlog.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- task text


def ds(buf, off, size):
    return f"DataSlice[BufferType::{buf}, offset={off}, size={size}]"


LINK = "link=link prototyp=LinkProtoStub::{}"


def copy(src, dst):
    return f"LocalCopy[srcSlice={src}, dstSlice={dst}]"


def lreduce(src, dst, dt=4, op=0):
    return f"LocalReduce[dataType={dt}, reduceOp={op}, srcSlice={src}, dstSlice={dst}]"


def lbatch(srcs, dst, dt=4, op=0):
    return f"LocalBatchReduce[dataType={dt}, reduceOp={op}, srcSlice=[{','.join(srcs)}], dstSlice={dst}]"


def lpost(topic):
    return f"LocalPostTo[topicId={topic}]"


def lwait(topic):
    return f"LocalWaitFrom[topicId={topic}]"


def post(remote, ntype="READY", link="SDMA", tag="TXACK"):
    return f"Post[remoteRank={remote}, {LINK.format(link)}, notifyType=NotifyTypeStub::{ntype}, originated tag={tag}]"


def wait(remote, ntype="READY", link="SDMA", tag="RXACK"):
    return f"Wait[remoteRank={remote}, {LINK.format(link)}, notifyType=NotifyTypeStub::{ntype}, originated tag={tag}]"


def post_ccu(remote, topic, link="CCU", tag="POST"):
    return f"Post[remoteRank={remote}, {LINK.format(link)}, topicId={topic}, originated tag={tag}]"


def wait_ccu(remote, topic, link="CCU", tag="WAIT"):
    return f"Wait[remoteRank={remote}, {LINK.format(link)}, topicId={topic}, originated tag={tag}]"


def read(remote, local, rem, link="SDMA"):
    return f"Read[remoteRank={remote}, {LINK.format(link)}, localSlice={local}, remoteSlice={rem}]"


def write(remote, local, rem, link="SDMA"):
    return f"Write[remoteRank={remote}, {LINK.format(link)}, localSlice={local}, remoteSlice={rem}]"


def read_reduce(remote, local, rem, dt=4, op=0, link="SDMA"):
    return (f"ReadReduce[remoteRank={remote}, {LINK.format(link)}, dataType={dt}, reduceOp={op}, "
            f"localSlice={local}, remoteSlice={rem}]")


def write_reduce(remote, local, rem, dt=4, op=0, link="SDMA"):
    return (f"WriteReduce[remoteRank={remote}, {LINK.format(link)}, dataType={dt}, reduceOp={op}, "
            f"localSlice={local}, remoteSlice={rem}]")


# ---------------------------------------------------------------- log text

TS = "[2026-04-07 10:3 :05.123456]"


def log(level, msg):
    return f"{TS}[pid:4242][{level}][checker.cc:88] [4242]{msg}"


def dump(ranks):
    """ranks: list (rank) of list (queue) of task strings."""
    out = []
    for r, queues in enumerate(ranks):
        out += ["=" * 55, f"rank id is {r}"]
        for q, tasks in enumerate(queues):
            out += ["-" * 55, f"stream/queue id is {q}"]
            out += [f"[rankId:{r}, queueId:{q}, index:{i}] {t}" for i, t in enumerate(tasks)]
    return out


def test(name, dumps, ok=True, after=()):
    out = [f"[ RUN      ] {name}", f"{TS}[pid:4242][INFO][algo.cc:12] [4242]start {name}"]
    for d in dumps:
        out += dump(d)
        out += ["Cost time: 0.12 ms"]
    out += list(after)
    out.append(f"[       OK ] {name} (3 ms)" if ok else f"[  FAILED  ] {name} (3 ms)")
    return out


def write_file(name, lines):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_json_lines(name, objs):
    with open(os.path.join(HERE, name), "w") as f:
        for o in objs:
            f.write(json.dumps(o, separators=(",", ":")) + "\n")


# ---------------------------------------------------------------- operators

D = 256  # bytes per rank: 64 FP32 elements


def allgather2():
    """stlog.md §8: rank 0 copies locally, rank 1 pushes and pulls."""
    r0 = [[copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)),
           post(1, "READY", tag="TXACK"),
           wait(1, "FIN", tag="RXDATASIGNAL")]]
    r1 = [[lpost(5),
           wait(0, "READY", tag="RXACK"),
           write(0, ds("INPUT", 0, D), ds("OUTPUT", D, D)),
           read(0, ds("OUTPUT", 0, D), ds("INPUT", 0, D)),
           post(0, "FIN", tag="TXDATASIGNAL"),
           lwait(6)],
          [lwait(5),
           copy(ds("INPUT", 0, D), ds("OUTPUT", D, D)),
           lpost(6)]]
    return [r0, r1]


AG2 = {"type": "AllGather", "ranks": 2, "dataType": "FP32", "count": 64}
AR2 = {"type": "AllReduce", "ranks": 2, "dataType": "FP32", "count": 64, "reduceOp": "SUM"}
AR3 = {"type": "AllReduce", "ranks": 3, "dataType": "FP32", "count": 64, "reduceOp": "SUM"}


def allreduce2_read_reduce():
    """Each rank copies its input, then pulls and adds the peer's (RDMA link)."""
    ranks = []
    for r in range(2):
        p = 1 - r
        ranks.append([[copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)),
                       post(p, "READY", "RDMA"), wait(p, "READY", "RDMA"),
                       read_reduce(p, ds("OUTPUT", 0, D), ds("INPUT", 0, D), link="RDMA"),
                       post(p, "FIN", "RDMA", "TXDONE"), wait(p, "FIN", "RDMA", "RXDONE")]])
    return ranks


def allreduce2_write_reduce():
    """Each rank adds its input into the peer's output; CCU-form notifies for the end."""
    ranks = []
    for r in range(2):
        p = 1 - r
        ranks.append([[copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)),
                       post(p), wait(p),
                       write_reduce(p, ds("INPUT", 0, D), ds("OUTPUT", 0, D)),
                       post_ccu(p, 3), wait_ccu(p, 3)]])
    return ranks


def allreduce3_batch():
    """Three ranks: pull both peers into SCRATCH, then one batch reduce.
    Rank 0 also posts and waits a local topic on one queue (allowed)."""
    ranks = []
    for r in range(3):
        peers = [p for p in range(3) if p != r]
        q = [copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D))]
        for p in peers:
            q.append(post(p))
        for p in peers:
            q.append(wait(p))
        for i, p in enumerate(peers):
            q.append(read(p, ds("SCRATCH", i * D, D), ds("INPUT", 0, D)))
        q.append(lbatch([ds("SCRATCH", 0, D), ds("SCRATCH", D, D)], ds("OUTPUT", 0, D)))
        for p in peers:
            q.append(post(p, "FIN_ACK", tag="POSTFINACK"))
        for p in peers:
            q.append(wait(p, "FIN_ACK", tag="WAITFINACK"))
        if r == 0:
            q += [lpost(9), lwait(9)]
        ranks.append([q])
    return ranks


def allreduce2_local_reduce():
    """Rank-local reduce of a staged copy: pull the peer into OUTPUT_CCL, add locally."""
    ranks = []
    for r in range(2):
        p = 1 - r
        ranks.append([[copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)),
                       post(p), wait(p),
                       read(p, ds("OUTPUT_CCL", 0, D), ds("INPUT", 0, D)),
                       lreduce(ds("OUTPUT_CCL", 0, D), ds("OUTPUT", 0, D)),
                       post(p, "FIN"), wait(p, "FIN")]])
    return ranks


def replace(ranks, r, q, i, task):
    out = [[list(qq) for qq in rr] for rr in ranks]
    out[r][q][i] = task
    return out


def delete(ranks, r, q, i):
    out = [[list(qq) for qq in rr] for rr in ranks]
    del out[r][q][i]
    return out


def ambiguous_local():
    """Two slave queues of rank 0 post the same topic; the main queue waits it twice (602)."""
    r0 = [[lpost(1), lpost(2), lwait(7), lwait(7)],
          [lwait(1), lpost(7)],
          [lwait(2), lpost(7)]]
    return [r0]


# ---------------------------------------------------------------- the suite


def suite():
    ag = allgather2()
    cases = []  # (test name, dumps, expected per dump: (verdict, codes), ok)
    cases.append(("StDemo.allgather_pass", [ag], [("PASS", [])]))
    cases.append(("StDemo.allreduce_read_reduce_rdma", [allreduce2_read_reduce()], [("PASS", [])]))
    cases.append(("StDemo.allreduce_write_reduce_ccu_form", [allreduce2_write_reduce()], [("PASS", [])]))
    cases.append(("StDemo.allreduce_batch_reduce_3rank", [allreduce3_batch()], [("PASS", [])]))
    cases.append(("StDemo.allreduce_local_reduce", [allreduce2_local_reduce()], [("PASS", [])]))
    # §8, second mutation: queue 1 of rank 1 and the Read both write OUTPUT
    # [0,256). Checked without parameters (902), so that the semantic stage's
    # "second half missing" stays out of this case.
    race = replace(ag, 1, 1, 1, copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)))
    cases.append(("StDemo.race_302", [race], [("FAIL", [302, 902])]))
    # §8, first mutation: queue 1 of rank 1 no longer ends with LocalPostTo.
    cases.append(("StDemo.slave_stream_203", [delete(ag, 1, 1, 2)], [("FAIL", [102, 203, 902])]))
    # Rank 0 waits for FIN over RDMA; rank 1 posts it over SDMA: different keys.
    cases.append(("StDemo.link_mismatch_102_103",
                  [replace(ag, 0, 0, 2, wait(1, "FIN", "RDMA"))], [("FAIL", [102, 103, 902])]))
    # A post nobody waits for.
    extra = [[list(q) for q in r] for r in ag]
    extra[0][0].append(post(1, "FIN_ACK"))
    cases.append(("StDemo.unmatched_103", [extra], [("FAIL", [103])]))
    # Rank 1 also writes past the end of rank 0's OUTPUT (512 bytes); rank 0's
    # local copy has a destination shorter than its source (no parameters:
    # sizes differ no matter what the buffers are).
    past = [[list(q) for q in r] for r in ag]
    past[1][0].insert(3, write(0, ds("INPUT", 0, D), ds("OUTPUT", 2 * D, D)))
    cases.append(("StDemo.slice_past_end_201", [past], [("FAIL", [201])]))
    cases.append(("StDemo.size_mismatch_201",
                  [replace(ag, 0, 0, 0, copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D // 2)))],
                  [("FAIL", [201, 902])]))
    cases.append(("StDemo.unknown_kind_101",
                  [replace(ag, 0, 0, 0, "Frobnicate[srcSlice=" + ds("INPUT", 0, D) + "]")],
                  [("FAIL", [101, 902])]))
    cases.append(("StDemo.revamp_kind_111",
                  [replace(ag, 1, 1, 1, "BeingRead[remoteRank=0, localSlice=" + ds("INPUT", 0, D) + "]")],
                  [("FAIL", [111, 902])]))
    aiv = [[list(q) for q in r] for r in ag]
    aiv[0][0].insert(0, "AivTaskStub[rankId=0, aivStart=(nil), rankPos=0, mainStreamPos = 0]")
    cases.append(("StDemo.aiv_launch_111", [aiv], [("FAIL", [111])]))
    cases.append(("StDemo.ambiguous_local_602", [ambiguous_local()], [("FAIL", [602, 902])]))
    # One test, two Check() calls: cases StDemo.two_checks#0 and #1.
    cases.append(("StDemo.two_checks", [ag, extra], [("PASS", []), ("FAIL", [103])]))
    # A parameterized test: its CASE sidecar overrides the log's sidecar.
    cases.append(("AllGatherSuite/StParam.ring/0", [ag], [("PASS", [])]))
    # Semantic failures (stage 5): rank 1 pushes its block onto rank 0's own
    # slot; rank 1 copies the peer's input over its own instead of adding it;
    # rank 0 reduces into an OUTPUT nothing filled yet.
    cases.append(("StDemo.wrong_slot_406_407",
                  [replace(ag, 1, 0, 2, write(0, ds("INPUT", 0, D), ds("OUTPUT", 0, D)))],
                  [("FAIL", [406, 407])]))
    arr = allreduce2_read_reduce()
    cases.append(("StDemo.copy_not_reduce_409",
                  [replace(arr, 1, 0, 3, read(0, ds("OUTPUT", 0, D), ds("INPUT", 0, D), "RDMA"))],
                  [("FAIL", [409])]))
    alr = allreduce2_local_reduce()
    cases.append(("StDemo.reduce_into_empty_401_403_409", [delete(alr, 0, 0, 0)], [("FAIL", [401, 403, 409])]))
    # No parameters anywhere: the semantic stage is skipped, bounds inferred.
    cases.append(("StDemo.no_parameters", [ag], [("PASS", [902])]))

    lines = ["[==========] Running 19 tests from 2 test suites.",
             "[----------] Global test environment set-up.",
             "[ RUN      ] StDemo.no_dump_printed",
             "some fixture chatter",
             "[       OK ] StDemo.no_dump_printed (0 ms)"]
    expect = []
    params = []
    failed = []
    for name, dumps, verdicts in cases:
        after = []
        ok = True
        if any(v == "FAIL" for v, _ in verdicts):
            # What the reference checker prints after a failing Check().
            after = [log("ERROR", "[TaskGraphGenerator] deadLocking occurs due to mismatch of inter-rank Post/Wait."),
                     log("ERROR", "[TaskGraphGenerator] unmatched task locates in: [rankId:0, queueId:0, index:2]"),
                     log("ERROR", "[CheckerRun]call trace: hcclRet -> 4")]
            ok = name != "StDemo.race_302"  # some tests do not assert the result
            if not ok:
                failed.append(name)
        lines += test(name, dumps, ok, after)
        for i, (verdict, codes) in enumerate(verdicts):
            case = name if len(dumps) == 1 else f"{name}#{i}"
            expect.append(f"case: {case} verdict={verdict} codes={','.join(map(str, codes))}")
        op = {"AllGather": AG2}
        if name.startswith("StDemo.allreduce_batch"):
            params.append({"test": name, "op": AR3, "buffers": {"SCRATCH": 2 * D}})
        elif name == "StDemo.copy_not_reduce_409":
            params.append({"test": name, "op": AR2})
        elif name == "StDemo.reduce_into_empty_401_403_409":
            params.append({"test": name, "op": AR2, "buffers": {"OUTPUT_CCL": D}})
        elif name.startswith("StDemo.allreduce_local"):
            params.append({"test": name, "dump": 0, "op": AR2, "buffers": {"OUTPUT_CCL": D}})
        elif name.startswith("StDemo.allreduce"):
            params.append({"test": name, "op": AR2})
        elif name == "StDemo.two_checks":
            params.append({"test": name, "dump": 0, "op": AG2})
            params.append({"test": name, "dump": 1, "op": AG2})
        elif name.startswith("AllGatherSuite"):
            # Wrong on purpose: the CASE sidecar must win.
            params.append({"test": name, "op": dict(AG2, ranks=3)})
        elif name not in ("StDemo.no_parameters", "StDemo.ambiguous_local_602", "StDemo.race_302",
                          "StDemo.size_mismatch_201"):
            params.append({"test": name, "op": op["AllGather"]})
    lines += ["[----------] Global test environment tear-down",
              "[==========] 19 tests from 2 test suites ran. (57 ms total)",
              "[  PASSED  ] 18 tests."]
    lines += [f"[  FAILED  ] {n}" for n in failed]
    write_file("suite.log", lines)
    write_json_lines("suite.op.json", params)
    write_json_lines("AllGatherSuite_StParam.ring_0.op.json", [AG2])
    codes = sorted({c for line in expect for c in map(int, filter(None, line.split("codes=")[1].split(",")))})
    with open(os.path.join(HERE, "suite.log.expect"), "w") as f:
        f.write(f"expect: exit=1 codes={','.join(map(str, codes))}\n")
        f.write("\n".join(expect) + "\n")


def with_op():
    """The §8 example checked with --op (an op object given inline) and a
    log whose dumps come before any gtest line."""
    write_file("with_op.log", test("CollcheckDemo.allgather_2rank_fp32", [allgather2()]))
    with open(os.path.join(HERE, "with_op.log.expect"), "w") as f:
        f.write("expect: exit=0 codes= args=--op '" + json.dumps(AG2, separators=(",", ":")) + "'\n")
        f.write("case: CollcheckDemo.allgather_2rank_fp32 verdict=PASS codes=\n")
    write_file("op_file.log", test("CollcheckDemo.allreduce", [allreduce2_read_reduce(), allreduce2_write_reduce()]))
    write_json_lines("op_file.params.json", [{"test": "CollcheckDemo.allreduce", "op": AR2}])
    with open(os.path.join(HERE, "op_file.log.expect"), "w") as f:
        f.write("expect: exit=0 codes= args=--op {dir}/op_file.params.json\n")
        f.write("case: CollcheckDemo.allreduce#0 verdict=PASS codes=\n")
        f.write("case: CollcheckDemo.allreduce#1 verdict=PASS codes=\n")
    write_file("bare_dump.log", ["some output before the dump"] + dump(allgather2()))
    with open(os.path.join(HERE, "bare_dump.log.expect"), "w") as f:
        f.write("expect: exit=0 codes=902\n")
        f.write("case: dump verdict=PASS codes=902\n")


def malformed():
    """Unusable logs: exit 2 with FILE:LINE and what is wrong."""
    os.makedirs(os.path.join(HERE, "bad"), exist_ok=True)
    ag = allgather2()
    base = test("StBad.case", [ag])
    # Line numbers below count from 1: line 1 is RUN, 2 the INFO line, 3 the
    # rank separator, 4 "rank id is 0", 5 the queue separator, 6 the queue
    # header, 7 the first task.
    bad = {}

    def edit(name, idx, text, error):
        lines = list(base)
        if text is None:
            del lines[idx]
        else:
            lines[idx] = text
        bad[name] = (lines, f"{name}.log:{idx + 1}: {error}")

    edit("m_index_gap", 7, base[7].replace("index:1]", "index:2]"), "index 2 where index 1 was expected")
    edit("m_rank_order", 10, "rank id is 2", "\\\"rank id is 2\\\" where rank id 1 was expected")
    edit("m_queue_order", 5, "stream/queue id is 1", "\\\"stream/queue id is 1\\\" where queue id 0 was expected")
    edit("m_negative_rank", 6, base[6].replace("[rankId:0,", "[rankId:-1,"), "rankId is negative")
    edit("m_negative_topic", 13, base[13].replace("topicId=5", "topicId=-5"), "LocalPostTo: topicId is negative")
    edit("m_negative_remote", 7, base[7].replace("remoteRank=1", "remoteRank=-1"), "Post: remoteRank is negative")
    edit("m_bad_slice", 6, base[6].replace(", size=256]", "]", 1), "LocalCopy: srcSlice must be DataSlice")
    edit("m_reserved_buffer", 6, base[6].replace("BufferType::INPUT", "BufferType::RESERVED"),
         "LocalCopy: srcSlice: unknown buffer type \\\"BufferType::RESERVED\\\"")
    edit("m_invalid_enum", 7, base[7].replace("NotifyTypeStub::READY", "NotifyTypeStub::Invalid"),
         "Post: unknown notifyType")
    edit("m_bad_link", 7, base[7].replace("link prototyp=LinkProtoStub::SDMA", "LinkProtoStub::SDMA"),
         "Post: link \\\"LinkProtoStub::SDMA\\\" is not \\\"link prototyp=LinkProtoStub::NAME\\\"")
    edit("m_truncated_line", 6, base[6][:60], "a task line must read")
    edit("m_rank_in_wrong_block", 7, base[7].replace("[rankId:0,", "[rankId:1,"),
         "task of rank 1 queue 0 inside the block of rank 0 queue 0")
    lines = list(base)
    lines.insert(2, base[6])
    bad["m_task_outside_dump"] = (lines, "m_task_outside_dump.log:3: a task line outside a dump")
    edit("m_bad_data_type", 6, copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)).replace(
        "LocalCopy[", "LocalReduce[dataType=16, reduceOp=0, ").join(["[rankId:0, queueId:0, index:0] ", ""]),
        "LocalReduce: dataType 16 is not a CheckerDataType")
    edit("m_bad_reduce_op", 6, copy(ds("INPUT", 0, D), ds("OUTPUT", 0, D)).replace(
        "LocalCopy[", "LocalReduce[dataType=4, reduceOp=4, ").join(["[rankId:0, queueId:0, index:0] ", ""]),
        "LocalReduce: reduceOp 4 is not a CheckerReduceOp")
    edit("m_missing_attribute", 7, base[7].replace(", originated tag=TXACK", "").replace(
        "notifyType=NotifyTypeStub::READY", "originated tag=TXACK"), "Post lacks notifyType")
    for name, (lines, error) in bad.items():
        write_file(f"bad/{name}.log", lines)
        with open(os.path.join(HERE, "bad", f"{name}.log.expect"), "w") as f:
            f.write(f'expect: exit=2 error="{error}"\n')
    write_file("bad/m_no_dump.log", ["[ RUN      ] StBad.quiet", "nothing printed", "[       OK ] StBad.quiet (0 ms)"])
    with open(os.path.join(HERE, "bad", "m_no_dump.log.expect"), "w") as f:
        f.write('expect: exit=2 error="m_no_dump.log:1: no task dump in this log"\n')
    write_file("bad/m_ranks_mismatch.log", base)
    write_json_lines("bad/m_ranks_mismatch.op.json", [dict(AG2, ranks=4)])
    with open(os.path.join(HERE, "bad", "m_ranks_mismatch.log.expect"), "w") as f:
        f.write('expect: exit=2 error="m_ranks_mismatch.log:4: StBad.case: the dump has 2 ranks, its operator '
                'parameters ("\n')


# ------------------------------------------------ what HCCL's own dumps hold

def hccl():
    """Schedules as HCCL's real algorithm tests record them, which collcheck
    must accept (stlog.md §5.2, §5.3, §6), next to the defects it must still
    report. One log, hccl.log, with a JSON Lines sidecar."""
    ag = allgather2()
    cases = []  # (test name, ranks, params entry or None, verdict, codes)

    # §5.2: rank 0's local copy records its destination as the rest of
    # OUTPUT (512 bytes from 0), as HCCL's MemcpyAsync with destMax does.
    big = replace(ag, 0, 0, 0, copy(ds("INPUT", 0, D), ds("OUTPUT", 0, 2 * D)))
    cases.append(("StHccl.copy_dst_recorded_larger", big, {"op": AG2}, "PASS", []))
    # The same on rank 1's slave queue, but recorded past OUTPUT's end: 201.
    past = replace(ag, 1, 1, 1, copy(ds("INPUT", 0, D), ds("OUTPUT", D, 2 * D)))
    cases.append(("StHccl.copy_dst_recorded_past_end_201", past, {"op": AG2}, "FAIL", [201]))
    # A reduce never takes a size from its source: 201.
    alr = replace(allreduce2_local_reduce(), 0, 0, 4, lreduce(ds("OUTPUT_CCL", 0, D // 2), ds("OUTPUT", 0, D)))
    cases.append(("StHccl.reduce_dst_larger_201", alr, {"op": AR2, "buffers": {"OUTPUT_CCL": D}}, "FAIL",
                  [201, 902]))

    # §6: HCCL's 2-rank NB Scatter relays rank 1's block through rank 1's
    # own INPUT, which the ST framework sizes ranks·count on every rank.
    sc = {"type": "Scatter", "ranks": 2, "dataType": "INT8", "count": 100, "root": 0}
    scatter = [[[wait(1, "READY", tag="RXACK"), post(1, "FIN", tag="TXASYNC"), wait(1, "FIN", tag="RXDATASIGNAL"),
                 copy(ds("INPUT", 0, 100), ds("OUTPUT", 0, 100))]],
               [[post(0, "READY", tag="TXACK"), wait(0, "FIN", tag="RXASYNC"),
                 read(0, ds("INPUT", 100, 100), ds("INPUT", 100, 100)), post(0, "FIN", tag="TXDATASIGNAL"),
                 copy(ds("INPUT", 100, 100), ds("OUTPUT", 0, 100))]]]
    cases.append(("StHccl.scatter_relay_through_input", scatter, {"op": sc}, "PASS", [0]))
    # Parameters that size rank 1's INPUT as a real caller might (none): 201.
    cases.append(("StHccl.scatter_relay_declared_201", scatter, {"op": sc, "rankBuffers": {"1": {"INPUT": 0}}},
                  "FAIL", [201, 902]))
    # BatchSendRecv: INPUT is ranks·count of the first item per rank; rank 0
    # stages its block in the bytes beyond its own send data, which start
    # empty and are scratch.
    bsr = {"type": "BatchSendRecv", "ranks": 2, "dataType": "INT8",
           "items": [{"src": 0, "dst": 1, "count": 64}, {"src": 1, "dst": 0, "count": 64}]}
    staged = [[[copy(ds("INPUT", 0, 64), ds("INPUT", 64, 64)), post(1, "READY"), wait(1, "FIN", tag="RXDONE"),
                read(1, ds("OUTPUT", 0, 64), ds("INPUT", 0, 64))]],
              [[wait(0, "READY"), read(0, ds("OUTPUT", 0, 64), ds("INPUT", 64, 64)), post(0, "FIN", tag="TXDONE")]]]
    cases.append(("StHccl.batch_send_recv_input_scratch", staged, {"op": bsr}, "PASS", []))

    # §5.3 (no parameters: the semantic stage is skipped, 902). Rank 0
    # posts K(READY,SDMA) to rank 1 from two slave queues nothing orders:
    # the dump cannot tell whether they use one notify (a warning).
    two = [[[lpost(1), lpost(2), lwait(3), lwait(4)], [lwait(1), post(1), lpost(3)], [lwait(2), post(1), lpost(4)]],
           [[wait(0), wait(0)]]]
    cases.append(("StHccl.notify_key_on_two_streams", two, None, "PASS", [0, 902]))
    # Generic Post(idx)/Wait(idx) twice on one stream: the index is not printed.
    generic = [[[post(1, tag="POST"), post(1, tag="POST")]], [[wait(0, tag="WAIT"), wait(0, tag="WAIT")]]]
    cases.append(("StHccl.notify_generic_post_idx", generic, None, "PASS", [0, 902]))
    # A data signal posted twice on one stream and link, no acknowledgement
    # between (HCCL's deterministic pipeline executor): 602.
    twice = [[[post(1, "FIN", tag="TXDATASIGNAL"), post(1, "FIN", tag="TXDATASIGNAL")]],
             [[wait(0, "FIN", tag="RXDATASIGNAL"), wait(0, "FIN", tag="RXDATASIGNAL")]]]
    cases.append(("StHccl.notify_data_signal_posted_twice_602", twice, None, "FAIL", [602, 902]))
    # The CCU form prints its topic: two streams posting one topic are 602.
    ccu2 = [[[lpost(1), lpost(2), lwait(3), lwait(4)], [lwait(1), post_ccu(1, 7), lpost(3)],
             [lwait(2), post_ccu(1, 7), lpost(4)]],
            [[wait_ccu(0, 7), wait_ccu(0, 7)]]]
    cases.append(("StHccl.notify_ccu_form_two_streams_602", ccu2, None, "FAIL", [602, 902]))

    lines = []
    params = []
    expect = []
    for name, ranks, entry, verdict, codes in cases:
        lines += test(name, [ranks], ok=verdict == "PASS")
        if entry is not None:
            params.append(dict({"test": name}, **entry))
        line = f"case: {name} verdict={verdict} codes={','.join(map(str, codes))}"
        if 0 in codes:
            line += " warnings=" + ("STLOG-W-SCATTER-RELAY" if "scatter" in name else "STLOG-W-NOTIFY-AMBIGUOUS")
        expect.append(line)
    write_file("hccl.log", lines)
    write_json_lines("hccl.op.json", params)
    codes = sorted({c for _, _, _, _, cs in cases for c in cs})
    exit_code = 1 if any(v == "FAIL" for _, _, _, v, _ in cases) else 0
    with open(os.path.join(HERE, "hccl.log.expect"), "w") as f:
        f.write(f"expect: exit={exit_code} codes={','.join(map(str, codes))}\n")
        f.write("\n".join(expect) + "\n")


if __name__ == "__main__":
    suite()
    with_op()
    malformed()
    hccl()
