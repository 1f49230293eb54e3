#!/usr/bin/env python3
"""Writes the golden cases of stages 1-3 (graph/, single/, sync/) and the
malformed inputs (malformed/). Each case is the 2-rank AllGather example of
trace-format.md with one change, so that the change alone explains the codes.
Cases of stages 2 and 3 run with --stages graph,single,sync so that their
codes stay those of the stage under test (the skipped stages add 902).
Run it from anywhere; it rewrites the files below this directory.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = {"format": "collcheck-trace", "version": 1,
       "op": {"type": "AllGather", "ranks": 2, "dataType": "INT32", "count": 64}}


def s(rank, buf, off, ln):
    return {"rank": rank, "type": buf, "offset": off, "len": ln}


def cp(r, src, dst, **kw):
    d = {"rank": r, "stream": 0, "type": "TRANS_MEM", "src": src, "dst": dst}
    d.update(kw)
    return d


def rec(r, peer, nid, stream=0):
    return {"rank": r, "stream": stream, "type": "RECORD", "waitRank": peer, "notifyId": nid}


def wt(r, peer, nid, stream=0):
    return {"rank": r, "stream": stream, "type": "WAIT", "recordRank": peer, "notifyId": nid}


def base():
    return [
        cp(0, s(0, "INPUT", 0, 256), s(0, "OUTPUT", 0, 256)), rec(0, 1, 1), wt(0, 1, 2),
        cp(0, s(1, "INPUT", 0, 256), s(0, "OUTPUT", 256, 256), link="SDMA"), rec(0, 1, 3), wt(0, 1, 4),
        cp(1, s(1, "INPUT", 0, 256), s(1, "OUTPUT", 256, 256)), rec(1, 0, 2), wt(1, 0, 1),
        cp(1, s(0, "INPUT", 0, 256), s(1, "OUTPUT", 0, 256), link="SDMA"), rec(1, 0, 4), wt(1, 0, 3),
    ]


def write(path, expect, tasks, header=None, comment=""):
    lines = ["# " + comment] if comment else []
    lines.insert(0, "# expect: " + expect)
    lines.append(json.dumps(header or HDR, separators=(",", ":")))
    lines += [t if isinstance(t, str) else json.dumps(t, separators=(",", ":")) for t in tasks]
    with open(os.path.join(HERE, path), "w") as f:
        f.write("\n".join(lines) + "\n")


STAGES = " args=--stages graph,single,sync"


def graph_cases():
    t = base()
    t[4] = {"rank": 0, "stream": 0, "type": "NOTIFY_PING", "notifyId": 3}
    write("graph/101_unknown_type.jsonl", "exit=1 codes=101,102,902", t,
          comment="an unknown task type is a 101 no-op; rank 1 then waits forever for #3")
    t = base()
    t.insert(2, rec(0, 7, 9))
    write("graph/101_peer_outside.jsonl", "exit=1 codes=101,902", t,
          comment="RECORD to rank 7 of a 2-rank operator")
    t = base()
    t[1], t[2] = t[2], t[1]
    t[7], t[8] = t[8], t[7]
    write("graph/102_cycle.jsonl", "exit=1 codes=102,902", t,
          comment="both ranks wait for the other before posting: a wait-for cycle")
    t = base()
    del t[7]
    write("graph/102_no_record.jsonl", "exit=1 codes=102,103,902", t,
          comment="rank 1 never posts #2: rank 0 waits for a key nobody records; rank 1's #4 then stays unconsumed")
    t = base()
    t[11] = wt(1, 0, 33)
    write("graph/102_103_typo.jsonl", "exit=1 codes=102,103,902", t,
          comment="mistyped notifyId: the WAIT deadlocks (102), the RECORD is never consumed (103)")
    t = base()
    t.insert(5, rec(0, 1, 8))
    write("graph/103_unconsumed.jsonl", "exit=1 codes=103", t,
          comment="an extra RECORD nobody waits for; everything else is correct")
    t = base()
    t[11] = wt(1, 0, 33)
    t.append(wt(1, 0, 3))
    t.append(rec(1, 1, 5, stream=1))
    write("graph/102_blocked_slave.jsonl", "exit=1 codes=102,103,203,902", t,
          comment="a slave stream without its opening WAIT is 203; rank 1/s0 also waits for #33 forever")
    write("graph/pass_example.jsonl", "exit=0 codes=", base(), comment="the example of trace-format.md")


def single_cases():
    def one(name, expect, i, task, comment, hdr=None):
        t = base()
        t[i] = task
        write("single/" + name, expect + STAGES, t, header=hdr, comment=comment)
    one("201_past_end.jsonl", "exit=1 codes=201,902", 0, cp(0, s(0, "INPUT", 0, 256), s(0, "OUTPUT", 300, 256)),
        "OUTPUT is 512 bytes; the copy writes up to 556")
    one("201_rank_outside.jsonl", "exit=1 codes=201,902", 3, cp(0, s(5, "INPUT", 0, 256), s(0, "OUTPUT", 256, 256)),
        "a slice on rank 5 of a 2-rank operator")
    one("201_undeclared_buffer.jsonl", "exit=1 codes=201,902", 0, cp(0, s(0, "INPUT", 0, 256), s(0, "CCL", 0, 256)),
        "CCL is not declared in the header")
    one("201_offset_overflow.jsonl", "exit=1 codes=201,902", 0,
        cp(0, s(0, "INPUT", 18446744073709551615, 1), s(0, "OUTPUT", 0, 1)), "offset + len overflows 64 bits")
    one("201_len_mismatch.jsonl", "exit=1 codes=201,902", 0, cp(0, s(0, "INPUT", 0, 256), s(0, "OUTPUT", 0, 128)),
        "TRANS_MEM with src.len != dst.len")
    one("201_reduce_no_source.jsonl", "exit=1 codes=201,902", 0,
        {"rank": 0, "stream": 0, "type": "REDUCE", "srcs": [], "dst": s(0, "OUTPUT", 0, 256)}, "a REDUCE without source")
    one("201_reduce_unaligned.jsonl", "exit=1 codes=201,902", 0,
        {"rank": 0, "stream": 0, "type": "REDUCE", "src": s(0, "INPUT", 0, 6), "dst": s(0, "OUTPUT", 0, 6), "reduceOp": "SUM"},
        "a reduce of 6 bytes of INT32")
    one("201_batch_pair_unequal.jsonl", "exit=1 codes=201,902", 0,
        {"rank": 0, "stream": 0, "type": "BATCH_TRANS_MEM",
         "pairs": [{"src": s(0, "INPUT", 0, 128), "dst": s(0, "OUTPUT", 0, 128)},
                   {"src": s(0, "INPUT", 128, 128), "dst": s(0, "OUTPUT", 128, 64)}]}, "a batch pair with unequal lengths")
    one("201_batch_group_no_source.jsonl", "exit=1 codes=201,902", 0,
        {"rank": 0, "stream": 0, "type": "BATCH_REDUCE", "reduceOp": "SUM",
         "groups": [{"srcs": [s(0, "INPUT", 0, 128)], "dst": s(0, "OUTPUT", 0, 128)},
                    {"srcs": [], "dst": s(0, "OUTPUT", 128, 128)}]}, "a batch group with no source")
    one("202_copy_overlap.jsonl", "exit=1 codes=202,902", 0,
        cp(0, s(0, "OUTPUT", 0, 256), s(0, "OUTPUT", 128, 256)), "source and destination overlap")
    one("202_reduce_overlap.jsonl", "exit=1 codes=202,902", 0,
        {"rank": 0, "stream": 0, "type": "REDUCE", "srcs": [s(0, "INPUT", 0, 128), s(0, "OUTPUT", 64, 128)],
         "dst": s(0, "OUTPUT", 0, 128), "reduceOp": "SUM"}, "the second reduce source overlaps the destination")
    one("202_batch_dsts.jsonl", "exit=1 codes=202,902", 0,
        {"rank": 0, "stream": 0, "type": "BATCH_TRANS_MEM",
         "pairs": [{"src": s(0, "INPUT", 0, 128), "dst": s(0, "OUTPUT", 0, 128)},
                   {"src": s(0, "INPUT", 128, 128), "dst": s(0, "OUTPUT", 64, 128)}]}, "two batch destinations overlap")
    one("202_batch_src_other_dst.jsonl", "exit=1 codes=202,902", 0,
        {"rank": 0, "stream": 0, "type": "BATCH_TRANS_MEM",
         "pairs": [{"src": s(0, "INPUT", 0, 128), "dst": s(0, "OUTPUT", 0, 128)},
                   {"src": s(0, "OUTPUT", 0, 64), "dst": s(0, "OUTPUT", 256, 64)}]}, "a batch source overlaps another pair's destination")
    t = base()
    t.insert(1, cp(0, s(0, "OUTPUT", 8, 0), s(0, "OUTPUT", 8, 0)))
    write("single/pass_zero_length_overlap.jsonl", "exit=0 codes=902" + STAGES, t,
          comment="zero-length slices never overlap (and a zero-length copy is harmless)")
    one("pass_declared_ccl.jsonl", "exit=0 codes=902", 0, cp(0, s(0, "INPUT", 0, 256), s(0, "OUTPUT", 0, 256)),
        "sizes come from buffers and rankBuffers",
        hdr=dict(HDR, buffers={"CCL": 64}, rankBuffers={"1": {"CCL": 128}}))

    # Slave streams.
    def slave(name, expect, tasks, comment):
        write("single/" + name, expect + STAGES, base() + tasks, comment=comment)
    ok = [rec(0, 0, 50), wt(0, 0, 51)]
    slave("203_first_not_wait.jsonl", "exit=1 codes=103,203,902",
          ok + [rec(0, 0, 51, stream=1)], "slave stream s1 begins with a RECORD")
    slave("203_last_not_record.jsonl", "exit=1 codes=102,203,902",
          ok + [wt(0, 0, 50, stream=1), cp(0, s(0, "OUTPUT", 0, 0), s(0, "OUTPUT", 0, 0), stream=1) | {"stream": 1},
                wt(0, 0, 99, stream=1)], "slave stream s1 ends with a WAIT (which also never returns)")
    slave("203_single_task.jsonl", "exit=1 codes=102,203,902", [wt(0, 0, 50, stream=1)],
          "a slave stream of one task (HCCL's checker stops at such a stream; collcheck checks every stream)")
    slave("203_only_empty_copies.jsonl", "exit=1 codes=203,902",
          [cp(0, s(0, "OUTPUT", 0, 0), s(0, "OUTPUT", 0, 0)) | {"stream": 2}], "s2 holds only a zero-length local copy")
    slave("pass_slave_trailing_empty.jsonl", "exit=0 codes=902",
          ok + [wt(0, 0, 50, stream=1), rec(0, 0, 51, stream=1),
                cp(0, s(0, "OUTPUT", 0, 0), s(0, "OUTPUT", 0, 0)) | {"stream": 1}],
          "trailing zero-length local copies are skipped before the closing RECORD")
    slave("203_two_streams.jsonl", "exit=1 codes=102,103,203,902",
          [rec(0, 0, 50), rec(0, 0, 52), wt(0, 0, 51),
           wt(1, 1, 60, stream=3) | {"rank": 1},
           wt(0, 0, 50, stream=1), rec(0, 0, 51, stream=1),
           rec(0, 0, 53, stream=2)],
          "every stream is checked: s2 of rank 0 and s3 of rank 1 are both wrong")


def sync_cases():
    t = base() + [rec(0, 1, 5), rec(0, 1, 5), wt(1, 0, 5), wt(1, 0, 5)]
    write("sync/602_not_serialised.jsonl", "exit=1 codes=602,902" + STAGES, t,
          comment="rank 0 posts #5 twice before rank 1 waited once: the pairing depends on timing")
    t = base() + [rec(0, 1, 5), wt(0, 1, 6), rec(0, 1, 5), wt(1, 0, 5), rec(1, 0, 6), wt(1, 0, 5)]
    write("sync/pass_serialised.jsonl", "exit=0 codes=902" + STAGES, t,
          comment="the same key used twice, but the first WAIT is ordered before the second RECORD (through #6)")
    hdr = dict(HDR, op=dict(HDR["op"], ranks=3))
    t = base() + [rec(0, 1, 5), rec(0, 2, 7), wt(2, 0, 7), rec(2, 1, 8), wt(1, 2, 8), wt(1, 0, 5),
                  rec(0, 1, 5), wt(1, 0, 5)]
    write("sync/602_third_rank.jsonl", "exit=1 codes=602,902" + STAGES, t, header=hdr,
          comment="the only candidate order runs 0->2->1 but starts after the first WAIT's RECORD, not after the WAIT")
    t = base() + [rec(0, 1, 5), wt(1, 0, 5), rec(1, 2, 7), wt(2, 1, 7), rec(2, 0, 8), wt(0, 2, 8),
                  rec(0, 1, 5), wt(1, 0, 5)]
    write("sync/pass_third_rank.jsonl", "exit=0 codes=902" + STAGES, t, header=hdr,
          comment="the order from the first WAIT to the second RECORD goes through rank 2")


def malformed_cases():
    H = json.dumps(HDR, separators=(",", ":"))
    good = json.dumps(base()[0], separators=(",", ":"))
    def m(name, err, lines):
        with open(os.path.join(HERE, "malformed", name), "w") as f:
            f.write("# expect: exit=2 error=\"%s\"\n" % err)
            f.write("\n".join(lines) + "\n")
    m("truncated_line.jsonl", ":4: invalid JSON", [H, good, good[:40]])
    m("wrong_type.jsonl", ":4: \\\"len\\\" must be", [H, good, good.replace('"len":256', '"len":"256"', 1)])
    m("negative_len.jsonl", ":4: \\\"len\\\" must not be negative", [H, good, good.replace('"len":256', '"len":-1', 1)])
    m("missing_key.jsonl", ":4: task lacks \\\"stream\\\"", [H, good, good.replace('"stream":0,', '', 1)])
    m("missing_slice_key.jsonl", ":3: slice \\\"dst\\\" lacks \\\"offset\\\"", [H, good.replace('"offset":0,"len":256}}', '"len":256}}')])
    m("unknown_operator.jsonl", ":2: unknown operator \\\"AllScatter\\\"", [H.replace("AllGather", "AllScatter")])
    m("unknown_dtype.jsonl", ":2: unknown data type \\\"INT24\\\"", [H.replace("INT32", "INT24")])
    m("rank_out_of_range.jsonl", ":4: task rank 2 is outside", [H, good, good.replace('{"rank":0', '{"rank":2', 1)])
    m("task_before_header.jsonl", ":2: a task line comes before the trace header", [good, H])
    m("version2.jsonl", ":2: trace format version 2 is newer", [H.replace('"version":1', '"version":2')])
    m("not_our_format.jsonl", ":2: \\\"format\\\" must be \\\"collcheck-trace\\\"", [H.replace("collcheck-trace", "other-trace")])
    m("bad_buffer_name.jsonl", ":4: buffer type \\\"ccl\\\" must match", [H, good, good.replace('"OUTPUT"', '"ccl"')])
    m("u64_overflow.jsonl", ":4: invalid number", [H, good, good.replace('"offset":0', '"offset":18446744073709551616', 1)])
    m("notify_too_big.jsonl", ":4: \\\"notifyId\\\" 4294967296 does not fit in 32 bits",
      [H, good, json.dumps(rec(0, 1, 4294967296), separators=(",", ":"))])
    m("inplace_not_allowed.jsonl", ":2: \\\"inPlace\\\" is allowed only", [H.replace('"count":64', '"count":64,"inPlace":true')])
    m("counts_length.jsonl", ":2: \\\"counts\\\" must have 2 entries",
      [json.dumps(dict(HDR, op={"type": "AllGatherV", "ranks": 2, "dataType": "INT8", "counts": [1, 2, 3]}))])
    m("sendrecv_two_items.jsonl", ":2: SendRecv has exactly one item",
      [json.dumps(dict(HDR, op={"type": "SendRecv", "ranks": 2, "dataType": "INT8",
                               "items": [{"src": 0, "dst": 1, "count": 1}, {"src": 1, "dst": 0, "count": 1}]}))])
    m("not_an_object.jsonl", ":4: a line must be a JSON object", [H, good, "[1,2,3]"])
    m("comment_only.jsonl", ":2: no trace header", ["# nothing but comments"])
    m("missing_count.jsonl", ":2: \\\"op\\\" lacks \\\"count\\\"", [H.replace(',"count":64', '')])
    m("ranks_hostile.jsonl", ":2: \\\"ranks\\\" 4294967296 is more than collcheck supports",
      [H.replace('"ranks":2', '"ranks":4294967296')])
    m("stream_too_big.jsonl", ":4: \\\"stream\\\" 4294967296 does not fit in 32 bits",
      [H, good, good.replace('"stream":0', '"stream":4294967296', 1)])
    m("second_header.jsonl", ":4: a second trace header", [H, good, H])
    m("garbage.jsonl", ":2: invalid JSON", ["{" + "\x01" * 10])


graph_cases()
single_cases()
sync_cases()
malformed_cases()
