#include "orchestration/remote/remotescripts.h"

#include "orchestration/process/processrunner.h"

#include <QRegularExpression>
#include <QSet>

namespace trainyard::remotescripts {

namespace {

// Every script starts as `sh -c SCRIPT sh ARGS...`: $0 is "sh", the values
// are $1, $2, ...
Command script(const char *text, const QStringList &args)
{
    return Command{QStringLiteral("sh"),
                   QStringList{QStringLiteral("-c"), QString::fromLatin1(text), QStringLiteral("sh")} + args};
}

// The start time of process $1 in clock ticks (/proc/PID/stat field 22,
// counted after the ")" that ends its name, which may hold spaces); empty
// when there is none.
#define TICKS_OF                                                                                                       \
    "ticks_of() { s=$(cat \"/proc/$1/stat\" 2>/dev/null) || return 0; s=${s##*) }; set -- $s; echo \"${20}\"; }\n"

// Whether process $1 is the user's waiting sh of the run in folder $2:
// `sh -c SCRIPT sh DIR ...` (launch), its fifth argument the folder. A pid
// saved as the run's waiting sh proves nothing by itself (reused, or a
// state file's claim).
#define IS_WRAPPER                                                                                                     \
    "is_wrapper() { [ \"$1\" -gt 1 ] 2>/dev/null && [ \"$(stat -c %u \"/proc/$1\" 2>/dev/null)\" = \"$(id -u)\" ] "    \
    "&& tr '\\0\\n' '\\n\\0' <\"/proc/$1/cmdline\" 2>/dev/null | sed -n 5p | grep -qxF -- \"$2\"; }\n"

// ROOT/.trainyard, made when missing: refused unless it is a folder of
// this user's (not a link, not another user's on a shared root), then
// made private.
#define OWN_DIR                                                                                                        \
    "own_dir() { mkdir -p -- \"$1\" 2>/dev/null; if [ -L \"$1\" ] || ! [ -d \"$1\" ] || ! [ -O \"$1\" ]; then echo "   \
    "\"$1 is not a folder of this user's (a link, or another user's); Trainyard does not use it\" >&2; return 1; fi; " \
    "chmod 700 -- \"$1\"; }\n"

// Every script that writes sets -C (noclobber): a temporary file is
// removed first and then made anew, so a link planted in its place
// between the two makes the write fail instead of going through it.
const char kPrepare[] = OWN_DIR R"sh(umask 077
set -C
root=$1 dir=$2 resume=$3
mkdir -p -- "$root" && own_dir "$root/.trainyard" || exit 1
if [ -L "$dir" ]; then echo "$dir is a link; Trainyard does not follow links in run folders" >&2; exit 1; fi
if [ "$resume" = 0 ] && [ -d "$dir" ] && [ -n "$(ls -A -- "$dir")" ]; then
  n=1
  while [ -e "$dir.attempt-$n" ]; do n=$((n + 1)); done
  mv -- "$dir" "$dir.attempt-$n" || exit 1
  echo "kept $dir.attempt-$n"
fi
mkdir -p -- "$dir" || exit 1
rm -f -- "$dir/.trainyard-exit" "$dir/.trainyard-pid"
rm -f -- "$dir/spec.json.tmp"
cat >"$dir/spec.json.tmp" && mv -f -- "$dir/spec.json.tmp" "$dir/spec.json" || exit 1
echo prepared
)sh";

const char kWriteFile[] = R"sh(umask 077
set -C
rm -f -- "$1/$2.tmp"
cat >"$1/$2.tmp" && mv -f -- "$1/$2.tmp" "$1/$2"
)sh";

// The waiting sh is the worker's parent and leads the run's session: it
// records the wait status, which is how a worker killed or crashed there
// says so. Once the worker has exited (however: a stop signals it alone,
// so it can checkpoint while its children live), what is left of the run
// gets SIGTERM, then SIGKILL after 2 s: the processes of its session and
// any of the user's with the run's token (a child that made its own
// session; never this launching sh, whose environment has the token too,
// nor its children). The exit status is written only when none is left, so
// the run is reported ended only then, as a local run is
// (devices/processtree.h). A scan forks once (one grep over every environ),
// not per process: on a busy host a per-process sed made the 2 s a minute.
const char kLaunch[] = TICKS_OF R"sh(dir=$1 cwd=$2
shift 2
eval "$(cat)" || exit 96
if ! command -v -- "$1" >/dev/null 2>&1; then echo "$1: no such program on this host" >&2; exit 127; fi
# The ranks' rendezvous port was probed on the app's machine: the first one
# from it that nothing listens on here is this host's.
if [ -n "${MASTER_PORT:-}" ]; then
  used=" $(awk '$4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | tr '\n' ' ')"
  p=$MASTER_PORT
  while [ "$p" -lt 65535 ]; do
    case "$used" in *" $(printf '%04X' "$p") "*) p=$((p + 1)) ;; *) break ;; esac
  done
  MASTER_PORT=$p
