#!/usr/bin/env bash
# A real, single-node SLURM cluster on this host (loopback only), to test the workflow's SLURM
# path end to end: munged, slurmctld and slurmd from Debian's slurm-wlm, no cgroups, no
# accounting database.
#
#   tools/local-slurm.sh install   # apt-get install slurm-wlm munge (needs root)
#   tools/local-slurm.sh start     # write the config under $UQVAL_SLURM_DIR, start the daemons
#   tools/local-slurm.sh status    # sinfo / squeue
#   tools/local-slurm.sh stop      # stop the daemons
#   tools/local-slurm.sh check [DIR]
#       run the quick profile through workflow/profiles/slurm in a fresh copy of this checkout
#       (DIR, default /tmp/uqval-slurm-check), then compare its tables byte for byte with a
#       local --cores 2 run of the same copy; exits non-zero on any difference.
#   tools/local-slurm.sh check-parts [DIR]
#       the same for a dataset given as Parquet parts (3 parts, 30 000 rows, a subsample of
#       10 000: one SLURM job per part and pass, the plan, the page): `validate` through the
#       profile, then locally, and its page's tables compared byte for byte.
#
# Jobs run as the calling user (root in CI containers). The daemons keep everything under
# $UQVAL_SLURM_DIR (default /tmp/uqval-slurm): state, logs, pid files; the configuration is
# /etc/slurm/slurm.conf (refused if a file not written by this script is already there).
set -euo pipefail

HERE="$(cd "$(dirname "$0")/.." && pwd)"
STATE="${UQVAL_SLURM_DIR:-/tmp/uqval-slurm}"
# The default location, so that every SLURM command (including srun inside the batch jobs the
# executor plugin submits) finds it without SLURM_CONF in its environment.
CONF=/etc/slurm/slurm.conf
MARK="# written by uqval tools/local-slurm.sh"
NODE="$(hostname -s)"

install() {
  if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    echo "slurm-wlm and munge already installed"
    return
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
}

