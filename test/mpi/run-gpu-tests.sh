#!/bin/sh
# GPU buffers (test_gpu, docs/gpu.md) with stub runtimes that nhood takes
# for the real ones (test/gpu/stub.h): the CUDA driver, HIP and Level
# Zero, loaded on every rank or on rank 1 only, with a fake device folder
# (test/gpu/dev, NHOOD_GPU_DEV_DIR) holding their device nodes.
#  - Started by the program, with device or managed buffers: every rank
#    hands every neighborhood collective to MPI (why=gpu_runtime) with the
#    reference's results, and the buffers' guard pages see no access by
#    nhood (with no stub at all the guard does see nhood's copies: that
#    run must fail).
#  - Loaded but never started (as hwloc's plugins load them), or started
#    on a machine without the runtime's device nodes: nhood's schedule
#    runs, and nhood made no call that would start a runtime.
#  - The promise of host buffers (info key or NHOOD_HOST_BUFFERS) brings
#    nhood's schedules back, and NHOOD_CHECK stops a promised call whose
#    buffer is GPU memory with an error naming it (Level Zero, whose
#    buffers cannot be asked about: a warning that it cannot check); the
#    GPU buffers on rank 1 only, so that one rank says it (launchers may
#    cut two ranks' lines into each other).
# Output is TAP, then "N passed, N failed".
. "$(dirname "$0")/harness.sh"
stubs=$TOP_BUILDDIR/test/gpu/stub
devdir=$(cd "$TOP_BUILDDIR/test/gpu/dev" 2>/dev/null && pwd) || {
    echo "Bail out! no $TOP_BUILDDIR/test/gpu/dev: the build makes it with test_gpu (make check)"
    exit 1
}
nodev=$log.nodev # a device folder without any GPU's nodes
mkdir -p "$nodev"
init=$(grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile" && echo 1)

# gpu NAME NP "VARS" EXPECT STUB LOAD MEM [promise|idle]: test_gpu with
# STUB's library from test/gpu/stub (or none), the fake device folder
# unless VARS names one, and what must come out:
#   mpi    every call to MPI's exchange (why=gpu_runtime), nhood off the buffers
#   nhood  nhood's torus ran, no why=gpu_runtime
#   error  the job stopped with the error naming the call and the memory
#   touch  the run fails, the guard having seen nhood's own copies
gpu() {
    name=$1 np=$2 vars="NHOOD_ALGO=torus $3" expect=$4 stub=$stubs/$5
    shift 5
    case " $vars" in *" NHOOD_GPU_DEV_DIR="*) ;; *) vars="$vars NHOOD_GPU_DEV_DIR=$devdir" ;; esac
    [ "$expect" = error ] || [ "$expect" = touch ] || vars="$vars NHOOD_REPORT=1"
    run "$name" "$np" "$vars" "$t/test_gpu" "$stub" "$@"
    rc=$?
    case "$expect" in
    mpi)
        [ $rc -eq 0 ] && all_passed &&
            grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=pmpi .*why=gpu_runtime$' "$log.err" &&
            grep -Eq '^nhood: comm=[0-9]+ op=iallgatherv .*algorithm=pmpi .*why=gpu_runtime ' "$log.err" &&
            { [ -z "$init" ] || grep -Eq '^nhood: comm=[0-9]+ op=alltoallw_init .*algorithm=pmpi .*why=gpu_runtime ' "$log.err"; } &&
            ! grep -Eq '^nhood: comm=[0-9]+ op=.*algorithm=torus ' "$log.err" ;;
    nhood)
        [ $rc -eq 0 ] && all_passed &&
            grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=torus ' "$log.err" &&
            grep -Eq '^nhood: comm=[0-9]+ op=ialltoall .*algorithm=torus ' "$log.err" &&
            ! grep -q 'why=gpu_runtime' "$log.err" ;;
    error)
        mem=$2 promised="the info key nhood_host_buffers=true"
        case " $vars" in *" NHOOD_HOST_BUFFERS=1"*) promised="NHOOD_HOST_BUFFERS=1" ;; esac
        stopped $rc &&
            grep -q "^nhood: error: MPI_Neighbor_alltoall: the send buffer is GPU $mem memory, but $promised promised host buffers$" "$log.err" ;;
    touch)
        stopped $rc &&
            grep -q 'nhood touched guarded (device) buffers [1-9][0-9]* times, first from libnhood' "$log.err" ;;
    esac
}
check() { if gpu "$@"; then ok "$1"; else bad "$1"; fi; }

# The CUDA driver.
for np in 2 4; do
    for c in "all device" "1 managed"; do
        # shellcheck disable=SC2086
        check "gpu cuda np=$np stub on ranks '${c% *}', ${c#* } buffers: MPI's exchange, why=gpu_runtime, nhood keeps off them" \
            $np "NHOOD_INPLACE_AUXMEM=4096" mpi libcuda.so.1 $c
    done
done
# The driver loaded without a context (hwloc's plugins load it into every
# process of a GPU node): no buffer can be device memory, nhood runs.
check "gpu cuda np=2 stub on every rank without a CUDA context: nhood's schedule runs" \
    2 "" nhood libcuda.so.1 all host idle
check "gpu np=4 no stub, guarded buffers: the guard sees nhood's own copies (the run must fail)" \
    4 "NHOOD_BINDING=pack" touch none none device
check "gpu cuda np=2 the info key nhood_host_buffers=true promised, NHOOD_CHECK=1, device buffers: an error naming the call, the job stopped" \
    2 "NHOOD_CHECK=1" error libcuda.so.1 1 device promise
