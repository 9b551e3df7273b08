#!/usr/bin/env bash
# On the GPU machine: every tool over its cases; outputs land in $OUT.
# synccheck stops a launch at the first divergent barrier (the context is lost),
# so its cases run one process each.
cd "$(dirname "$0")"
for tool in memcheck racecheck initcheck; do
    compute-sanitizer --tool "$tool" python3 cases.py cupy "$tool" > "$OUT/$tool.txt" 2>&1
done
for case in 7 8 9 10 11; do
    compute-sanitizer --tool synccheck python3 cases.py cupy synccheck "$case" > "$OUT/synccheck_$case.txt" 2>&1
done
grep -h "@@@\|SUMMARY" "$OUT"/*.txt
