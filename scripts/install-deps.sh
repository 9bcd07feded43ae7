#!/bin/sh
# Installs what nhood needs on Debian 12.  Safe to re-run.
# --smpi also installs SimGrid (smpicc, smpirun) for make smpi / check-smpi
# and scripts/nhood-sim; --metis libmetis-dev (./configure --with-metis, METIS
# partitions for nhood-spmv); --clients the applications make check-clients
# runs (DOLFINx, PETSc and its examples, numpy; all on Open MPI); --slurm
# Slurm and munge for make check-slurm (which starts its own one-node
# cluster; the packages' services are not used).
set -e
pkgs="mpich libmpich-dev openmpi-bin libopenmpi-dev libhwloc-dev autoconf automake libtool pkg-config make gcc gnuplot-nox git"
# libdw: the overlap advisor names call sites (function+offset, file:line).
pkgs="$pkgs libdw-dev"
# Fortran tests (mpifort), make check-valgrind, make fuzz (libFuzzer).
pkgs="$pkgs gfortran valgrind clang libclang-rt-14-dev"
# mpi4py and numpy (Open MPI): test/clients/neighbors.py in make check-clients.
pkgs="$pkgs python3-mpi4py python3-numpy"
case " $* " in *" --smpi "*) pkgs="$pkgs libsimgrid-dev" ;; esac
case " $* " in *" --metis "*) pkgs="$pkgs libmetis-dev" ;; esac
case " $* " in *" --slurm "*) pkgs="$pkgs slurm-wlm munge" ;; esac
case " $* " in *" --clients "*) pkgs="$pkgs python3-dolfinx petsc-dev libpetsc3.18-dev-examples" ;; esac
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
# Installing Open MPI flips the mpicc/mpirun alternatives: keep MPICH the default.
for alt in mpi mpirun; do
    target=$(update-alternatives --list $alt 2>/dev/null | grep -m1 mpich || true)
    [ -n "$target" ] && { [ "$(id -u)" -eq 0 ] && update-alternatives --set $alt "$target" >/dev/null 2>&1 || true; }
done
exit 0
