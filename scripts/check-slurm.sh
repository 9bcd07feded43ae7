#!/bin/sh
# make check-slurm: nhood-run under a real Slurm.  As root, starts a
# one-node cluster from Debian's packages (munged where none runs, then
# slurmctld and slurmd on a configuration written here, in a scratch
# directory: proctrack/linuxproc, task/none, OverSubscribe=FORCE) and
# stops everything it started.  Cases, each checked by nhood's report
# (NHOOD_REPORT=1: the ranks' neighborhood collectives ran under nhood):
#   srun directly:  nhood-run srun --mpi=pmi2 (MPICH, 4 ranks) and
#                   --mpi=pmix (Open MPI, 8 ranks)
#   sbatch, salloc: nhood-run mpiexec inside the allocation (MPICH's
#                   Hydra at 4 ranks, Open MPI's mpirun at 8)
#   the site-wide module: module load nhood-site, then srun alone
#                   (SRUN_EXPORT_ENV preloads nhood); NHOOD_DISABLE=1 off
# The Open MPI cases use the Open MPI build of nhood
# (scripts/build-openmpi.sh); without Open MPI they are skipped.  Prints
# TAP and "N passed, N failed"; without root or Slurm, one skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
pass=0 fail=0 n=0
ok() { pass=$((pass + 1)) n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    fail=$((fail + 1)) n=$((n + 1))
    echo "not ok $n - $1"
    [ -f "${2:-}" ] && tail -n 15 "$2" | awk '{ print "#     " $0 }'
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
finish() { echo "$pass passed, $fail failed"; echo "1..$n"; exit $((fail > 0)); }

for c in slurmctld slurmd srun sbatch salloc sinfo munged; do
    command -v $c >/dev/null 2>&1 || { skip "slurm" "$c not found (scripts/install-deps.sh --slurm)"; finish; }
done
[ "$(id -u)" -eq 0 ] || { skip "slurm" "starting slurmctld, slurmd and munged needs root"; finish; }
lib=$top/.libs/libnhood.so
[ -f "$lib" ] || { notok "libnhood.so built (make)"; finish; }
prog=$top/test/mpi/test_neighbor
[ -x "$prog" ] || make -C "$top" test/mpi/test_neighbor >/dev/null 2>&1

work=$(mktemp -d "${TMPDIR:-/tmp}/nhood-slurm.XXXXXX")
chmod 755 "$work"
started=
stop() {
    for d in slurmd slurmctld; do
        [ -f "$work/$d.pid" ] && kill "$(cat "$work/$d.pid")" 2>/dev/null
    done
    case "$started" in *munged*) kill "$(cat "$work/munged.pid")" 2>/dev/null ;; esac
    sleep 1
    rm -rf "$work"
}
trap stop EXIT
trap 'exit 1' INT TERM

# munged: the system's where one runs, else one of our own on the
# system's socket (Slurm's auth/munge looks there).
if ! munge -n </dev/null >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null
    [ -f /etc/munge/munge.key ] || { skip "slurm" "no /etc/munge/munge.key"; finish; }
    munged --force --pid-file="$work/munged.pid" 2>"$work/munged.err" || {
        notok "munged started" "$work/munged.err"
        finish
    }
    started="$started munged"
    sleep 1
fi

host=$(hostname)
# ports of our own, away from a cluster's 6817/6818
port=$((20000 + $$ % 20000))
mkdir -p "$work/spool" "$work/state"
cat >"$work/slurm.conf" <<EOF
ClusterName=nhoodtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmdSpoolDir=$work/spool
StateSaveLocation=$work/state
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
JobCompType=jobcomp/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=nhood Nodes=ALL Default=YES OverSubscribe=FORCE MaxTime=30 State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || { notok "slurmctld and slurmd started" "$work/slurmctld.log"; finish; }
up=
for _ in $(seq 30); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 1
done
[ -n "$up" ] || { notok "the node is up (sinfo)" "$work/slurmd.log"; finish; }
ok "one-node Slurm started (slurmctld, slurmd$started)"

export NHOOD_REPORT=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# reported OUT: the job's output shows nhood's report from its ranks
# (rank 0's lines for the test's graphs) and the test's own success.
reported() { grep -q '^nhood: comm=[0-9]* op=alltoall pattern=isomorphic' "$1"; }