write_config() {
  mkdir -p "$STATE"/{ctld,spool,log,run} "$(dirname "$CONF")"
  if [ -f "$CONF" ] && ! grep -qx "$MARK" "$CONF"; then
    echo "$CONF exists and was not written by this script; not touching it" >&2
    exit 1
  fi
  local cpus mem_mb
  cpus="$(nproc)"
  # Leave 1 GiB to the system.
  mem_mb="$(awk '/MemTotal/ {printf "%d", $2/1024 - 1024}' /proc/meminfo)"
  cat >"$CONF" <<EOF
$MARK
ClusterName=uqval-local
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# Finished jobs stay visible to squeue for an hour (no accounting database for sacct).
MinJobAge=3600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  install
  write_config
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  if ! pgrep -x munged >/dev/null; then
    if id munge >/dev/null 2>&1; then
      runuser -u munge -- /usr/sbin/munged
    else
      /usr/sbin/munged --force
    fi
  fi
  pgrep -x slurmctld >/dev/null || slurmctld -f "$CONF"
  pgrep -x slurmd >/dev/null || slurmd -f "$CONF" -N "$NODE"
  for _ in $(seq 1 30); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
      sinfo
      return
    fi
    sleep 1
  done
  echo "slurm did not come up; logs in $STATE/log" >&2
  tail -n 20 "$STATE"/log/*.log >&2 || true
  exit 1
}

stop() {
  for daemon in slurmd slurmctld; do
    if [ -f "$STATE/run/$daemon.pid" ]; then
      kill "$(cat "$STATE/run/$daemon.pid")" 2>/dev/null || true
    fi
    pkill -x "$daemon" 2>/dev/null || true
  done
  pkill -x munged 2>/dev/null || true
  echo "stopped"
}

status() {
  sinfo
  squeue
}

check() {
  local dir="${1:-/tmp/uqval-slurm-check}"
  local mirror="${UQVAL_DATA_MIRROR:-$(cd "$HERE/.." && pwd)/shared/data}"
  rm -rf "$dir" && mkdir -p "$dir/slurm"
  cd "$dir"
  local args=(--config data_mirror="$mirror" profile=quick)
  echo "== SLURM run (workflow/profiles/slurm, quick profile) in $dir/slurm"
  git -C "$HERE" archive HEAD | tar -x -C slurm/
  # Uncommitted changes of the working tree travel too, so this checks what is on disk.
  (cd "$HERE" && git ls-files -m -o --exclude-standard -z | xargs -0 -r cp --parents -t "$dir/slurm/")
  (cd slurm && time snakemake --profile workflow/profiles/slurm --jobs 8 \
      --slurm-status-command squeue --slurm-init-seconds-before-status-checks 5 \
      --seconds-between-status-checks 5 "${args[@]}")
  echo "== local run (--cores 2) in $dir/local"
  mkdir local && cp -r slurm/. local/ && rm -rf local/results local/data local/logs local/.snakemake
  (cd local && time snakemake --cores 2 "${args[@]}")
  echo "== compare tables and values"
  local differ=0 n=0
  while IFS= read -r f; do
    n=$((n + 1))
    if ! cmp -s "slurm/$f" "local/$f"; then
      echo "DIFFERS: $f"
      differ=1
    fi
  done < <(cd local && find results -name '*.csv' -o -name '*.json' -o -name '*.md' | grep -v -e '^results/benchmarks/' -e '^results/tables/runtimes.csv$' | sort)
  jobs_run="$(grep -c 'Submitted batch job\|Job .* has been submitted with SLURM jobid' slurm/.snakemake/log/*.log || true)"
  echo "$n tables compared; SLURM jobs submitted: $jobs_run"
  [ "$differ" = 0 ] && echo "SLURM and local outputs are byte-identical" || exit 1
}

check_parts() {
  local dir="${1:-/tmp/uqval-slurm-parts}"
  rm -rf "$dir" && mkdir -p "$dir/slurm"
  cd "$dir"
  git -C "$HERE" archive HEAD | tar -x -C slurm/
  (cd "$HERE" && git ls-files -m -o --exclude-standard -z | xargs -0 -r cp --parents -t "$dir/slurm/")
  # The dataset of tests/test_workflow_parts.py: three parts, two rows with uE = 0.
  (cd slurm && python - <<'PY'
from pathlib import Path
import numpy as np, pandas as pd, yaml
rng = np.random.default_rng(11)
Path("inputs/parts").mkdir(parents=True)
for k in range(3):
    u, x = rng.uniform(0.5, 2.0, 10_000), rng.uniform(0.0, 1.0, 10_000)
    e = u * (1.0 + 0.5 * x) * rng.standard_normal(10_000)
    if k == 1:
        u[[5, 77]] = 0.0
    pd.DataFrame({"err": e, "sigma": u, "temp": x}).to_parquet(f"inputs/parts/part-{k}.parquet")
Path("config/datasets/INPARTS.yaml").write_text(
    "family: INPARTS\ncitation: parts\ndatasets:\n  - id: big_parts\n"
    "    parts: ../../inputs/parts\n    quantities: {E: err, uE: sigma}\n"
    "    features: {temp: temp}\n")
Path("small.yaml").write_text(yaml.safe_dump({"profiles": {"quick": {"analysis": {"validate": {
    "parts_subsample": 10_000, "n_boot": 200, "n_permutations": 199}}}}}))
PY
  )
  local args=(validate --configfile small.yaml --config datasets=big_parts profile=quick)
  echo "== SLURM run (workflow/profiles/slurm) in $dir/slurm"
  (cd slurm && time snakemake --profile workflow/profiles/slurm --jobs 8 \
      --slurm-status-command squeue --slurm-init-seconds-before-status-checks 5 \
      --seconds-between-status-checks 5 "${args[@]}")
  echo "== local run (--cores 2) in $dir/local"
  mkdir local && cp -r slurm/. local/ && rm -rf local/results local/logs local/.snakemake
  (cd local && time snakemake --cores 2 "${args[@]}")
  echo "== compare the page's tables"
  local differ=0 n=0
  while IFS= read -r f; do
    n=$((n + 1))
    cmp -s "slurm/$f" "local/$f" || { echo "DIFFERS: $f"; differ=1; }
  done < <(cd local && find results/datasets/big_parts -name '*.csv' -o -name '*.json' -o -name '*.md' | sort)
  jobs_run="$(grep -c 'has been submitted with SLURM jobid\|Submitted batch job' slurm/.snakemake/log/*.log || true)"
  echo "$n tables compared; SLURM jobs submitted: $jobs_run"
  [ "$n" -gt 5 ] && [ "$differ" = 0 ] && echo "SLURM and local outputs are byte-identical" || exit 1
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  check) shift; check "$@" ;;
  check-parts) shift; check_parts "$@" ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
