#!/usr/bin/env python3
"""The machine-readable reports of real runs against their schemas: SARIF
against the OASIS SARIF 2.1.0 schema (sarif-schema-2.1.0.json beside this
file), the JSON report (check's and merge-reports') against
docs/report.schema.json, and the JUnit XML for well-formedness and counts.

    reports_test.py COLLCHECK SOURCE_DIR WORK_DIR

Exit status 0: all valid; 1: a report is invalid or disagrees with the run;
77: the jsonschema module is missing (ctest: skipped).
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (exits 77 without jsonschema)

BINARY, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "sarif-schema-2.1.0.json"), encoding="utf-8") as f:
    SARIF_SCHEMA = json.load(f)
with open(os.path.join(SOURCE, "docs", "report.schema.json"), encoding="utf-8") as f:
    REPORT_SCHEMA = json.load(f)

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def case(rel):
    return os.path.join(SOURCE, rel)


# name -> (inputs, extra options, expected exit status)
RUNS = {
    "pass": (["examples/allgather2.jsonl"], [], 0),
    "race": (["tests/cases/mem/302_write_write.jsonl"], [], 1),
    "deadlock": (["tests/cases/graph/102_103_typo.jsonl"], [], 1),
    "cascade": (["tests/cases/graph/102_cascade_ring64.jsonl.gz"], [], 1),
    "stlog": (["tests/cases/stlog/suite.log"], [], 1),
    "batch": (["examples/allgather2.jsonl", "tests/cases/graph/102_cycle.jsonl",
               "tests/cases/malformed/garbage.jsonl"], [], 2),
    "warnings": (["tests/cases/mem/pass_atomic_reduce.jsonl"], ["--stages", "graph,single,sync,mem",
                                                                "--fail-on", "warning"], 1),
}


def check_report(name, inputs, options, want):
    sarif = os.path.join(WORK, name + ".sarif")
    report = os.path.join(WORK, name + ".json")
    junit = os.path.join(WORK, name + ".xml")
    for p in (sarif, report, junit):
        if os.path.exists(p):
            os.remove(p)
    cmd = [BINARY, "check", "-q", "-j1", "--sarif", sarif, "--json", report, "--junit", junit] + options
    run = subprocess.run(cmd + [case(i) for i in inputs], capture_output=True, text=True)
    if run.returncode != want:
        fail(f"{name}: exit {run.returncode}, expected {want}\n{run.stdout}{run.stderr}")
        return None
    with open(report, encoding="utf-8") as f:
        rep = json.load(f)
    with open(sarif, encoding="utf-8") as f:
        log = json.load(f)
    for e in validate.errors_of(REPORT_SCHEMA, rep):
        fail(f"{name}.json: {e}")
    for e in validate.errors_of(SARIF_SCHEMA, log):
        fail(f"{name}.sarif: {e}")

    # The JSON report's summary is the run's.
    s = rep["summary"]
    verdicts = [i["verdict"] for i in rep["inputs"]]
    if (s["operators"], s["pass"], s["fail"], s["unusable"], s["exitStatus"]) != (
            len(verdicts), verdicts.count("PASS"), verdicts.count("FAIL"), len(rep["errors"]), want):
        fail(f"{name}: summary {s} disagrees with the report")

    # SARIF: a result per finding, each naming an existing rule.
    findings = [f for i in rep["inputs"] for f in i["findings"]]
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    results = run0["results"]
    if len(log["runs"]) != 1 or run0["tool"]["driver"]["name"] != "collcheck":
        fail(f"{name}: not one run of collcheck")
    if len(results) != len(findings):
        fail(f"{name}: {len(results)} SARIF results for {len(findings)} findings")
    ids = [r["id"] for r in rules]
    if len(set(ids)) != len(ids):
        fail(f"{name}: a rule twice: {ids}")
    want_ids = {str(f["code"]) if f["code"] else f["name"] for f in findings}
    if set(ids) != want_ids:
        fail(f"{name}: rules {sorted(ids)}, findings' codes {sorted(want_ids)}")
    for r, f in zip(results, findings):
        if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
            fail(f"{name}: result of {r['ruleId']} points to rule {rules[r['ruleIndex']]['id']}")
        if r["level"] != f["severity"] or f["message"] not in r["message"]["text"]:
            fail(f"{name}: result {r['ruleId']} does not match its finding")
        loc = r["locations"][0]["physicalLocation"]
        line = f["tasks"][0]["line"] if f["tasks"] else 0
        if line and loc.get("region", {}).get("startLine") != line:
            fail(f"{name}: result {r['ruleId']} not at line {line}: {loc}")
        if len(f["tasks"]) > 1 and len(r.get("relatedLocations", [])) != len(f["tasks"]) - 1:
            fail(f"{name}: result {r['ruleId']} lacks related locations")
    notes = run0["invocations"][0].get("toolExecutionNotifications", [])
    if len(notes) != len(rep["errors"]) or run0["invocations"][0]["executionSuccessful"] != (not rep["errors"]):
        fail(f"{name}: unusable inputs not reported as notifications")

    # JUnit: well-formed, a testcase per operator and per unusable input.
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    errored = [c for c in cases if c.find("error") is not None]
    want_failed = s["fail"]
    if "--fail-on" in options:
        want_failed = sum(1 for i in rep["inputs"] if i["findings"])
    if (len(cases), len(failed), len(errored)) != (s["operators"] + s["unusable"], want_failed, s["unusable"]):
        fail(f"{name}: JUnit has {len(cases)} cases, {len(failed)} failed, {len(errored)} errors; summary {s}")
    if (int(root.get("tests")), int(root.get("failures")), int(root.get("errors"))) != (
            len(cases), len(failed), len(errored)):
        fail(f"{name}: JUnit totals {root.attrib} disagree with its test cases")
    errors_in = sum(1 for f in findings if f["severity"] == "error" or "--fail-on" in options)
    if len(root.findall("./testsuite/testcase/failure")) != errors_in:
        fail(f"{name}: JUnit failures are not one per error finding")
    return report


reports = {}
for name, (inputs, options, want) in RUNS.items():
    reports[name] = check_report(name, inputs, options, want)

# SARIF of a run with warnings only: level warning, and a PASS has no results.
with open(os.path.join(WORK, "pass.sarif"), encoding="utf-8") as f:
    if json.load(f)["runs"][0]["results"]:
        fail("pass: a PASS has SARIF results")

# merge-reports of two reports: valid too, with its own summary.
if reports["pass"] and reports["deadlock"]:
    merged = os.path.join(WORK, "merged.json")
    run = subprocess.run([BINARY, "merge-reports", "-o", merged, reports["pass"], reports["deadlock"]],
                         capture_output=True, text=True)
    if run.returncode != 1:
        fail(f"merge-reports: exit {run.returncode}\n{run.stdout}{run.stderr}")
    else:
        with open(merged, encoding="utf-8") as f:
            m = json.load(f)
        for e in validate.errors_of(REPORT_SCHEMA, m):
            fail(f"merged.json: {e}")
        if m["summary"] != {"operators": 2, "pass": 1, "fail": 1, "unusable": 0, "exitStatus": 1}:
            fail(f"merged summary {m['summary']}")

# The schemas are not vacuous: a broken report and a broken SARIF log fail.
if reports["race"]:
    with open(reports["race"], encoding="utf-8") as f:
        bad = json.load(f)
    bad["inputs"][0]["verdict"] = "MAYBE"
    del bad["summary"]
    if len(validate.errors_of(REPORT_SCHEMA, bad)) < 2:
        fail("report schema accepts a wrong verdict and a missing summary")
    with open(os.path.join(WORK, "race.sarif"), encoding="utf-8") as f:
        bad = json.load(f)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    if not validate.errors_of(SARIF_SCHEMA, bad):
        fail("SARIF schema accepts level 'fatal'")

print(f"{len(RUNS) + 2} report checks: {'FAILED' if failures else 'passed'}")
sys.exit(1 if failures else 0)