fi
cd -- "$cwd" || exit 98
setsid sh -c 'd=$1 o=$2; shift 2
set -C
"$@" >>"$d/worker.log" 2>&1 </dev/null &
rm -f -- "$d/.trainyard-pid.tmp"
echo $! >"$d/.trainyard-pid.tmp" && mv -f -- "$d/.trainyard-pid.tmp" "$d/.trainyard-pid"
wait $!
s=$?
me=$$
signal_rest() {
  found=
  tokened=
  [ -n "$TRAINYARD_TOKEN" ] && tokened=$(grep -lzxF -- "TRAINYARD_TOKEN=$TRAINYARD_TOKEN" /proc/[0-9]*/environ 2>/dev/null)
  for p in /proc/[0-9]*; do
    q=${p#/proc/}
    [ "$q" = "$me" ] || [ "$q" = "$o" ] && continue
    { read -r f <"$p/stat"; } 2>/dev/null || continue
    set -- ${f##*) }
    [ "$1" = Z ] || [ "$2" = "$me" ] || [ "$2" = "$o" ] && continue
    case "
$tokened
" in *"
$p/environ
"*) t=1 ;; *) t= ;; esac
    if [ "$4" = "$me" ] || [ -n "$t" ]; then
      kill -s "$sig" "$q" 2>/dev/null && found=1
    fi
  done
}
sig=TERM signal_rest
i=0
while [ -n "$found" ] && [ $i -lt 20 ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1)); sig=0 signal_rest; done
while [ -n "$found" ]; do sig=KILL signal_rest; sleep 1; sig=0 signal_rest; done
rm -f -- "$d/.trainyard-exit.tmp"
echo $s >"$d/.trainyard-exit.tmp" && mv -f -- "$d/.trainyard-exit.tmp" "$d/.trainyard-exit" || rm -f -- "$d/.trainyard-exit.tmp"' sh "$dir" $$ "$@" </dev/null >/dev/null 2>&1 &
w=$!
i=0
while [ ! -s "$dir/.trainyard-pid" ]; do
  i=$((i + 1))
  if [ $i -gt 200 ]; then echo "the worker did not start (no space left in $dir?)" >&2; exit 99; fi
  sleep 0.05 2>/dev/null || sleep 1
done
pid=$(cat "$dir/.trainyard-pid")
t=$(ticks_of "$pid")
# A worker already gone (a short run, one stopped at once) did start: the
# poll says how it ended, from the status its waiting sh writes.
[ -n "$t" ] || t=0
echo "started $pid $t $w"
)sh";

const char kVerify[] = TICKS_OF IS_WRAPPER R"sh(pid=$1 ticks=$2 dir=$3 program=$4 sig=$5
IFS= read -r tok || true
t=$(ticks_of "$pid")
if [ -z "$t" ] || [ "$t" != "$ticks" ]; then echo "gone pid $pid has ended (or is another process now)"; exit 0; fi
owner=$(stat -c %u "/proc/$pid")
if [ "$owner" != "$(id -u)" ]; then echo "notours pid $pid is another user's process (uid $owner), not this run's"; exit 0; fi
hasenv() { tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF -- "$1"; }
if [ -z "$program" ]; then
  if ! hasenv "TRAINYARD_RUN_DIR=$dir"; then echo "notours pid $pid is not this run's program (its TRAINYARD_RUN_DIR is not $dir)"; exit 0; fi
