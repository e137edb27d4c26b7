#!/bin/sh
# PEs that gshmrun started on other hosts stop when gshmrun goes away: killed outright (SIGKILL, so
# it cannot clean up) or stopped (SIGTERM). The "hosts" are two network namespaces reached through
# "ip netns exec", which, like ssh without a terminal, passes no signal on; each PE is a sleep of a
# length no other process uses, so that this script can find them in /proc.
#   remote_stop.sh NSA NSB GSHMRUN
nsa=$1 nsb=$2 gshmrun=$3
marker=$(($$ % 1000 + 7000))
count() {
  n=0
  for f in /proc/[0-9]*/cmdline; do
    [ "$(tr '\0' ' ' <"$f" 2>/dev/null)" = "sleep $marker " ] && n=$((n + 1))
  done
  echo $n
}
for how in KILL TERM; do
  ip netns exec "$nsa" "$gshmrun" --hosts "$nsa:1,$nsb:1" --rsh "ip netns exec" sleep "$marker" &
  g=$!
  i=0
  while [ "$(count)" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  if [ "$(count)" -lt 2 ]; then
    echo "remote_stop: the 2 PEs did not start"
    kill -KILL $g
    exit 1
  fi
  kill -$how $g
  wait $g
  i=0
  while [ "$(count)" -gt 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  left=$(count)
  if [ "$left" -gt 0 ]; then
    echo "remote_stop: 10 s after SIG$how of gshmrun, $left PE(s) still run"
    for f in /proc/[0-9]*/cmdline; do
      [ "$(tr '\0' ' ' <"$f" 2>/dev/null)" = "sleep $marker " ] && p=${f#/proc/} && kill -KILL "${p%/cmdline}"
    done
    exit 1
  fi
  echo "remote_stop: SIG$how of gshmrun: both remote PEs stopped"
done
