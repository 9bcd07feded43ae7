#!/bin/sh
# Writes nhood's environment modules and MPICH compiler profile for an
# installation (make install runs it; docs/installing.md):
#   OUT/modulefiles/nhood/VERSION           Environment Modules (Tcl)
#   OUT/modulefiles/nhood/VERSION.lua       Lmod (which prefers it)
#   OUT/modulefiles/nhood-site/VERSION(.lua) the same, and every srun
#       preloads nhood into its tasks (SRUN_EXPORT_ENV), never the shell
#   OUT/nhood/mpich/nhood.conf              mpicc -profile=.../nhood
# The paths written are the installation's (without DESTDIR).
# Usage: gen-modulefiles.sh OUT PREFIX BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR MANDIR VERSION
set -e
[ $# -eq 8 ] || { echo "usage: gen-modulefiles.sh OUT PREFIX BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR MANDIR VERSION" >&2; exit 2; }
out=$1 prefix=$2 bindir=$3 libdir=$4 incdir=$5 pcdir=$6 mandir=$7 version=$8
lib=$libdir/libnhood.so
what="nhood $version: faster MPI neighborhood collectives"

# tcl NAME SITE: an Environment Modules file (Lmod reads it too).
tcl() {
    echo '#%Module1.0'
    echo "## $1 $version, written by nhood's make install"
    echo "module-whatis {$what}"
    echo 'proc ModulesHelp { } {'
    echo "    puts stderr {$what.}"
    echo "    puts stderr {Run an MPI program under nhood: nhood-run mpiexec -n 4 ./app}"
    if [ "$2" = site ]; then
        echo "    puts stderr {srun preloads nhood into every task; NHOOD_DISABLE=1 turns it off.}"
    fi
    echo "    puts stderr {Settings: nhood-info; docs/installing.md in nhood's source.}"
    echo '}'
    echo "conflict $3"
    echo "setenv NHOOD_ROOT {$prefix}"
    echo "prepend-path PATH {$bindir}"
    echo "prepend-path LD_LIBRARY_PATH {$libdir}"
    echo "prepend-path PKG_CONFIG_PATH {$pcdir}"
    echo "prepend-path MANPATH {$mandir}"
    echo "# an empty entry: man still searches its own default places"
    echo "append-path MANPATH {}"
    if [ "$2" = site ]; then
        echo "# srun's tasks only (not the shell, not srun): Slurm reads --export from it"
        echo "pushenv SRUN_EXPORT_ENV {ALL,LD_PRELOAD=$lib}"
    fi
}

# lua NAME SITE OTHER: the same for Lmod.
lua() {
    echo "-- $1 $version, written by nhood's make install"
    echo "whatis(\"$what\")"
    echo "help([[$what."
    echo "Run an MPI program under nhood: nhood-run mpiexec -n 4 ./app"
    if [ "$2" = site ]; then
        echo "srun preloads nhood into every task; NHOOD_DISABLE=1 turns it off."
    fi
    echo "Settings: nhood-info; docs/installing.md in nhood's source.]])"
    echo "conflict(\"$3\")"
    echo "setenv(\"NHOOD_ROOT\", \"$prefix\")"
    echo "prepend_path(\"PATH\", \"$bindir\")"
    echo "prepend_path(\"LD_LIBRARY_PATH\", \"$libdir\")"
    echo "prepend_path(\"PKG_CONFIG_PATH\", \"$pcdir\")"
    echo "prepend_path(\"MANPATH\", \"$mandir\")"
    echo "-- an empty entry: man still searches its own default places"
    echo "append_path(\"MANPATH\", \"\")"
    if [ "$2" = site ]; then
        echo "-- srun's tasks only (not the shell, not srun): Slurm reads --export from it"
        echo "pushenv(\"SRUN_EXPORT_ENV\", \"ALL,LD_PRELOAD=$lib\")"
    fi
}

mkdir -p "$out/modulefiles/nhood" "$out/modulefiles/nhood-site" "$out/nhood/mpich"
tcl nhood personal nhood-site >"$out/modulefiles/nhood/$version"
lua nhood personal nhood-site >"$out/modulefiles/nhood/$version.lua"
tcl nhood-site site nhood >"$out/modulefiles/nhood-site/$version"
lua nhood-site site nhood >"$out/modulefiles/nhood-site/$version.lua"
cat >"$out/nhood/mpich/nhood.conf" <<EOF
# MPICH compiler-wrapper profile: mpicc -profile=DIR/nhood, DIR this
# file's directory (or -profile=nhood once it is in MPICH's sysconfdir,
# /etc/mpich on Debian), links nhood's PMPI layer before MPICH: no
# LD_PRELOAD at run time.
PROFILE_INCPATHS="-I$incdir"
PROFILE_PRELIB="-L$libdir -Wl,-rpath,$libdir -lnhood"
EOF