else
  real=$(readlink "/proc/$pid/exe")
  want=$(readlink -f -- "$program")
  if [ "$real" != "$want" ] && [ "$real" != "$want (deleted)" ]; then echo "notours pid $pid runs ${real:-an unknown program}, not this run's worker $program"; exit 0; fi
  if ! tr '\0' '\n' <"/proc/$pid/cmdline" | { p=; while IFS= read -r a; do if [ "$p" = --run-dir ] && [ "$a" = "$dir" ]; then exit 0; fi; p=$a; done; exit 1; }; then
    echo "notours pid $pid is a worker, but not this run's (its --run-dir is not $dir)"; exit 0
  fi
fi
if [ -z "$tok" ] || ! hasenv "TRAINYARD_TOKEN=$tok"; then echo "notours pid $pid was not started with this run's token"; exit 0; fi
s=$(cat "/proc/$pid/stat" 2>/dev/null); s=${s##*) }; set -- $s
w=
if is_wrapper "$2" "$dir"; then w=" $2"; fi
if [ -n "$sig" ]; then kill -s "$sig" "$pid" && echo "signalled$w"; else echo "ours$w"; fi
)sh";

// Sections: "G STATUS BYTES" and "A STATUS BYTES" (nvidia-smi), "P 0 BYTES"
// (ps of the GPU processes: pid, session, group, user), per run
// "R I STATE STATUS", "M I SIZE BYTES", "L I SIZE BYTES", "C I BYTES",
// "D I KIB", each BYTES followed by that many bytes; "E" at the end. M and
// L are followed by "K I READ": BYTES is what stat's size promised, always
// sent (padded with zeros when the file gave less: it shrank meanwhile),
// READ how many of them are the file's, so the framing never depends on the
// file. SIZE -2: not a regular file (a link, a FIFO): never read.
const char kPoll[] = TICKS_OF IS_WRAPPER R"sh(LC_ALL=C
export LC_ALL
gpus=$1 max=$2
shift 2
if [ "$gpus" = 1 ]; then
  g=$(nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,uuid --format=csv,noheader,nounits 2>&1)
  echo "G $? ${#g}"
  printf '%s' "$g"
  a=$(nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory,process_name --format=csv,noheader,nounits 2>&1)
  echo "A $? ${#a}"
  printf '%s' "$a"
  pids=$(printf '%s\n' "$a" | awk -F', *' '$2 ~ /^[0-9]+$/ { printf "%s%s", s, $2; s = "," }')
  p=
  if [ -n "$pids" ]; then p=$(ps -o pid=,sid=,pgid=,user= -p "$pids" 2>/dev/null); fi
  echo "P 0 ${#p}"
  printf '%s' "$p"
fi
tailof() {
  if [ -L "$1" ] || { [ -e "$1" ] && ! [ -f "$1" ]; }; then echo "$3 $i -2 0"; echo "K $i 0"; return; fi
  size=$(stat -c %s -- "$1" 2>/dev/null) || size=-1
  if [ "$size" -lt 0 ] || [ "$size" -lt "$2" ]; then echo "$3 $i $size 0"; echo "K $i 0"; return; fi
  n=$((size - $2))
  if [ "$n" -gt "$max" ]; then n=$max; fi
  echo "$3 $i $size $n"
  got=0
  if [ "$n" -gt 0 ]; then
    { got=$(dd if="$1" iflag=skip_bytes,count_bytes,nofollow,nonblock skip="$2" count="$n" bs=65536 2>&1 >&3 | awk '/ copied/ { print $1 }'); } 3>&1
    got=${got:-0}
    if [ "$got" -lt "$n" ]; then head -c $((n - got)) /dev/zero; fi
  fi
  echo "K $i $got"
}
i=0
while [ $# -ge 7 ]; do
  d=$1 pid=$2 ticks=$3 w=$4 mo=$5 lo=$6 list=$7
  shift 7
  status=-1
  if [ "$pid" != 0 ] && [ "$(ticks_of "$pid")" = "$ticks" ]; then st=alive
  elif [ -f "$d/.trainyard-exit" ] && ! [ -L "$d/.trainyard-exit" ]; then st=exited; status=$(cat "$d/.trainyard-exit"); status=${status:--1}
  elif [ "$w" != 0 ] && is_wrapper "$w" "$d"; then st=ending
  else st=gone; fi
  echo "R $i $st $status"
  tailof "$d/metrics.jsonl" "$mo" M
  tailof "$d/worker.log" "$lo" L
  if [ "$st" != alive ] && [ "$st" != ending ] || [ "$list" = 1 ]; then
    c=$(if ! [ -L "$d/checkpoints" ]; then for f in "$d"/checkpoints/*; do if [ -f "$f" ] && ! [ -L "$f" ]; then printf '%s %s\n' "${f##*/}" "$(stat -c '%s %Y' -- "$f")"; fi; done; fi)
    echo "C $i ${#c}"
    printf '%s' "$c"
  fi
  if [ "$st" = exited ] || [ "$st" = gone ]; then
    echo "D $i $(df -Pk -- "$d" 2>/dev/null | awk 'NR == 2 { print $4 }')"
  fi
  i=$((i + 1))
done
echo E
)sh";

