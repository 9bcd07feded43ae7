#!/bin/sh
# What the preloaded libraries export.  libnhood.so must define none of
# the C library's names (a program that preloads nhood keeps its own
# allocator, I/O and signal calls); NHOOD_OVERLAP's wrappers are in
# libnhood-overlap.so, which must export the C library names it wraps and
# nothing else.  libnhood.so answers both names of every MPI function it
# exports (MPI_X and PMPI_X: it sits beneath PMPI tools in any preload
# order) and binds no PMPI_ name through the dynamic linker: its own MPI
# calls go to the MPI library's functions (src/util/mpilib.h), never to a
# tool's nor back to its own; it exports every function of the MPI
# library's mpi.h, and the calls that take a request are its own entry
# points.  NHOOD_LIB: the built libnhood.so, TOP_BUILDDIR: the build tree
# (make check sets both).
# Prints TAP and "N passed, N failed".
lib=${NHOOD_LIB:-.libs/libnhood.so}
ov=$(dirname "$lib")/libnhood-overlap.so
pass=0 fail=0 n=0
result() { # ok|bad NAME [DETAIL]
    n=$((n + 1))
    if [ "$1" = ok ]; then
        pass=$((pass + 1))
        echo "ok $n - $2"
    else
        fail=$((fail + 1))
        echo "not ok $n - $2"
        [ -n "${3:-}" ] && echo "$3" | sed 's/^/#     /'
    fi
}
names() { nm -D --defined-only "$1" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u; }
# The C library the libraries are linked against.
libc=$(ldd "$lib" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3; exit }')
if [ ! -f "$lib" ] || [ ! -f "$ov" ] || [ ! -f "$libc" ]; then
    result bad "libraries found" "libnhood: $lib, overlap: $ov, libc: ${libc:-none}"
else
    names "$libc" >exports.libc.tmp
    both=$(names "$lib" | comm -12 - exports.libc.tmp)
    if [ -z "$both" ] && [ "$(names "$lib" | grep -c '^MPI_Init$')" -eq 1 ]; then
        result ok "libnhood.so exports MPI_Init and no name the C library defines"
    else
        result bad "libnhood.so exports names the C library defines" "$both"
    fi
    # What libnhood.so exports, by kind (a TAP comment for the log).
    names "$lib" | awk '/^MPIX?_[A-Z][a-z]/ { c++ } /^PMPIX?_/ { p++ } /^(mpi|mpix)_/ { f++ }
        /^MPI_[A-Z0-9_]+$/ { f++ } /^(nhood|Iso|Cart|Type)_/ { a++ }
        END { printf "# libnhood.so exports %d C MPI_ names, %d PMPI_ names, %d Fortran names, %d of its own API\n", c, p, f, a }'
    names "$lib" | grep '^MPI_[A-Z][a-z]' >exports.mpi.tmp
    nopmpi=$(names "$lib" | sed -n 's/^PMPI_/MPI_/p' | comm -13 - exports.mpi.tmp)
    if [ -z "$nopmpi" ] && [ "$(wc -l <exports.mpi.tmp)" -gt 100 ]; then
        result ok "libnhood.so exports PMPI_X beside each of its $(wc -l <exports.mpi.tmp) MPI_X"
    else
        result bad "libnhood.so exports PMPI_X beside each MPI_X" "$nopmpi"
    fi
    bound=$(nm -D --undefined-only "$lib" | awk '{ sub(/@.*/, "", $2); print $2 }' | grep '^PMPIX\?_')
    [ -z "$bound" ] && result ok "libnhood.so binds no PMPI_ name through the dynamic linker" ||
        result bad "libnhood.so binds PMPI_ names through the dynamic linker" "$bound"
    rm -f exports.mpi.tmp
    extra=$(names "$ov" | comm -23 - exports.libc.tmp)
    wrapped=$(names "$ov" | comm -12 - exports.libc.tmp | tr '\n' ' ')
    case " $wrapped" in
        *" free "*" malloc "*" read "*" sigaction "*" write "*)
            [ -z "$extra" ] && result ok "libnhood-overlap.so exports only C library names (malloc, read, sigaction, ...)" ||
                result bad "libnhood-overlap.so exports names of its own" "$extra" ;;
        *) result bad "libnhood-overlap.so wraps malloc, free, read, write and sigaction" "$wrapped" ;;
    esac
    rm -f exports.libc.tmp
    # Every function of the MPI library's mpi.h (the table generated from
    # it, src/util/mpilib_gen.h) is one of libnhood's names, nhood's own
    # entry point or a fence (src/overlap/fence_gen.h), so nothing a
    # program calls passes nhood by: all but those the fences leave out
    # (handle conversions, local queries, functions returning neither int
    # nor double).
    gen=${TOP_BUILDDIR:-.}/src/util/mpilib_gen.h fence=${TOP_BUILDDIR:-.}/src/overlap/fence_gen.h
    if [ -f "$gen" ] && [ -f "$fence" ]; then
        names "$lib" >exports.all.tmp
        table=$(sed -n 's/^NH_LIB_FN(\(int\|double\), \([A-Za-z0-9_]*\),.*/\2/p' "$gen" |
            grep -Ev '(c2f|f2c|f082|2f08|toint|fromint)' |
            grep -Ev '^MPI_(Wtime|Wtick|Comm_rank|Comm_size|Initialized|Finalized|Query_thread|Is_thread_main|Get_version|Get_library_version|Type_size|Type_get_extent|Type_get_true_extent)$' | sort -u)
        missing=$(echo "$table" | comm -23 - exports.all.tmp)
        n_table=$(echo "$table" | wc -l)
        [ -z "$missing" ] && [ "$n_table" -gt 100 ] &&
            result ok "libnhood.so exports every one of the $n_table functions of the MPI library's mpi.h (intercepted or fenced)" ||
            result bad "functions of mpi.h libnhood.so does not export" "$missing"
        # Calls that take a request a program may have from nhood are
        # nhood's own entry points, not fences that pass them to MPI (new
        # ones in a newer mpi.h fail here until they are added to
        # src/intercept/functions.h); stream-enqueued waits (MPICH's
        # MPIX_Wait_enqueue) take only requests of enqueued operations.
        consumers=$(echo "$table" | grep -E '^MPIX?_(Wait|Test|Request_get_status|Request_free|Request_is_complete|Cancel|Start$|Startall$)' |
            grep -Ev '^(MPI_Test_cancelled|MPIX_Wait_enqueue|MPIX_Waitall_enqueue)$')
        fenced=$(for f in $consumers; do grep -q "^NH_FENCE_FN([a-z]*, $f," "$fence" && echo "$f"; done)
        [ -z "$fenced" ] &&
            result ok "the $(echo "$consumers" | wc -w) calls of mpi.h that take a request are nhood's: $(echo $consumers)" ||
            result bad "calls of mpi.h that take a request, passed to MPI by a fence" "$fenced"
        rm -f exports.all.tmp
    fi
fi
echo "$pass passed, $fail failed"
echo "1..$n"
[ "$fail" -eq 0 ]
