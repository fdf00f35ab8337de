#!/bin/sh
# bench_worker_start.sh [BASE] — a search worker's cold start (go.run → ready, ms) under Node, for this tree's
# site and, given a git revision BASE, for that revision's (built in a temporary worktree), runs alternated
# side by side, a fresh Node process each (what `make bench-worker-start BASE=<rev>` runs). RUNS=n (default 15).
set -eu
root=$(git rev-parse --show-toplevel)
runs=${RUNS:-15}
tmp=$(mktemp -d)
trap 'cd "$root"; [ -d "$tmp/base-tree" ] && git worktree remove --force "$tmp/base-tree" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
cd "$root"
go run ./cmd/site -out "$tmp/this" -repo "" >/dev/null
builds="this"
if [ $# -gt 0 ]; then
	git worktree add --detach "$tmp/base-tree" "$1" >/dev/null 2>&1
	(cd "$tmp/base-tree" && go run ./cmd/site -out "$tmp/base" -repo "" >/dev/null)
	builds="base this"
fi
for b in $builds; do : >"$tmp/$b.ms"; done
i=0
while [ $i -lt "$runs" ]; do
	for b in $builds; do
		node "$root/web/node/worker_start.js" "$tmp/$b/web" >>"$tmp/$b.ms"
	done
	i=$((i + 1))
done
echo "a search worker's cold start under Node $(node --version), go.run → ready in ms, $runs runs each, alternated; $(nproc) cores"
for b in $builds; do
	name="this tree"
	[ "$b" = base ] && name="base $1"
	sort -n "$tmp/$b.ms" | awk -v name="$name" '{v[NR]=$1} END {printf "%-20s median %6.1f  [%.1f–%.1f]\n", name, v[int((NR+1)/2)], v[1], v[NR]}'
done