const char kReadySocket[] = OWN_DIR R"sh(umask 077
mkdir -p -- "$1" && own_dir "$1/.trainyard" || exit 1
if [ -S "$2" ]; then rm -f -- "$2" || exit 1; fi
if [ -e "$2" ]; then echo "$2 exists and is not a socket" >&2; exit 1; fi
if ! [ -w "$1" ]; then echo "$1 is not writable" >&2; exit 1; fi
echo ready
)sh";

const char kHostCheck[] = R"sh(root=$1 worker=$2
if [ -f "$worker" ] && [ -x "$worker" ]; then
  if v=$("$worker" --version 2>&1 </dev/null); then echo "worker ok $(printf '%s' "$v" | head -n 1)"
  else echo "worker fails $(printf '%s' "$v" | tail -n 2 | tr '\n' ' ')"; fi
else
  echo "worker missing"
fi
if mkdir -p -- "$root" 2>/dev/null && [ -w "$root" ]; then echo "root ok"; else echo "root notwritable"; fi
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,uuid --format=csv,noheader,nounits 2>/dev/null | sed 's/^/gpu /'
  echo "gpus listed"
else
  echo "gpus none"
fi
)sh";

const char kDataCheck[] = OWN_DIR R"sh(umask 077
set -C
root=$1 worker=$2
mkdir -p -- "$root" && own_dir "$root/.trainyard" || exit 1
f=$(mktemp --suffix=.json -- "$root/.trainyard/check-XXXXXXXX") || exit 1
cat >>"$f" || { rm -f -- "$f"; exit 1; }
"$worker" --check --spec "$f" </dev/null
st=$?
rm -f -- "$f"
exit $st
)sh";

#undef TICKS_OF
#undef OWN_DIR
#undef IS_WRAPPER

} // namespace

Command prepare(const QString &root, const QString &dir, bool resume)
{
    return script(kPrepare, {root, dir, resume ? QStringLiteral("1") : QStringLiteral("0")});
}

Command writeFile(const QString &dir, const QString &name)
{
    return script(kWriteFile, {dir, name});
}

Command launch(const QString &dir, const QString &cwd, const QStringList &argv)
{
    return script(kLaunch, QStringList{dir, cwd} + argv);
}

