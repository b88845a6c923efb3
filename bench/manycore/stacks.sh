#!/bin/bash
# Sample the stacks of N random pgbench backends (8 at a time) with gdb or
# cuda-gdb; raw stacks to $1, folded summary to stdout.
RAW=$1; N=${N:-48}
G=$(command -v gdb || command -v cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb 2>/dev/null | head -1)
[ -z "$G" ] && { echo "no gdb"; exit 0; }
pids=$(pgrep -f 'postgres: postgres bench' | shuf -n $N)
: >$RAW
i=0
for p in $pids; do
	( timeout 20 $G -q -nx -p $p -batch -ex 'bt 30' 2>/dev/null | grep '^#' | sed "s/^/$p /" >$RAW.$p ) &
	i=$((i + 1)); [ $((i % 8)) = 0 ] && wait
done
wait
cat $RAW.* >>$RAW 2>/dev/null; rm -f $RAW.*
# fold: per pid, function names from frame 0 up, cut above the executor
awk '{ f = ""; for (i = 3; i <= NF; i++) if ($i == "in") { f = $(i + 1); break } if (f == "" && $3 !~ /^0x/) f = $3; gsub(/\(.*/, "", f)
	   if ($1 != cur) { if (s != "") print s; s = ""; cur = $1; n = 0 }
	   if (n < 14 && f != "" && f != "??") { s = s (n ? " < " : "") f; n++ } }
	 END { if (s != "") print s }' $RAW | sed 's/ < \(ExecInsert\|standard_ExecutorRun\|PortalRun\|exec_execute_message\|PostgresMain\).*//' |
	sort | uniq -c | sort -rn | head -40