check "gpu cuda np=2 NHOOD_HOST_BUFFERS=1 promised, NHOOD_CHECK=1, managed buffers: an error naming the call, the job stopped" \
    2 "NHOOD_CHECK=1 NHOOD_HOST_BUFFERS=1" error libcuda.so.1 1 managed
check "gpu cuda np=4 host buffers promised (info key), NHOOD_CHECK=1: nhood's schedule runs" \
    4 "NHOOD_CHECK=1" nhood libcuda.so.1 all host promise
check "gpu cuda np=4 host buffers promised (NHOOD_HOST_BUFFERS=1), NHOOD_CHECK=1: nhood's schedule runs" \
    4 "NHOOD_CHECK=1 NHOOD_HOST_BUFFERS=1" nhood libcuda.so.1 all host
check "gpu np=4 no stub loaded: nhood's schedule runs" \
    4 "NHOOD_FALLBACK=warn" nhood none none host
# A driver with a context, on a machine without NVIDIA's device nodes
# (what a loaded driver there amounts to): nhood runs and never asks it.
check "gpu cuda np=2 a CUDA context but no device node: nhood's schedule runs" \
    2 "NHOOD_GPU_DEV_DIR=$nodev NHOOD_CHECK=1" nhood libcuda.so.1 all host

# HIP and Level Zero: loaded and started by the program (device or
# managed buffers: MPI's exchange on every rank, the agreement included),
# loaded only (nhood runs, starts nothing, NHOOD_CHECK asks nothing), the
# promise with NHOOD_CHECK.
for rt in hip:libamdhip64.so.6 ze:libze_loader.so.1; do
    n=${rt%%:*} so=${rt#*:}
    check "gpu $n np=2 started on every rank, device buffers: MPI's exchange, why=gpu_runtime, nhood keeps off them" \
        2 "" mpi "$so" all device
    check "gpu $n np=2 started on rank 1 only, managed buffers: MPI's exchange on every rank" \
        2 "" mpi "$so" 1 managed
    check "gpu $n np=2 loaded on every rank, never started, NHOOD_CHECK=1: nhood's schedule runs, nothing started" \
        2 "NHOOD_CHECK=1" nhood "$so" all host idle
    check "gpu $n np=2 started, no device node: nhood's schedule runs" \
        2 "NHOOD_GPU_DEV_DIR=$nodev" nhood "$so" all host
done
check "gpu hip np=2 the info key nhood_host_buffers=true promised, NHOOD_CHECK=1, device buffers: an error naming the call, the job stopped" \
    2 "NHOOD_CHECK=1" error libamdhip64.so.6 1 device promise
check "gpu hip np=2 host buffers promised (NHOOD_HOST_BUFFERS=1), NHOOD_CHECK=1: nhood's schedule runs" \
    2 "NHOOD_CHECK=1 NHOOD_HOST_BUFFERS=1" nhood libamdhip64.so.6 all host
name="gpu ze np=2 host buffers promised, NHOOD_CHECK=1: nhood's schedule runs, with a warning that it cannot check"
if gpu "$name" 2 "NHOOD_CHECK=1 NHOOD_HOST_BUFFERS=1" nhood libze_loader.so.1 all host &&
    grep -q '^nhood: warning: NHOOD_CHECK: Level Zero is in use here; nhood cannot tell its device buffers' "$log.err"; then
    ok "$name"
else bad "$name"; fi

# The real CUDA driver, where this machine has one and a device
# (test_gpu_real exits 77 elsewhere; the first case then skips them all):
# loaded on every rank, it sends managed and pinned host buffers alike to
# MPI's exchange; promised host buffers run nhood's schedule, the driver
# calling the pinned ones host under NHOOD_CHECK=1, and managed or device
# memory passed under the promise stops the job with an error naming it.
name="gpu np=2 real CUDA driver: managed and pinned buffers to MPI (why=gpu_runtime)"
if run "$name" 2 "NHOOD_ALGO=torus NHOOD_REPORT=1" "$t/test_gpu_real"; then
    if all_passed &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=pmpi .*calls=2 .*why=gpu_runtime$' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ op=iallgather .*algorithm=pmpi .*calls=2 .*why=gpu_runtime ' "$log.err"; then
        ok "$name"
    else bad "$name"; fi
    name="gpu np=2 real CUDA driver, host buffers promised, NHOOD_CHECK=1: pinned buffers run nhood's schedule"
    if run "$name" 2 "NHOOD_ALGO=torus NHOOD_REPORT=1 NHOOD_CHECK=1" "$t/test_gpu_real" promise &&
        all_passed &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=torus ' "$log.err" &&
        ! grep -q 'why=gpu_runtime' "$log.err"; then
        ok "$name"
    else bad "$name"; fi
    for mem in managed device; do
        name="gpu np=2 real CUDA driver, host buffers promised, NHOOD_CHECK=1, $mem memory: an error naming it"
        run "$name" 2 "NHOOD_ALGO=torus NHOOD_CHECK=1" "$t/test_gpu_real" promise $mem
        if stopped $? &&
            grep -q "^nhood: error: MPI_Neighbor_alltoall: the send buffer is GPU $mem memory, but the info key nhood_host_buffers=true promised host buffers$" "$log.err"; then
            ok "$name"
        else bad "$name"; fi
    done
elif grep -q 'no CUDA driver with a device here: skipped' "$log.err"; then
    skip "gpu real CUDA driver" "no CUDA driver with a device on this machine"
else bad "$name"; fi

rmdir "$nodev"
tap_end
