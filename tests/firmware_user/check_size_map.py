#!/usr/bin/env python3
"""Checks scripts/size-report --map against figures found another way.

Usage: check_size_map.py REPORT LIBEMCP_A LINK_LOG

REPORT is the output of `scripts/size-report --map user_fw.map`; LINK_LOG
the output of the same link made with -Wl,--print-gc-sections (the
linker's own list of the sections it dropped). For every member of
LIBEMCP_A the link used, the bytes the link kept are counted here from the
member's own section table (readelf -S: every SHF_ALLOC section) minus the
sections the linker says it removed from that member. The report's flash +
RAM of that member (text + rodata + data + bss, from the map file) must be
at least the sections kept whole and at most that plus the kept sections
the linker may shrink (mergeable constants and strings, whose duplicates it
merges, and the .ARM.exidx unwind index, whose repeated entries it folds);
map.emcp.flash + map.emcp.ram likewise for their sum.
Exits 1 on a difference, naming it.
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path


def alloc_sections(obj):
    """name -> (size, flags) of every SHF_ALLOC section of an object file."""
    out = subprocess.run(["readelf", "-SW", str(obj)], check=True, text=True, capture_output=True).stdout
    secs = {}
    # [Nr] Name Type Address Off Size ES Flg Lk Inf Al
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)\s+\d+",
                         out, re.M):
        if "A" in m.group(3):
            if m.group(1) in secs:
                raise SystemExit(f"check_size_map: {obj} has two sections named {m.group(1)}")
            secs[m.group(1)] = (int(m.group(2), 16), m.group(3))
    return secs


def edited(name, flags):
    """Sections the linker may shrink rather than keep whole: mergeable
    constants and strings (SHF_MERGE: duplicates merged) and the Arm
    unwinding index (.ARM.exidx: ld folds repeated entries)."""
    return "M" in flags or name.startswith(".ARM.exidx")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    report, lib, log = Path(sys.argv[1]).read_text(), Path(sys.argv[2]), Path(sys.argv[3]).read_text()
    kv = dict(re.findall(r"^(map\.\S+)=(\d+)$", report, re.M))
    members = sorted(set(re.findall(r"^map\.member\.libemcp\.a\((.+)\)\.flash=", report, re.M)))
    if not members:
        print("check_size_map: the report names no libemcp.a member")
        return 1
    removed = {}
    for sec, where in re.findall(r"removing unused section '([^']+)' in file '([^']+)'", log):
        m = re.match(r"^.*libemcp\.a\((.+)\)$", where)
        if m:
            removed.setdefault(m.group(1), []).append(sec)
    if not removed:
        print("check_size_map: the link log has no --print-gc-sections lines for libemcp.a")
        return 1
    failed = 0
    low = high = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["ar", "x", str(lib.resolve())], cwd=tmp, check=True)
        for member in members:
            secs = alloc_sections(Path(tmp) / member)
            gone = set(removed.get(member, []))
            unknown = sorted(gone - set(secs))
            kept = {n: v for n, v in secs.items() if n not in gone}
            whole = sum(size for n, (size, fl) in kept.items() if not edited(n, fl))
            shrinkable = sum(size for n, (size, fl) in kept.items() if edited(n, fl))
            got = int(kv[f"map.member.libemcp.a({member}).flash"]) + int(kv[f"map.member.libemcp.a({member}).ram"])
            low += whole
            high += whole + shrinkable
            ok = whole <= got <= whole + shrinkable and not unknown
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {member}: size-report {got} B; its section table less the "
                  f"{len(gone)} sections --gc-sections removed: {whole} B kept whole + up to {shrinkable} B of "
                  "mergeable constants and unwind index"
                  + (f"; removed sections not in the member: {unknown[:3]}" if unknown else ""))
    emcp = int(kv["map.emcp.flash"]) + int(kv["map.emcp.ram"])
    ok = low <= emcp <= high
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} emcp in all: size-report {emcp} B, counted here {low}-{high} B")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
