#!/usr/bin/env bash
# test-cluster.sh: `make test-cluster`. Starts a one-node Slurm cluster on localhost (munged, slurmctld and slurmd
# from Debian's slurm-wlm and munge, with a configuration and state of their own in a temporary folder, no
# cgroups), submits deploy/slurm/audit.sbatch as an array of 4 tasks over the digits' test split, requeues one
# task mid-way (Slurm kills it and starts it again: it must go on where it stopped), merges, and compares the
# four files with a one-process audit of the same data, byte for byte; then the credit test split (a table) as an
# array of 2 tasks, its five files likewise. It stops the cluster on the way out.
#
# Environment: AUDIT_FLAGS (default "-top 60 -n 40": the short run CI makes; "" audits every uncertain item),
# KEEP=1 keeps the temporary folder. Without Slurm it skips, loudly; under CI=true it fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  if ! command -v "$tool" >/dev/null; then
    echo "test-cluster: SKIPPED: $tool is missing (Debian: apt-get install slurm-wlm munge)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 0
  fi
done
flags=${AUDIT_FLAGS--top 60 -n 40}
work=$(mktemp -d /tmp/deltaclue-cluster.XXXXXX)
log() { echo "test-cluster: $*"; }
stop() {
  for d in slurmd slurmctld munged; do
    [ -f "$work/$d.pid" ] && kill "$(cat "$work/$d.pid")" 2>/dev/null || true
  done
  sleep 1
  if [ "${KEEP:-}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap stop EXIT
fail() { log "FAIL: $*"; for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done; exit 1; }

log "building the static binary"
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$work/deltaclue" ./cmd/deltaclue)

# munge, with a key and a socket of its own
head -c 1024 /dev/urandom > "$work/munge.key"
chmod 600 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"

host=$(hostname -s)
port=$((17000 + RANDOM % 2000))
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=deltaclue-test
SlurmctldHost=$host
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobRequeue=1
MinJobAge=600
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=audit Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld
slurmd
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || fail "the node is $state, not idle, after a minute"
log "cluster up: $(sinfo -h -o '%P %D node(s) %c CPUs %T')"

log "one process: audit -data test $flags"
start=$(date +%s)
# shellcheck disable=SC2086
"$work/deltaclue" audit -models digits -data test -out "$work/one" -workers 1 $flags 2> "$work/one.log" > /dev/null || fail "the one-process audit"
log "  $(( $(date +%s) - start )) s"

export DELTACLUE=$work/deltaclue MODELS=digits DATA=test OUT=$work/array AUDIT_FLAGS=$flags
start=$(date +%s)
job=$(sbatch --parsable --array=0-3 --chdir="$work" "$root/deploy/slurm/audit.sbatch")
log "submitted job array $job (4 tasks)"
# Task 2, mid-way: once it has finished its first batch, Slurm requeues it (kills it and starts it again).
for _ in $(seq 300); do
  [ -f "$work/array/shards/2-of-4/batch-000000.jsonl" ] && break
  sleep 0.2
done
[ -f "$work/array/shards/2-of-4/batch-000000.jsonl" ] || fail "task 2 wrote no batch within a minute"
if [ -f "$work/array/shards/2-of-4/batch-000001.jsonl" ]; then
  log "  (task 2 had finished two batches when it was requeued)"
fi
scontrol requeue "${job}_2" || fail "scontrol requeue ${job}_2"
log "requeued task 2 mid-way"
# Slurm holds a requeued job back (two minutes) before it is eligible again; the test need not wait for that.
for _ in $(seq 100); do
  if scontrol show job "${job}_2" 2>/dev/null | grep -q 'JobState=PENDING Reason=BeginTime'; then
    scontrol update JobId="${job}_2" StartTime=now && break
  fi
  sleep 0.2
done
for _ in $(seq 1800); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 1
done
[ -z "$(squeue -h -j "$job")" ] || fail "the array is still running after 30 minutes"
log "  the array ran in $(( $(date +%s) - start )) s"
starts=$(grep -c "task 2 of 4" "$work"/deltaclue-audit-"${job}"_2.log || true)
[ "$starts" -ge 2 ] || fail "task 2 started $starts time(s); the requeue did not restart it"
for t in 0 1 2 3; do
  state=$(scontrol show job "${job}_$t" 2>/dev/null | grep -o 'JobState=[A-Z]*' | head -1)
  [ "$state" = JobState=COMPLETED ] || fail "task $t: $state"
done
"$work/deltaclue" audit merge "$work/array" > /dev/null || fail "the merge"
for f in items.jsonl summary.json summary.csv report.html; do
  cmp -s "$work/one/$f" "$work/array/$f" || fail "$f from the array differs from the one process's"
done
log "PASS: 4 Slurm tasks, task 2 requeued mid-way (started $starts times), merge identical to one process byte for byte ($(wc -l < "$work/array/items.jsonl") records)"

# A table (issue 41): the credit test split, every unsure applicant with Age locked, as an array of 2 tasks,
# merged and compared with one process, features.csv included.
tflags="-n 20 -lock Age"
log "one process: audit -models credit -data test $tflags"
# shellcheck disable=SC2086
"$work/deltaclue" audit -models credit -data test -out "$work/one-credit" -workers 1 $tflags 2> "$work/one-credit.log" > /dev/null || fail "the one-process audit of credit"
export MODELS=credit DATA=test OUT=$work/array-credit AUDIT_FLAGS=$tflags
start=$(date +%s)
job=$(sbatch --parsable --array=0-1 --chdir="$work" "$root/deploy/slurm/audit.sbatch")
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 1
done
[ -z "$(squeue -h -j "$job")" ] || fail "the credit array is still running after 10 minutes"
for t in 0 1; do
  state=$(scontrol show job "${job}_$t" 2>/dev/null | grep -o 'JobState=[A-Z]*' | head -1)
  [ "$state" = JobState=COMPLETED ] || fail "credit task $t: $state"
done
"$work/deltaclue" audit merge "$work/array-credit" > /dev/null || fail "the credit merge"
for f in items.jsonl summary.json summary.csv report.html features.csv; do
  cmp -s "$work/one-credit/$f" "$work/array-credit/$f" || fail "credit's $f from the array differs from the one process's"
done
log "PASS: the credit test split as 2 Slurm tasks in $(( $(date +%s) - start )) s, merged identical to one process byte for byte ($(wc -l < "$work/array-credit/items.jsonl") records)"
