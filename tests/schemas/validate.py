#!/usr/bin/env python3
"""Validates JSON documents against one of workgate's schemas (schemas/*.json).

Usage: validate.py [--invalid] SCHEMA FILE...

Checks SCHEMA against the JSON Schema 2020-12 metaschema, then each FILE
against SCHEMA. Exits 0 when every FILE is valid (with --invalid: when every
FILE is invalid, the negative cases), 1 otherwise, naming each file and the
first error, and 2 when the schema or a file cannot be read. Uses Debian's
python3-jsonschema (4.10 in Debian 12) and nothing else.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.stderr.write("validate.py: python3-jsonschema is not installed (ci/setup installs it)\n")
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"validate.py: cannot read {path}: {e}\n")
        sys.exit(2)


def main(argv):
    expect_valid = True
    if argv and argv[0] == "--invalid":
        expect_valid = False
        argv = argv[1:]
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    schema = load(argv[0])
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    failed = 0
    for path in argv[1:]:
        errors = sorted(validator.iter_errors(load(path)), key=lambda e: list(e.absolute_path))
        if expect_valid and errors:
            failed += 1
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(document)"
            print(f"{path}: INVALID at {where}: {first.message[:300]}")
        elif not expect_valid and not errors:
            failed += 1
            print(f"{path}: valid, but it should not be")
        else:
            print(f"{path}: {'valid' if expect_valid else 'invalid, as it should be'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
