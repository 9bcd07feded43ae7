#!/bin/sh
# Installs what nhood needs on Debian 12 (bookworm), Debian 13 (trixie),
# Debian testing/sid and Ubuntu 24.04 (noble).  Safe to re-run.
# --smpi also installs SimGrid (smpicc, smpirun) for make smpi / check-smpi
# and scripts/nhood-sim; --metis libmetis-dev (./configure --with-metis, METIS
# partitions for nhood-spmv); --clients the applications make check-clients
# runs (DOLFINx, PETSc and its examples, numpy; all on Open MPI); --slurm
# Slurm and munge for make check-slurm (which starts its own one-node
# cluster; the packages' services are not used); --platforms debootstrap,
# for make check-platforms (Debian 13 and sid roots); --modules Environment
# Modules and Lmod for make check-install's module cases.
# Package names that differ between releases are chosen per release below;
# any other system gets a message naming what to install by hand.
set -e
release=unknown
if [ -r /etc/os-release ]; then
    . /etc/os-release
    release="${ID:-?}:${VERSION_ID:-}"
fi
# PETSc's examples (check-clients builds one) carry PETSc's version in
# their name: fixed on a stable release, the current one on sid.
petsc_examples() {
    v=$(apt-cache depends petsc-dev 2>/dev/null | sed -n 's/.*libpetsc-real\([0-9.]*\)-dev.*/\1/p' | head -n 1)
    echo "libpetsc${v:-?}-dev-examples"
}
case "$release" in
    debian:12) petsc_ex=libpetsc3.18-dev-examples ;;
    debian:13) petsc_ex=libpetsc3.22-dev-examples ;;
    debian:) petsc_ex=resolve ;;      # testing and sid have no VERSION_ID
    ubuntu:24.04) petsc_ex=resolve ;; # the same names as Debian's
    *)
        echo "install-deps.sh: ${PRETTY_NAME:-this system ($release)} is not one it knows (Debian 12, 13, sid; Ubuntu 24.04)." >&2
        echo "Install by hand: an MPI library with its C compiler wrapper (MPICH and/or Open MPI), hwloc's headers, autoconf, automake, libtool, pkg-config, make and a C compiler; then: autoreconf -fi && ./configure MPICC=<your mpicc> && make" >&2
        exit 1 ;;
esac
pkgs="mpich libmpich-dev openmpi-bin libopenmpi-dev libhwloc-dev autoconf automake libtool pkg-config make gcc gnuplot-nox git"
# libdw: the overlap advisor names call sites (function+offset, file:line).
pkgs="$pkgs libdw-dev"
# Fortran tests (mpifort), make check-valgrind, make fuzz (libFuzzer:
# clang's runtime, whose versioned name each release's libclang-rt-dev
# points at).
pkgs="$pkgs gfortran valgrind clang libclang-rt-dev"
# mpi4py and numpy (Open MPI): test/clients/neighbors.py in make check-clients.
pkgs="$pkgs python3-mpi4py python3-numpy"
case " $* " in *" --smpi "*) pkgs="$pkgs libsimgrid-dev" ;; esac
case " $* " in *" --metis "*) pkgs="$pkgs libmetis-dev" ;; esac
case " $* " in *" --slurm "*) pkgs="$pkgs slurm-wlm munge" ;; esac
case " $* " in *" --platforms "*) pkgs="$pkgs debootstrap" ;; esac
# --modules: Environment Modules for make check-install's module cases,
# and Lmod's dependencies (Debian's lmod conflicts with environment-modules:
# its package is unpacked into /opt/nhood-lmod below, used from there).
case " $* " in *" --modules "*)
    pkgs="$pkgs tcl lua5.3 lua-posix lua-filesystem lua-json lua-term"
    dpkg-query -W -f='${Status}' lmod 2>/dev/null | grep -q "ok installed" || pkgs="$pkgs environment-modules" ;;
esac
case " $* " in *" --clients "*) pkgs="$pkgs python3-dolfinx petsc-dev PETSC_EXAMPLES" ;; esac
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing="" updated=""
for p in $pkgs; do
    if [ "$p" = PETSC_EXAMPLES ]; then
        p=$petsc_ex
        if [ "$p" = resolve ]; then
            [ -n "$updated" ] || { $SUDO apt-get update -qq && updated=1; }
            p=$(petsc_examples)
        fi
    fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    [ -n "$updated" ] || $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
if case " $* " in *" --modules "*) true ;; *) false ;; esac && [ ! -f /usr/share/lmod/lmod/libexec/lmod ] &&
    [ ! -f /opt/nhood-lmod/usr/share/lmod/lmod/libexec/lmod ]; then
    d=$(mktemp -d)
    (cd "$d" && apt-get download lmod >/dev/null 2>&1) && $SUDO mkdir -p /opt/nhood-lmod &&
        $SUDO dpkg -x "$d"/lmod_*.deb /opt/nhood-lmod
    rm -rf "$d"
fi
# Installing Open MPI flips the mpicc/mpirun alternatives: keep MPICH the default.
for alt in mpi mpirun; do
    target=$(update-alternatives --list $alt 2>/dev/null | grep -m1 mpich || true)
    [ -n "$target" ] && { [ "$(id -u)" -eq 0 ] && update-alternatives --set $alt "$target" >/dev/null 2>&1 || true; }
done
exit 0