QByteArray environmentText(const QList<std::pair<QString, QString>> &env)
{
    // Names are Trainyard's or a spec's (checked as identifiers at load, and
    // here again: anything else is left out); the value is single-quoted:
    // never read as shell text.
    static const QRegularExpression identifier(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*")));
    QByteArray text;
    for (const auto &[name, value] : env) {
        if (identifier.match(name).hasMatch() && !value.contains(QChar(0))) {
            text += "export " + name.toUtf8() + '=' + ProcessRunner::shellQuote(value).toUtf8() + '\n';
        }
    }
    return text;
}

Command verify(qint64 pid, qint64 ticks, const QString &dir, const QString &program, const QString &signal)
{
    return script(kVerify, {QString::number(pid), QString::number(ticks), dir, program, signal});
}

Command readySocket(const QString &root, const QString &socket)
{
    return script(kReadySocket, {root, socket});
}

Command poll(bool gpus, qint64 maxBytes, const QList<PollRun> &runs)
{
    QStringList args{gpus ? QStringLiteral("1") : QStringLiteral("0"), QString::number(maxBytes)};
    for (const PollRun &r : runs) {
        args << r.dir << QString::number(r.pid) << QString::number(r.ticks) << QString::number(r.wrapper)
             << QString::number(r.metricsOffset) << QString::number(r.logOffset)
             << (r.listCheckpoints ? QStringLiteral("1") : QStringLiteral("0"));
    }
    return script(kPoll, args);
}

Command hostCheck(const QString &root, const QString &worker)
{
    return script(kHostCheck, {root, worker});
}

Command dataCheck(const QString &root, const QString &worker)
{
    return script(kDataCheck, {root, worker});
}

QStringList gpuQueryFields()
{
    return {QStringLiteral("index"),       QStringLiteral("name"),         QStringLiteral("utilization.gpu"),
            QStringLiteral("memory.used"), QStringLiteral("memory.total"), QStringLiteral("temperature.gpu"),
            QStringLiteral("uuid")};
}

namespace {

// A cursor over the poll's output: header lines and byte blocks.
class Reader
{
public:
    explicit Reader(const QByteArray &out)
        : m_out(out)
    {
    }
    bool line(QList<QByteArray> *words)
    {
        const qsizetype end = m_out.indexOf('\n', m_at);
        if (end < 0) {
            return false;
        }
        *words = m_out.mid(m_at, end - m_at).split(' ');
        m_at = end + 1;
        return true;
    }
    bool bytes(qint64 n, QByteArray *into)
    {
        if (n < 0 || m_at + n > m_out.size()) {
            return false;
        }
        *into = m_out.mid(m_at, n);
        m_at += n;
        return true;
    }

private:
    const QByteArray &m_out;
    qsizetype m_at = 0;
};

} // namespace

PollReport parsePoll(const QByteArray &out, int runCount)
{
    PollReport report;
    QList<RunReport> runs(runCount);
    QSet<int> reported; // a run without its R line is not known to have ended
    Reader reader(out);
    QList<QByteArray> w;
    bool ok = true;
    while (ok && reader.line(&w)) {
        const QByteArray tag = w.value(0);
        const int index = w.value(1).toInt(&ok);
        if (tag == "E") {
            report.complete = true;
            break;
        }
        if (tag == "G" || tag == "A" || tag == "P") {
            report.gpusAsked = true;
            QByteArray *rows = tag == "G" ? &report.gpuRows : tag == "A" ? &report.appRows : &report.psRows;
            if (tag == "G") {
                report.gpuStatus = w.value(1).toInt();
            }
            ok = w.size() == 3 && reader.bytes(w.value(2).toLongLong(), rows);
            continue;
        }
        if (!ok || index < 0 || index >= runCount) {
            break;
        }
        RunReport &r = runs[index];
        if (tag == "R" && w.size() == 4) {
            reported.insert(index);
            const QByteArray st = w.value(2);
            r.state = st == "alive"    ? RunReport::State::Alive
                      : st == "ending" ? RunReport::State::Ending
                      : st == "exited" ? RunReport::State::Exited
                                       : RunReport::State::Gone;
            r.status = w.value(3).toInt();
        } else if ((tag == "M" || tag == "L") && w.size() == 4) {
            const qint64 size = w.value(2).toLongLong();
            const qint64 promised = w.value(3).toLongLong();
            QByteArray &bytes = tag == "M" ? r.metrics : r.log;
            // The bytes stat promised, then how many of them the file gave.
            QList<QByteArray> k;
            ok = reader.bytes(promised, &bytes) && reader.line(&k) && k.size() == 3 && k.at(0) == "K"
                 && k.at(1).toInt() == index;
            const qint64 read = k.value(2).toLongLong();
            ok = ok && read >= 0 && read <= promised;
            if (ok && read < promised) {
                bytes.truncate(read);
                (tag == "M" ? r.metricsTorn : r.logTorn) = true;
            }
            (tag == "M" ? r.metricsSize : r.logSize) = size;
        } else if (tag == "C" && w.size() == 3) {
            QByteArray listing;
            ok = reader.bytes(w.value(2).toLongLong(), &listing);
            r.checkpointsListed = true;
            for (const QByteArray &l : listing.split('\n')) {
                if (!l.isEmpty()) {
                    r.checkpoints << QString::fromUtf8(l);
                }
            }
        } else if (tag == "D") {
            bool number = false;
            const qint64 kib = w.value(2).toLongLong(&number);
            r.freeKiB = number ? kib : -1;
        } else {
            ok = false;
        }
    }
    if (report.complete && reported.size() != runCount) {
        report.complete = false;
    }
    if (report.complete) {
        report.runs = runs;
    }
    return report;
}

} // namespace trainyard::remotescripts
