#!/bin/sh
# make check-platforms: nhood on the Debian releases users have now, each
# in a root made with debootstrap from Debian's registry, with that
# release's MPICH and Open MPI from apt.  For each release: the working
# tree copied in, built against each MPI (gcc of the release), and the
# platform subset run on each build (make check-platform-subset: the unit
# tests, the exports and layers checks, run-mpi-tests.sh platform, the GPU
# stub cases, the tool tests), then the demo, whose report must show
# nhood's schedule by default (no promise, no GPU: not why=gpu_runtime).
# On sid also the MPI-5 standard ABI build (./configure --with-mpi-abi),
# run under the ABI layers of both libraries.
# Usage: check-platforms.sh [--cache DIR [--prepare]] [--mirror URL] [RELEASE...]
#   RELEASE    trixie (Debian 13, the default) and/or sid
#   --cache    keep the roots in DIR and reuse them while their package
#              list is unchanged (without it they are made in a scratch
#              folder and removed at the end; about 3 GB and 5 minutes each)
#   --prepare  only make the roots in DIR (CI makes them in the background
#              while its other suites run, which need little network)
# Needs root (debootstrap, mount, chroot): scripts/install-deps.sh
# --platforms.  Everything it mounts is unmounted on exit, also on error or
# interrupt.  Prints TAP, one "platform ..." summary line per release and
# library, and "N passed, N failed".
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
mirror=http://deb.debian.org/debian
cache="" releases="" prepare=""
while [ $# -gt 0 ]; do
    case "$1" in
    --cache) cache=$2 && shift 2 ;;
    --mirror) mirror=$2 && shift 2 ;;
    --prepare) prepare=1 && shift ;;
    trixie | sid) releases="$releases $1" && shift ;;
    *) echo "check-platforms: unknown argument $1 (releases: trixie sid)" >&2 && exit 2 ;;
    esac
