#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema (draft-07 or 2020-12, as the
schema's "$schema" says).

    validate.py SCHEMA FILE...

Exit status: 0 all valid, 1 one is not (each error printed), 2 bad usage or
unreadable file, 77 the jsonschema module is missing (ctest: skipped).
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    # Skipped (77), except in CI, where scripts/install-packages installs it.
    print("python3-jsonschema is not installed (scripts/install-packages test installs it)", file=sys.stderr)
    ci = os.environ.get("CI", "")
    sys.exit(1 if ci not in ("", "0", "false") else 77)


def errors_of(schema, document):
    """Every schema violation of `document`, as 'path: message' lines."""
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    out = []
    for e in sorted(cls(schema).iter_errors(document), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(p) for p in e.absolute_path)
        out.append(f"{path or '(root)'}: {e.message[:300]}")
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    bad = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errs = errors_of(schema, doc)
        for e in errs[:20]:
            print(f"{path}: {e}")
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
