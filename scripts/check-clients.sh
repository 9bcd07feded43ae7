#!/bin/sh
# Debian's MPI applications and bindings (all on Open MPI) with the Open
# MPI build of nhood preloaded (scripts/build-openmpi.sh; one already at
# HEAD is reused), each against the same run without nhood:
#   mpi4py   test/clients/neighbors.py at 1, 2, 4, 8 ranks: neighborhood
#            collectives on Cartesian, graph and duplicated communicators
#            and an in-place Alltoallv, checked with numpy;
#   dolfinx  test/clients/poisson.py at 2, 4 and 8 ranks: CG iterations equal,
#            norms equal to 1e-10 relative, 200 ghost scatters right;
#   petsc    PetscSF examples and a KSP solve with -sf_type neighbor
#            (MPI_Ineighbor_alltoallv): outputs equal.
# Each case also checks nhood's report (NHOOD_REPORT=1): nhood was on and
# ran the application's neighborhood collectives.  One line per case, ok
# or not ok, then a count.  A missing package is a skip, not a pass.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dir=$(sh "$here/build-openmpi.sh") || exit 2
lib=$dir/.libs/libnhood.so
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/nhood-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_mpi_yield_when_idle=1
pass=0 fail=0 skip=0
# After each ok: what nhood's report says, one line per (operation,
# pattern, algorithm, window, progress, why) with the number of
# communicators and calls: what auto chose and why.
ok() {
    pass=$((pass + 1))
    echo "ok $1"
    grep '^nhood: comm=' nhood.err | tr ' ' '\n' | awk -F= '
        $1 == "nhood:" { if (key != "") emit(); key = ""; calls = 0; why = "" }
        $1 == "op" || $1 == "pattern" || $1 == "algorithm" || $1 == "window_us" || $1 == "progress" { key = key " " $0 }
        $1 == "why" { why = " " $0 }
        $1 == "calls" { calls = $2 }
        function emit() { k = key why; n[k]++; c[k] += calls }
        END { if (key != "") emit(); for (k in n) printf "    #%s: %d comms, %d calls\n", k, n[k], c[k] }' |
        sort
    # graph creation summed over every graph the run created (rank 0):
    # under nhood and MPI's own part
    sed -n 's/^nhood: \(graphs=.*\)/    # creation: \1/p' nhood.err
}
bad() {
    fail=$((fail + 1))
    echo "not ok $1"
    cat native.out nhood.out nhood.err 2>/dev/null | grep -v '^INFO:' | tail -15 | sed 's/^/    /'
}
skip() { skip=$((skip + 1)); echo "skip $1"; }
# run NP ARGS...: the program natively (native.out) and under nhood
# (nhood.out, nhood.err with the report).
run() {
    np=$1
    shift
    timeout 300 mpirun.openmpi -np "$np" "$@" >native.out 2>native.err &&
        timeout 300 mpirun.openmpi -np "$np" -x LD_PRELOAD="$lib" -x NHOOD_REPORT=1 "$@" \
            >nhood.out 2>nhood.err &&
        ! grep -q '^nhood: off' nhood.err
}
# report PATTERN: nhood's report has a line matching it (ERE).
report() { grep -Eq "^nhood: comm=[0-9]+ ($1)" nhood.err; }
# ran OP: nhood's own schedules ran calls of OP on an isomorphic graph:
# the algorithm used most, or one in the mix (learning's trials of a
# short run, or MPI's own measured faster, leave some with MPI).
ran() {
    a='(direct|torus|torus_direct|bruck)'
    report "op=$1 pattern=isomorphic .*(algorithm=$a |mix=([^ ]*,)?$a:)"
}

# mpi4py + numpy
if $py -c 'import mpi4py, numpy' 2>/dev/null; then
    for np in 1 2 4 8; do
        if run $np $py "$top/test/clients/neighbors.py" &&
            grep -q '^neighbors.py thread level 3, ok$' nhood.out &&
            ran alltoall && ran ialltoallv &&
            report 'dup_of=[0-9]+ op=alltoallv pattern=isomorphic ' &&
            report 'op=inplace_alltoallv pattern=inplace procs='$np; then
            ok "mpi4py neighbors.py np=$np"
        else bad "mpi4py neighbors.py np=$np"; fi
    done
