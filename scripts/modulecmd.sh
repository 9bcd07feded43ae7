#!/bin/sh
# modulecmd.sh tcl|lmod: prints the command that evaluates modulefiles
# ("CMD sh load nhood" prints shell code) of Environment Modules (tcl) or
# Lmod (lmod), where one is installed (Lmod also unpacked into
# /opt/nhood-lmod by install-deps.sh --modules, since Debian's lmod and
# environment-modules packages conflict); exits 1 where none is.
case "${1:-}" in
    tcl)
        command -v tclsh >/dev/null 2>&1 || exit 1
        for c in /usr/share/modules/libexec/modulecmd.tcl /usr/lib/x86_64-linux-gnu/modulecmd.tcl \
            /usr/lib/modulecmd.tcl; do
            [ -f "$c" ] && { echo "tclsh $c"; exit 0; }
        done ;;
    lmod)
        for c in ${LMOD_CMD:-} /usr/share/lmod/lmod/libexec/lmod /opt/nhood-lmod/usr/share/lmod/lmod/libexec/lmod; do
            [ -f "$c" ] && { echo "$c"; exit 0; }
        done ;;
    *) echo "usage: modulecmd.sh tcl|lmod" >&2; exit 2 ;;
esac
exit 1
