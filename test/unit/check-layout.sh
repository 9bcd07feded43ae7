#!/bin/sh
# docs/layout.md is the map of the sources: every file under src/,
# include/ and scripts/ must be named there, in the entry of its folder
# (a line of the map's code block that starts with the folder, and the
# indented lines after it), or by its whole path anywhere in the map; and
# every file name an entry gives (a word ending in .c, .h, .sh, ...) must
# exist, in that folder, under src/ or from the top.  The files are git's
# (tracked, or new and not ignored) in a checkout, else those under
# srcdir (a distribution).  Prints TAP and "N passed, N failed".
: "${srcdir:=.}"
map="$srcdir/docs/layout.md"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
notok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; sed 's/^/#     /' "$2"; }

if [ ! -f "$map" ]; then
    echo "not ok 1 - $map exists"
    echo "0 passed, 1 failed"
    echo "1..1"
    exit 1
fi

# The files to place.
top=$(cd "$srcdir" && pwd -P)
if [ "$(cd "$srcdir" && git rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
    (cd "$srcdir" && git ls-files --cached --others --exclude-standard -- src include scripts |
        while read -r f; do [ -f "$f" ] && echo "$f"; done) >"$tmp/files"
else
    (cd "$srcdir" && find src include scripts -type f ! -path '*/.deps/*' ! -path '*/.libs/*' \
        ! -name '*.o' ! -name '*.lo' ! -name '*.la' ! -name '.dirstamp' ! -name '*_gen.h') >"$tmp/files"
fi
sort -u "$tmp/files" -o "$tmp/files"

# The map's words, one "folder word" per line: a line of the code block
# that starts at its first column opens the entry of the folder it names
# (a file's path there: its own folder, and the path itself a word).
awk '
/^```/ { block = !block; next }
!block { next }
/^[^ \t]/ {
    key = $1
    sub(/:$/, "", key)
    rest = substr($0, length($1) + 1)
    if (key !~ /\/$/) {
        print "- " key
        sub(/[^\/]*$/, "", key)
    }
}
/^[ \t]/ { rest = $0 }
{
    n = split(rest, w, /[^A-Za-z0-9_.+\/-]+/)
    for (i = 1; i <= n; i++) {
        t = w[i]
        sub(/[.]+$/, "", t)
        if (t != "" && t != "+")
            print key, t
    }
}' "$map" >"$tmp/words"

# Every file named: its base name in its folder's entry, or its path.
awk 'NR == FNR { named[$1 " " $2] = 1; any[$2] = 1; next }
{
    dir = $0
    sub(/[^\/]*$/, "", dir)
    base = substr($0, length(dir) + 1)
    if (!((dir " " base) in named) && !($0 in any))
        print $0 " (folder entry " dir ")"
}' "$tmp/words" "$tmp/files" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then notok "every file under src/, include/, scripts/ is in docs/layout.md" "$tmp/missing"; else
    ok "every file under src/, include/, scripts/ is in docs/layout.md: $(wc -l <"$tmp/files") files"
fi

# Every file name the map gives exists (in a checkout or a distribution:
# the folders outside src/, include/, scripts/ are looked at as they are).
: >"$tmp/gone"
grep -E '\.(c|h|sh|mk|map|gp|md|in|inc|py|xml|cost)$' "$tmp/words" | while read -r key t; do
    [ "$key" = "-" ] && key=
    for c in "$key$t" "$t" "src/$t"; do
        [ -e "$srcdir/$c" ] && continue 2
    done
    echo "$t (folder entry ${key:-none})" >>"$tmp/gone"
done
if [ -s "$tmp/gone" ]; then notok "every file docs/layout.md names exists" "$tmp/gone"; else
    ok "every file docs/layout.md names exists"
fi
echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