else
    skip "mpi4py (python3-mpi4py or python3-numpy not installed)"
fi

# DOLFINx: the solve's figures, native against nhood.
same_solve() {
    awk 'NR == FNR { v[$1] = $2; next }
         $1 == "cg_iterations" || $1 == "dofs" || $1 == "thread_level" || $1 == "ghosts" { if (v[$1] != $2) bad = 1; n++ }
         $1 == "l2" || $1 == "energy" { d = $2 - v[$1]; if (d < 0) d = -d; if (d > 1e-10 * (v[$1] < 0 ? -v[$1] : v[$1])) bad = 1; n++ }
         END { exit bad || n != 6 }' native.out nhood.out
}
if $py -c 'import dolfinx' 2>/dev/null; then
    for np in 2 4 8; do
        # The scatters' MPI_Ineighbor_alltoallv: 200 forward, 20 reverse.
        if run $np $py "$top/test/clients/poisson.py" 122 200 &&
            grep -q '^ghosts ok$' nhood.out && same_solve &&
            report 'op=ialltoallv .*calls=200 '; then
            ok "dolfinx poisson np=$np $(grep -E '^(dofs|cg_iterations)' nhood.out | tr '\n' ' ')"
        else bad "dolfinx poisson np=$np"; fi
    done
else
    skip "dolfinx (python3-dolfinx not installed)"
fi

# PETSc: PetscSF's neighbor type (MPI_Ineighbor_alltoallv on a distributed
# graph) in its own examples and in a CG solve's MatMult.
ex=/usr/share/petsc/3.18/share/petsc/examples/src
if command -v pkg-config >/dev/null && pkg-config --exists PETSc && [ -d "$ex" ]; then
    cc() { mpicc.openmpi -O1 -o "$1" "$ex/$2.c" $(pkg-config --cflags --libs PETSc); }
    built=0
    cc sf_ex1 vec/is/sf/tutorials/ex1 && cc sf_ex9 vec/is/sf/tests/ex9 &&
        cc ksp_ex2 ksp/ksp/tutorials/ex2 && built=1
    if [ $built = 1 ]; then
        for t in bcast reduce gather scatter embed degree fetchandop invert; do
            if run 4 ./sf_ex1 -test_$t -sf_type neighbor && cmp -s native.out nhood.out &&
                [ -s native.out ] && report 'op=i?alltoallv '; then
                ok "petsc sf tutorials/ex1 -test_$t -sf_type neighbor np=4"
            else bad "petsc sf tutorials/ex1 -test_$t np=4"; fi
        done
        for t in world2sub sub2sub world2subs; do
            if run 7 ./sf_ex9 -$t -sf_type neighbor && cmp -s native.out nhood.out &&
                [ -s native.out ] && report 'op=ialltoallv '; then
                ok "petsc sf tests/ex9 -$t -sf_type neighbor np=7"
            else bad "petsc sf tests/ex9 -$t np=7"; fi
        done
        for np in 2 4; do
            if run $np ./ksp_ex2 -m 120 -n 120 -sf_type neighbor -ksp_type cg -pc_type jacobi \
                -ksp_monitor -ksp_converged_reason && cmp -s native.out nhood.out &&
                grep -q 'CONVERGED_RTOL' nhood.out && report 'op=ialltoallv .*calls=[0-9]{3} '; then
                ok "petsc ksp tutorials/ex2 cg -sf_type neighbor np=$np $(grep -o -m1 'iterations [0-9]*$' nhood.out)"
            else bad "petsc ksp tutorials/ex2 np=$np"; fi
        done
    else
        bad "petsc examples build"
    fi
else
    skip "petsc (petsc-dev or libpetsc3.18-dev-examples not installed)"
fi

[ $skip -eq 0 ] || echo "$skip skipped (scripts/install-deps.sh --clients installs them)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
