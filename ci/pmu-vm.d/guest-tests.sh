# shellcheck shell=sh
# The emulated machine's side of ci/pmu-vm-tests (busybox sh, run by /init
# as root in /work). Runs each step once and leaves, for step NAME,
# NAME.out, NAME.err and NAME.rc (and NAME.json where the step writes one)
# in /vm-out; ci/pmu-vm.d/check.py judges them on the host, where there is a
# JSON parser.
export PATH=/opt/workgate:/bin HOME=/tmp
chmod 1777 /vm-out

# step NAME CMD...: runs CMD with "@JSON@" replaced by NAME's JSON path.
step() {
  name=$1
  shift
  args=""
  for a in "$@"; do
    [ "$a" = "@JSON@" ] && a="/vm-out/$name.json"
    args="$args '$a'"
  done
  eval "$args" >"/vm-out/$name.out" 2>"/vm-out/$name.err"
  echo $? >"/vm-out/$name.rc"
}

# as_user CMD...: runs CMD as the unprivileged user (uid 1000).
# shellcheck disable=SC2317  # called through `step`'s eval
as_user() {
  su -s /bin/sh -c "$*" user
}

# ref NAME PROG ARGS: counts PROG with exec_count in workgate's minimal
# environment (launch/launch.cc: MinimalEnvironment).
ref() {
  name=$1
  shift
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LC_ALL=C TZ=UTC PYTHONHASHSEED=0 \
    PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 ./exec_count "$@" \
    >"/vm-out/$name.out" 2>"/vm-out/$name.err"
  echo $? >"/vm-out/$name.rc"
}

cat /proc/sys/kernel/perf_event_paranoid >/vm-out/paranoid.txt
dmesg | grep 'hw perfevents' >/vm-out/dmesg-pmu.txt

step probe workgate probe --json @JSON@
# --clock none: these steps compare workgate's count of a program with a bare
# fork-and-exec counter's and with exact loop sizes; the clock shim that ad
# hoc commands get by default would add its own loading to every count.
step count_1m workgate count --clock none --backend perf --json @JSON@ -- ./probes/known_loop 1000000
step count_3m workgate count --clock none --backend perf --repeat 3 --json @JSON@ -- ./probes/known_loop 3000000
step fork_1m workgate count --clock none --backend perf --json @JSON@ -- ./probes/known_loop --fork 1000000
step fork_2m workgate count --clock none --backend perf --json @JSON@ -- ./probes/known_loop --fork 2000000
step zero_dynamic workgate count --clock none --backend perf --json @JSON@ -- ./probes/known_loop 0
step zero_static workgate count --clock none --backend perf --json @JSON@ -- ./known_loop_static 0
ref ref_zero_dynamic ./probes/known_loop 0
ref ref_zero_static ./known_loop_static 0
step static_1m workgate count --clock none --backend perf --json @JSON@ -- ./known_loop_static 1000000
step region_10k workgate count --clock none --backend perf --region --json @JSON@ -- ./region_loop 1000000 10000
step region_20k workgate count --clock none --backend perf --region --json @JSON@ -- ./region_loop 1000000 20000
step region_fork_10k workgate count --clock none --backend perf --region --json @JSON@ -- ./probes/known_loop --region-fork 10000
step region_fork_20k workgate count --clock none --backend perf --region --json @JSON@ -- ./probes/known_loop --region-fork 20000
step noregion workgate count --clock none --backend perf --json @JSON@ -- ./region_loop 1000000 10000
step events2 workgate count --clock none --backend perf --event instructions:u,cycles:u --json @JSON@ -- ./probes/known_loop 1000000
step events3 workgate count --clock none --backend perf --event instructions:u,cycles:u,branches:u --json @JSON@ -- ./probes/known_loop 1000000
EVENTS8=instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u,instructions:u
step events8 workgate count --clock none --backend perf --event $EVENTS8 --json @JSON@ -- ./probes/known_loop 1000000
# The machine's own events beside a gate's count (--hardware-events): one
# QEMU counts (cycles), then one its PMU lacks, which is a note.
step hw_cycles workgate compare --clock none --backend perf --repeat 3 --events always --hardware-events cycles:u --timed 0 --json @JSON@ --baseline ./probes/known_loop --candidate ./known_loop_static -- 1000000
step hw_branches workgate compare --clock none --backend perf --repeat 3 --events always --hardware-events branches:u --timed 0 --json @JSON@ --baseline ./probes/known_loop --candidate ./known_loop_static -- 1000000
# vgcount, workgate's own Valgrind tool, built for arm64, under Debian's
# arm64 Valgrind (in /usr/bin, as Debian installs it), and callgrind beside
# it. Only these steps have Valgrind on PATH: the steps above count with perf
# alone, and the user's below find no backend at all.
VG_PATH=/opt/workgate:/usr/bin:/bin
step vg_1m env PATH=$VG_PATH workgate count --clock none --backend vgcount --repeat 2 --json @JSON@ -- ./probes/known_loop 1000000
step vg_3m env PATH=$VG_PATH workgate count --clock none --backend vgcount --json @JSON@ -- ./probes/known_loop 3000000
# callgrind's run given vgcount's VALGRIND_LIB: the path reaches the program
# (Valgrind preloads from it), and it is the one difference between the two
# backends' launches.
step cg_1m env PATH=$VG_PATH workgate count --clock none --backend callgrind --env VALGRIND_LIB=/opt/workgate/valgrind-lib --json @JSON@ -- ./probes/known_loop 1000000
step vg_region env PATH=$VG_PATH workgate count --clock none --backend vgcount --region --json @JSON@ -- ./region_loop 1000000 10000
# One region in both tools: vgcount's thread probe's. (Callgrind's profile of
# region_loop's region on arm64 has its cost on call edges only, "totals: 0"
# beside "summary: 20027", which workgate's callgrind backend reads as a
# region never begun.)
step vg_region_probe env PATH=$VG_PATH workgate count --clock none --backend vgcount --region --json @JSON@ -- ./probes/vgcount_thread_probe --region 100000
step cg_region_probe env PATH=$VG_PATH workgate count --clock none --backend callgrind --region --json @JSON@ -- ./probes/vgcount_thread_probe --region 100000
step user_probe as_user /opt/workgate/workgate probe --json @JSON@
step user_count as_user /opt/workgate/workgate count -- ./probes/known_loop 1000
step user_count_perf as_user /opt/workgate/workgate count --backend perf -- ./probes/known_loop 1000
exit 0
