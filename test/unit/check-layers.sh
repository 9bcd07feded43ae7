#!/bin/sh
# The library's layering, checked on the built objects: which file calls a
# function another file defines (nm).  Folders depend downward only, in
#   core <- util <- config <- plan <- exec <- select <- api <- iso <- overlap <- intercept
# (tools: programs and their helpers outside the library, at the top)
# (a file may call files of its own folder or of lower ones), no two files
# call each other through any chain (tsort finds no cycle), no file
# includes a higher layer's header, and no source
# file under src/ is over 700 lines (generated *_gen.h aside).  Prints TAP
# and "N passed, N failed".
: "${srcdir:=.}" "${TOP_BUILDDIR:=.}"
layers="core util config plan exec select api iso overlap intercept tools"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
notok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; sed 's/^/#     /' "$2"; }

objs=$(cd "$TOP_BUILDDIR" && find src -path '*/.libs/*.o' | sort)
if [ -z "$objs" ]; then
    echo "not ok 1 - no libtool objects under $TOP_BUILDDIR/src (build first)"
    echo "0 passed, 1 failed"
    echo "1..1"
    exit 1
fi
for o in $objs; do
    f=$(echo "$o" | sed 's|/.libs/|/|; s|\.o$|.c|')
    nm -g --defined-only "$TOP_BUILDDIR/$o" | awk -v f="$f" 'NF == 3 {print $3, f}' >>"$tmp/def"
    nm -u "$TOP_BUILDDIR/$o" | awk -v f="$f" '{print f, $2}' >>"$tmp/use"
done
# The C library's functions that nhood wraps (overlap/hooks.c: malloc,
# write, sigaction, ...) stay the C library's: calling them is no call
# into the overlap layer.
libc=$(${CC:-cc} -print-file-name=libc.so.6)
[ -f "$libc" ] || libc=$(ldd "$(command -v nm)" | awk '/libc\.so/ {print $3}')
nm -D --defined-only "$libc" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/libc"
awk 'NR == FNR {c[$1] = 1; next} !($1 in c)' "$tmp/libc" "$tmp/def" >"$tmp/def.own"
# edges "caller callee symbol"
awk 'NR == FNR {d[$1] = $2; next} ($2 in d) && d[$2] != $1 {print $1, d[$2], $2}' \
    "$tmp/def.own" "$tmp/use" | sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] || { echo "not ok 1 - no calls between files found"; echo "0 passed, 1 failed"; echo "1..1"; exit 1; }

rank() {
    i=0
    for l in $layers; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
# downward LA LB NO-LAYER UPWARD OUT: appends NO-LAYER to OUT where a
# layer is unknown (-1), UPWARD where LB is above LA.
downward() {
    if [ "$1" -lt 0 ] || [ "$2" -lt 0 ]; then
        echo "$3" >>"$5"
    elif [ "$2" -gt "$1" ]; then
        echo "$4" >>"$5"
    fi
}
: >"$tmp/up"
while read -r a b sym; do
    la=$(rank "$(echo "$a" | cut -d/ -f2)") lb=$(rank "$(echo "$b" | cut -d/ -f2)")
    downward "$la" "$lb" "$a or $b is in no layer" "$a calls $sym of $b (a higher layer)" "$tmp/up"
done <"$tmp/edges"
if [ -s "$tmp/up" ]; then notok "calls go downward only ($layers)" "$tmp/up"; else
    ok "calls go downward only ($layers): $(wc -l <"$tmp/edges") calls between files"
fi

cut -d' ' -f1,2 "$tmp/edges" | sort -u >"$tmp/pairs"
if tsort "$tmp/pairs" >/dev/null 2>"$tmp/cycle"; then ok "no dependency cycle among src/ files"; else
    notok "no dependency cycle among src/ files" "$tmp/cycle"
fi

# What nm cannot see: a header's macros, inline functions and struct
# fields are compiled into the file that includes them, so a file of one
# layer that includes a higher layer's header may use that layer's state
# with no call between objects.  Includes go downward too (smpi/: the
# simulated host, beside the layers; src/nh_impl.h: the entry points,
# with intercept/).
(cd "$srcdir" && grep -o '^#include "[a-z_]*/' $(find src -name '*.[ch]' | sort)) |
    sed 's|^src/\([^:]*\):#include "\([a-z_]*\)/$|\1 \2|' >"$tmp/incs"
: >"$tmp/upinc"
while read -r file dir; do
    [ "$dir" = smpi ] || [ "${file%%/*}" = smpi ] && continue
    case "$file" in */*) la=$(rank "${file%%/*}") ;; *) la=$(rank intercept) ;; esac
    downward "$la" "$(rank "$dir")" "src/$file includes from $dir/, which is in no layer" \
        "src/$file includes a header of $dir/ (a higher layer)" "$tmp/upinc"
done <"$tmp/incs"
if [ -s "$tmp/upinc" ]; then notok "headers are included downward only" "$tmp/upinc"; else
    ok "headers are included downward only: $(wc -l <"$tmp/incs") includes of other folders' headers"
fi

# ... and a header's macros and inline functions, expanded in the files
# that include it, must not name a higher layer's function either: nm
# sees such a use in the including file only.  Every nh_ identifier of a
# header outside comments that a higher layer's object defines (the MPI
# names nhood defines to interpose are MPI's interface, not a layer's).
: >"$tmp/upmac"
for h in $(cd "$srcdir" && find src -mindepth 2 -name '*.h' ! -path 'src/smpi/*' | sort); do
    lh=$(rank "$(echo "$h" | cut -d/ -f2)")
    [ "$lh" -ge 0 ] || continue
    sed 's|/\*.*\*/||g; /\/\*/,/\*\//d' "$srcdir/$h" | grep -o '[A-Za-z_][A-Za-z0-9_]*' | grep '^nh_' | sort -u |
        awk 'NR == FNR {d[$1] = $2; next} ($1 in d) {print $1, d[$1]}' "$tmp/def.own" - |
        while read -r sym file; do
            lf=$(rank "$(echo "$file" | cut -d/ -f2)")
            [ "$lf" -gt "$lh" ] && echo "$h names $sym of $file (a higher layer)"
        done >>"$tmp/upmac"
done
if [ -s "$tmp/upmac" ]; then notok "headers' macros and inline functions name no higher layer" "$tmp/upmac"; else
    ok "headers' macros and inline functions name no higher layer's function"
fi

(cd "$srcdir" && find src -name '*.[ch]' ! -name '*_gen.h' -exec wc -l {} + | awk '$2 != "total" && $1 > 700') >"$tmp/long"
if [ -s "$tmp/long" ]; then notok "no source file under src/ over 700 lines" "$tmp/long"; else
    ok "no source file under src/ over 700 lines"
fi
echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
