#!/usr/bin/env python3
"""Fail when BladeDISC conformance drops below the floors in conformance-floor.json.

Runs ../shared/conformance/run.py in check and roundtrip modes with the given
disc-opt and compares the passed counts with the kept floors. Raise the floors
(`--update`) whenever a change wins cases, so they can't be lost again.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FLOOR_FILE = HERE / "conformance-floor.json"
RUNNER = ROOT.parent / "shared" / "conformance" / "run.py"


def passed(mode: str, disc_opt: str) -> tuple[int, int, str]:
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--mode", mode, "--disc-opt", disc_opt, "-j", "2", "--timeout", "120"],
        capture_output=True,
        text=True,
    )
    m = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
    if not m:
        sys.exit(f"conformance runner gave no summary ({mode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return int(m.group(1)), int(m.group(2)), proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--disc-opt", required=True)
    ap.add_argument("--update", action="store_true", help="raise the floors to the counts measured now")
    args = ap.parse_args()
    if not RUNNER.exists():
        sys.exit(f"conformance runner not found at {RUNNER} (CI expects ../shared beside the checkout)")
    floors = json.loads(FLOOR_FILE.read_text())
    ok = True
    for mode in ("roundtrip", "check"):
        npass, nfail, out = passed(mode, args.disc_opt)
        print(out.rstrip())
        floor = floors.get(mode, 0)
        print(f"conformance {mode}: {npass} passed, {nfail} failed (floor {floor})")
        if npass < floor:
            print(f"FAIL: conformance {mode} regressed below the floor ({npass} < {floor})")
            ok = False
        if args.update and npass > floor:
            floors[mode] = npass
    if args.update:
        FLOOR_FILE.write_text(json.dumps(floors, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