# case NAME LIB CMD...: runs CMD (nhood-run and its launcher) in $work.
case_run() {
    name=$1 lib=$2
    shift 2
    out="$work/$(echo "$name" | tr -c 'a-zA-Z0-9\n' _).out"
    if (cd "$work" && NHOOD_LIB=$lib timeout 300 "$@") >"$out" 2>&1 && reported "$out"; then
        ok "$name"
    else
        notok "$name" "$out"
    fi
}
run="sh $top/scripts/nhood-run"
# batch_run NAME LIB NP LAUNCHER PROG: a batch script running nhood-run
# LAUNCHER -n NP PROG, submitted with sbatch --wait; its output judged.
batch_run() {
    name=$1 out="$work/job$3.out"
    cat >"$work/job$3.sh" <<EOF
#!/bin/sh
#SBATCH -n $3
#SBATCH -O
$run $4 -n $3 $5
EOF
    if (cd "$work" && NHOOD_LIB=$2 timeout 300 sbatch --wait -o "$out" "$work/job$3.sh") \
        >"$out.submit" 2>&1 && reported "$out"; then
        ok "$name"
    else
        cat "$out.submit" >>"$out" 2>/dev/null
        notok "$name" "$out"
    fi
}

case_run "srun --mpi=pmi2 -n 4 (MPICH): nhood-run srun" "$lib" \
    $run srun -O --mpi=pmi2 -n 4 "$prog"
case_run "salloc -n 4: nhood-run mpiexec.mpich -n 4 (MPICH)" "$lib" \
    salloc -O -n 4 $run mpiexec.mpich -n 4 "$prog"
batch_run "sbatch -n 4: nhood-run mpiexec.mpich -n 4 (MPICH)" "$lib" 4 mpiexec.mpich "$prog"

# The site-wide module (nhood-site, installed here into a scratch prefix):
# srun alone preloads nhood into its tasks through SRUN_EXPORT_ENV, the
# shell and srun untouched; NHOOD_DISABLE=1 in the job's environment
# turns it off (the program still passes, and no report).
modcmd=$(sh "$here/modulecmd.sh" tcl || sh "$here/modulecmd.sh" lmod)
if [ -z "$modcmd" ]; then
    skip "module load nhood-site; srun" "no Environment Modules or Lmod (scripts/install-deps.sh --modules)"
elif ! make -C "$top" install prefix="$work/prefix" >"$work/install.log" 2>&1; then
    notok "make install into a scratch prefix" "$work/install.log"
else
    # site OUT [VAR=VALUE]: module load nhood-site, then srun -n 4 the test.
    site() {
        (cd "$work" && env MODULEPATH="$work/prefix/share/modulefiles" ${2:-} sh -c '
            eval "$($1 sh load nhood-site)" && [ -z "${LD_PRELOAD:-}" ] &&
                echo "SRUN_EXPORT_ENV=$SRUN_EXPORT_ENV" &&
                timeout 300 srun -O --mpi=pmi2 -n 4 "$2"' sh "$modcmd" "$prog") >"$1" 2>&1
    }
    out=$work/site.out
    if site "$out" && reported "$out"; then
        ok "module load nhood-site; srun --mpi=pmi2 -n 4 (no nhood-run): nhood's schedule"
    else
        notok "module load nhood-site; srun --mpi=pmi2 -n 4 (no nhood-run): nhood's schedule" "$out"
    fi
    out=$work/site-off.out
    if site "$out" NHOOD_DISABLE=1 && grep -qx 'nhood: off reason=NHOOD_DISABLE=1 (every call went to MPI)' "$out" &&
        ! reported "$out" && grep -q ' passed, 0 failed' "$out"; then
        ok "module load nhood-site; NHOOD_DISABLE=1 srun: nhood off, the test passes"
    else
        notok "module load nhood-site; NHOOD_DISABLE=1 srun: nhood off, the test passes" "$out"
    fi
fi

if command -v mpirun.openmpi >/dev/null 2>&1 && odir=$(sh "$here/build-openmpi.sh" 2>"$work/ompi.err"); then
    olib=$odir/.libs/libnhood.so oprog=$odir/test/mpi/test_neighbor
    [ -x "$oprog" ] || make -C "$odir" test/mpi/test_neighbor >/dev/null 2>&1
    case_run "srun --mpi=pmix -n 8 (Open MPI): nhood-run srun" "$olib" \
        $run srun -O --mpi=pmix -n 8 "$oprog"
    case_run "salloc -n 8: nhood-run mpirun.openmpi -n 8 (Open MPI)" "$olib" \
        salloc -O -n 8 $run mpirun.openmpi -n 8 "$oprog"
    batch_run "sbatch -n 8: nhood-run mpirun.openmpi -n 8 (Open MPI)" "$olib" 8 mpirun.openmpi "$oprog"
    # Open MPI's launcher under a plain name, as a module loads it.
    mkdir -p "$work/bin" && ln -s "$(command -v mpirun.openmpi)" "$work/bin/mpirun"
    case_run "nhood-run with Open MPI's launcher named plain mpirun" "$olib" \
        env MPIEXEC="$work/bin/mpirun" $run -n 2 "$oprog"
else
    skip "Open MPI under Slurm" "no Open MPI build of nhood ($(head -n 1 "$work/ompi.err" 2>/dev/null))"
fi
finish
