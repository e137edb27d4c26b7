#!/bin/sh
# A unique-ID job of 2 PEs on this host; the ID travels in a file.
#   uid_pair.sh launch_test IDFILE [more arguments of launch_test]
prog=$1 file=$2
shift 2
rm -f "$file"
"$prog" --uid-file "$file" --rank 0 --size 2 "$@" &
first=$!
"$prog" --uid-file "$file" --rank 1 --size 2 "$@"
status=$?
wait "$first" || status=1
rm -f "$file"
exit $status