done
releases=${releases:-trixie}
[ -z "$prepare" ] || [ -n "$cache" ] || { echo "check-platforms: --prepare needs --cache DIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "check-platforms: needs root (debootstrap, mount, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "check-platforms: no debootstrap: run scripts/install-deps.sh --platforms" >&2; exit 2; }

pass=0 fail=0 n=0
ok() { pass=$((pass + 1)) n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    fail=$((fail + 1)) n=$((n + 1))
    echo "not ok $n - $1"
    [ -f "${2:-}" ] && tail -n 25 "$2" | awk '{ print "#     " $0 }'
}

if [ -n "$cache" ]; then
    mkdir -p "$cache" && work=$(cd "$cache" && pwd)
else
    work=$(mktemp -d /var/tmp/nhood-platforms.XXXXXX)
fi
mounts="" # mount points, last mounted first
unmount_all() {
    for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m"; done
    mounts=""
}
cleanup() {
    unmount_all
    [ -n "$cache" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Mounted privately, so nothing mounted inside reaches the host's /dev.
mount_root() { # ROOT
    for m in proc sys dev; do
        mount --bind "/$m" "$1/$m" && mount --make-private "$1/$m" && mounts="$1/$m $mounts"
    done
    mount -t devpts devpts "$1/dev/pts" && mounts="$1/dev/pts $mounts"
    mount -t tmpfs tmpfs "$1/dev/shm" && mounts="$1/dev/shm $mounts"
}
in_root() { # ROOT COMMAND: run under the root with a clean environment
    chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -c "$2"
}

# What each root holds: the build tools, both MPIs with their Fortran
# wrappers, hwloc and libdw (nhood's optional parts), gfortran.
pkgs="build-essential autoconf automake libtool pkg-config libhwloc-dev libdw-dev gfortran \
mpich libmpich-dev openmpi-bin libopenmpi-dev ca-certificates"

make_root() { # RELEASE ROOT LOG
    want="$1 $mirror $pkgs"
    if [ -f "$2/.nhood-root" ] && [ "$(cat "$2/.nhood-root")" = "$want" ]; then
        mount_root "$2"
        return 0
    fi
    rm -rf "$2"
    debootstrap --variant=minbase "$1" "$2" "$mirror" >"$3" 2>&1 || return 1
    # sid's Release file may be past its date in a registry's snapshot
    [ "$1" = sid ] && echo 'Acquire::Check-Valid-Until "false";' >"$2/etc/apt/apt.conf.d/99nhood"
    mount_root "$2"
    in_root "$2" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends $pkgs" >>"$3" 2>&1 || return 1
    echo "$want" >"$2/.nhood-root"
}

# The working tree (tracked and untracked files, not ignored ones).
copy_tree() { # ROOT
    rm -rf "$1/nhood" && mkdir -p "$1/nhood/src" &&
        (cd "$src" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) |
        tar -xf - -C "$1/nhood/src"
}

# build RELEASE ROOT NAME CONFIGURE-ARGS: /nhood/build-NAME, no warnings.
build() {
    log=$work/$1-$3.log
    if in_root "$2" "mkdir -p /nhood/build-$3 && cd /nhood/build-$3 && ../src/configure -q $4 && \
        make -j$(nproc)" >"$log" 2>&1; then
        warnings=$(grep -c 'warning:' "$log")
        [ "$warnings" -eq 0 ] && ok "$1 $3: built, no compiler warnings" ||
            bad "$1 $3: built with $warnings compiler warnings" "$log"
    else
        bad "$1 $3: build" "$log"
        return 1
    fi
}

# subset RELEASE ROOT BUILD NAME LAUNCHER [ENV]: the platform subset of
# /nhood/build-BUILD under LAUNCHER (and ENV), then the demo, whose report
# must show nhood's schedule; one summary line.
subset() {
    rel=$1 root=$2 b=/nhood/build-$3 name=$4 launcher=$5 env=${6:-}
    log=$work/$rel-$name.log
    lib=$(in_root "$root" "$env cd $b && ./nhood-info 2>/dev/null | sed -n 's/^mpi_library *//p' | tr -s ' ' | sed 's/,.*//'")
    in_root "$root" "$env cd $b && make -j$(nproc) check-platform-subset MPIEXEC=$launcher" \
        >"$log.check" 2>&1
    for t in test/mpi/run-platform-tests test/mpi/run-gpu-tests test/mpi/run-tool-tests \
        test/unit/check-exports test/unit/check-layers; do
        cat "$root$b/$t.log" 2>/dev/null
    done >"$log.tap"
    p=$(grep -c '^ok ' "$log.tap") f=$(grep -c '^not ok ' "$log.tap")
    grep '^not ok ' "$log.tap" | sed "s/^/# $rel $name: /"
    w=$(grep -c 'warning:' "$log.check")
    if grep -q '^# FAIL: *0$' "$log.check" && grep -q '^# ERROR: *0$' "$log.check" &&
        [ "$w" -eq 0 ]; then
        ok "$rel $name: platform subset, $p cases passed, test programs built without warnings"
    elif [ "$w" -gt 0 ]; then
        bad "$rel $name: test programs built with $w compiler warnings" "$log.check"
    else
        bad "$rel $name: platform subset, $p passed, $f failed" "$log.check"
    fi
    # (the CSV and the report apart: lines of one written into the other's
    # lost the 4 KiB row)
    in_root "$root" "$env cd $b && NHOOD_REPORT=1 make demo MPIEXEC=$launcher" >"$log.demo" 2>"$log.demo.err"
    r8=$(awk -F, '$1 == "alltoall" && $6 == 8 { print $10 }' "$log.demo")
    r4=$(awk -F, '$1 == "alltoall" && $6 == 4096 { print $10 }' "$log.demo")
    # nhood's schedule: the last call's (4 KiB) or, where the learning found
    # MPI's own faster there, the 8 B decision (nhood's by 5x everywhere).
    if grep -Eq '^nhood: (comm=[0-9]+ op=alltoall .*|autotune comm=[0-9]+ op=alltoall bytes=8 )algorithm=(direct|torus|torus_direct|bruck)[ /]' "$log.demo.err" &&
        ! grep -q 'why=gpu_runtime' "$log.demo.err" && [ -n "$r8" ]; then
        ok "$rel $name: the demo runs nhood's schedule (8 B $r8, 4 KiB $r4)"
    else
        bad "$rel $name: the demo runs nhood's schedule" "$log.demo.err"
    fi
    echo "platform $rel $name ($lib): $p passed, $f failed; demo 8 B ${r8:-?}, 4 KiB ${r4:-?}"
}

for rel in $releases; do
    root=$work/$rel
    if ! make_root "$rel" "$root" "$work/$rel-root.log"; then
        bad "$rel: root made with debootstrap and apt" "$work/$rel-root.log"
        unmount_all
        continue
    fi
    if [ -n "$prepare" ]; then
        ok "$rel: root prepared in $root"
        unmount_all
        continue
    fi
    ok "$rel: root ($(in_root "$root" "gcc -dumpfullversion"), MPICH $(in_root "$root" \
        "mpichversion -v 2>/dev/null | sed -n 's/^MPICH Version: *//p'"))"
    copy_tree "$root" && in_root "$root" "cd /nhood/src && autoreconf -fi" >"$work/$rel-autoreconf.log" 2>&1 ||
        { bad "$rel: autoreconf" "$work/$rel-autoreconf.log"; unmount_all; continue; }
    # Open MPI in a root: no network interface pairs for TCP; as root.
    ompi="export OMPI_MCA_btl=^tcp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;"
    build "$rel" "$root" mpich "MPICC=mpicc.mpich" && subset "$rel" "$root" mpich mpich mpiexec.mpich
    build "$rel" "$root" openmpi "MPICC=mpicc.openmpi" &&
        subset "$rel" "$root" openmpi openmpi mpiexec.openmpi "$ompi"
    # The MPI-5 ABI where the release has it: one build, run under each
    # library's ABI layer (libmpi_abi.so.1 chosen by LD_LIBRARY_PATH, as
    # the alternatives system would choose it for the whole machine).
    if in_root "$root" "ls /usr/lib/*/libmpi_abi_mpich.so.1* /usr/lib/*/libmpi_abi_openmpi.so.1*" >/dev/null 2>&1; then
        in_root "$root" 'for l in mpich openmpi; do mkdir -p /nhood/abi/$l && \
            ln -sf $(ls /usr/lib/*/libmpi_abi_$l.so.1* | head -n 1) /nhood/abi/$l/libmpi_abi.so.1; done'
        if build "$rel" "$root" abi "--with-mpi-abi"; then
            subset "$rel" "$root" abi abi-mpich mpiexec.mpich "export LD_LIBRARY_PATH=/nhood/abi/mpich;"
            subset "$rel" "$root" abi abi-openmpi mpiexec.openmpi \
                "$ompi export LD_LIBRARY_PATH=/nhood/abi/openmpi;"
        fi
    fi
    unmount_all
done
echo "$pass passed, $fail failed"
echo "1..$n"
[ "$fail" -eq 0 ]
