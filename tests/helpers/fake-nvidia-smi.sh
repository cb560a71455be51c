#!/bin/sh
# A fake nvidia-smi reading the fake NVML's state file (TRAINYARD_FAKE_NVML;
# the format is in tests/helpers/fakenvml.cpp), so the GPUs a test gives the
# app's NVML path are the ones a host's poll lists (remote/remotegpus.cpp).
# Installed as build/tests/fakenvml/bin/nvidia-smi. Answers what the remote
# scripts ask, in nvidia-smi's words:
#   nvidia-smi --query-gpu=FIELD,... --format=csv,noheader,nounits
#     index name uuid utilization.gpu memory.used memory.total memory.free
#     temperature.gpu power.draw count
#   nvidia-smi --query-compute-apps=FIELD,... --format=csv,noheader,nounits
#     gpu_uuid pid used_memory process_name (name)
# Memory in MiB, rounded down; "[N/A]" where the state leaves a figure out; a
# process whose pid is gone is not listed and holds nothing. Without the
# state file it fails as nvidia-smi does without a driver (exit 9).
query='' fields='' format=''
for a in "$@"; do
  case $a in
  --query-gpu=*) query=gpu fields=${a#*=} ;;
  --query-compute-apps=*) query=apps fields=${a#*=} ;;
  --format=*) format=${a#*=} ;;
  *)
    echo "fake nvidia-smi: $a is not supported" >&2
    exit 2
    ;;
  esac
done
if [ -z "$query" ] || [ "$format" != csv,noheader,nounits ]; then
  echo "fake nvidia-smi: only --query-gpu or --query-compute-apps with --format=csv,noheader,nounits" >&2
  exit 2
fi
state=${TRAINYARD_FAKE_NVML:-}
if [ -z "$state" ] || ! [ -r "$state" ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." \
    "Make sure that the latest NVIDIA driver is installed and running."
  exit 9
fi
exec awk -v query="$query" -v fields="$fields" -v state="$state" '
function fail(why) { printf "fake nvidia-smi: %s:%d: %s\n", state, FNR, why > "/dev/stderr"; bad = 1; exit 1 }
function isnum(s) { return s ~ /^[0-9]+$/ }
# Splits $0 into w[1..n]: words, or one "quoted string".
function words(line,   n, q) {
  n = split("", w)
  while (1) {
    sub(/^[ \t\r]+/, "", line)
    if (line == "") return n
    if (substr(line, 1, 1) == "\"") {
      q = index(substr(line, 2), "\"")
      if (q == 0) fail("unterminated quote")
      w[++n] = substr(line, 2, q - 1)
      line = substr(line, q + 2)
    } else {
      match(line, /^[^ \t\r]+/)
      w[++n] = substr(line, 1, RLENGTH)
      line = substr(line, RLENGTH + 1)
    }
  }
}
function alive(pid,   x, ok) {
  ok = (getline x < ("/proc/" pid "/stat")) > 0
  close("/proc/" pid "/stat")
  return ok
}
function comm(pid,   x) {
  x = "[N/A]"
  if ((getline x < ("/proc/" pid "/comm")) <= 0) x = "[N/A]"
  close("/proc/" pid "/comm")
  return x
}
function opt(v) { return v == "" || v == "-" ? "[N/A]" : v }
function uuid(i) { return sprintf("GPU-00000000-0000-0000-0000-%012d", i) }
function mib(b) { return sprintf("%d", b / 1048576) }
/^[ \t\r]*(#|$)/ { next }
{
  n = words($0)
  if (w[1] == "gpu") {
    if (n < 4 || n > 7 || !isnum(w[2]) || w[2] + 0 > 63 || !isnum(w[3])) fail("expected gpu INDEX TOTAL_BYTES \"NAME\" [UTIL [TEMP [POWER_MW]]]")
    i = w[2] + 0
    if (i in total) fail("gpu: INDEX listed twice")
    total[i] = w[3] + 0; name[i] = w[4]; util[i] = w[5]; temp[i] = w[6]; power[i] = w[7]
    used[i] += 0
  } else if (w[1] == "proc") {
    if (n != 4 || !isnum(w[2]) || w[2] + 0 == 0 || !isnum(w[3]) || w[3] + 0 > 63 || !isnum(w[4])) fail("expected proc PID GPU_INDEX BYTES")
    pid = w[2] + 0
    if (!alive(pid)) next
    key = pid SUBSEP (w[3] + 0)
    if (!(key in bytes)) order[++procs] = key
    bytes[key] += w[4]
    used[w[3] + 0] += w[4]
  } else {
    fail("expected \"gpu ...\" or \"proc ...\"")
  }
}
END {
  if (bad) exit 1
  count = 0
  for (i in total) count++
  nf = split(fields, f, ",")
  if (query == "gpu") {
    for (i = 0; i < 64; i++) {
      if (!(i in total)) continue
      row = ""
      for (k = 1; k <= nf; k++) {
        if (f[k] == "index") v = i
        else if (f[k] == "name") v = name[i]
        else if (f[k] == "uuid") v = uuid(i)
        else if (f[k] == "utilization.gpu") v = opt(util[i])
        else if (f[k] == "memory.used") v = mib(used[i])
        else if (f[k] == "memory.total") v = mib(total[i])
        else if (f[k] == "memory.free") v = used[i] < total[i] ? mib(total[i] - used[i]) : 0
        else if (f[k] == "temperature.gpu") v = opt(temp[i])
        else if (f[k] == "power.draw") v = opt(power[i]) == "[N/A]" ? "[N/A]" : sprintf("%.2f", power[i] / 1000)
        else if (f[k] == "count") v = count
        else { printf "Field \"%s\" is not a valid field to query.\n", f[k]; exit 2 }
        row = row (k > 1 ? ", " : "") v
      }
      print row
    }
  } else {
    for (p = 1; p <= procs; p++) {
      split(order[p], pk, SUBSEP)
      if (!(pk[2] in total)) continue
      row = ""
      for (k = 1; k <= nf; k++) {
        if (f[k] == "gpu_uuid") v = uuid(pk[2])
        else if (f[k] == "pid") v = pk[1]
        else if (f[k] == "used_memory") v = mib(bytes[order[p]])
        else if (f[k] == "process_name" || f[k] == "name") v = comm(pk[1])
        else { printf "Field \"%s\" is not a valid field to query.\n", f[k]; exit 2 }
        row = row (k > 1 ? ", " : "") v
      }
      print row
    }
  }
}' "$state"
