#!/usr/bin/env python3
"""Prints every warning and error the compiler gave in a cargo build's JSON
messages (`--message-format=json`), as the compiler rendered them, then a count.
Exits 1 if there was any: the lint suite of scripts/test-suites.sh, where the
build ran with clippy-driver and lints capped at warnings."""
import json
import sys

count = 0
seen = set()
with open(sys.argv[1], encoding="utf-8") as build:
    for line in build:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-message":
            continue
        diag = msg.get("message") or {}
        if diag.get("level") not in ("warning", "error"):
            continue
        rendered = diag.get("rendered") or diag.get("message", "")
        # One source line can be compiled twice (the lib and its test harness).
        if rendered in seen:
            continue
        seen.add(rendered)
        count += 1
        print(f"{msg.get('target', {}).get('name', '?')}: {rendered}")
print(f"{count} warning(s) or error(s) from the compiler and clippy")
sys.exit(1 if count else 0)
