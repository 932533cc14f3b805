# shellcheck shell=bash
# Shared by ci/pmu-vm and ci/pmu-vm-tests (sourced, not run): fetches Debian's
# arm64 kernel, static busybox and Valgrind into .pmu-vm/, stages and packs an
# initramfs, boots it in qemu-system-aarch64 with an emulated PMU and reads
# back what the guest's /init (ci/pmu-vm.d/init) printed.
#
# Environment:
#   WORKGATE_VM_BOOT_LIMIT  seconds the machine may take to boot (default 180:
#                           it boots in about 10 s alone, and ci/test runs it
#                           beside other steps)
#   WORKGATE_VM_RUN_LIMIT   seconds the command may run once booted (default 300)
#   WORKGATE_VM_KEEP=1      keep the staging directory and console log
#
# vm_die (setup, download, cross-build, staging) exits 5. vm_boot returns
# VM_CANNOT_BOOT only when the emulated machine does not boot (QEMU does not
# start, or the kernel does not reach /init within the boot limit) on a
# developer's machine, which ci/pmu-vm-tests makes a skip; under CI=true it
# returns 1 for that too: the machine is emulated, so no property of the host
# excuses it. Anything that goes wrong after the boot, or a kernel panic (our
# kernel and initramfs), is a failure everywhere.
VM_CANNOT_BOOT=77

VM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VM_DIR="$VM_ROOT/.pmu-vm"
# Debian's arm64 valgrind package, unpacked (vm_fetch).
VM_VALGRIND="$VM_DIR/valgrind-arm64"
VM_ARM64_LIBDIRS=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib)

vm_die() {
  echo "ci/pmu-vm: $*" >&2
  exit 5
}

# Downloads the .deb of arm64 package $1 into $VM_DIR/debs. apt's lists may
# predate the archive's current version (ci/setup updates them only when it
# installs something): a failed download updates them once and tries again.
vm_download() {
  (cd "$VM_DIR/debs" && apt-get download -qq -o APT::Sandbox::User=root "$1:arm64") && return
  echo "ci/pmu-vm: apt-get download $1:arm64 failed; updating apt's lists once" >&2
  $( [[ $(id -u) -ne 0 ]] && echo sudo ) apt-get update -qq ||
    vm_die "apt-get download $1:arm64 failed, and so did apt-get update"
  (cd "$VM_DIR/debs" && apt-get download -qq -o APT::Sandbox::User=root "$1:arm64") ||
    vm_die "apt-get download $1:arm64 failed"
}

# Downloads (once) Debian's arm64 kernel, busybox-static and valgrind and
# extracts the kernel image, the busybox binary and the valgrind package into
# $VM_DIR. Later runs reuse them and need neither apt nor a network.
vm_fetch() {
  mkdir -p "$VM_DIR/debs"
  if [[ ! -s "$VM_DIR/vmlinuz" ]]; then
    # linux-image-arm64 is a metapackage; the image is the package it depends on.
    local image
    image=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
      awk '/Depends: linux-image-[0-9]/ {sub(/:arm64$/, "", $2); print $2; exit}')
    [[ -n "$image" ]] || vm_die "apt knows no linux-image-arm64:arm64 (did ci/setup --pmu-vm run?)"
    echo "ci/pmu-vm: downloading $image:arm64" >&2
    vm_download "$image"
    local deb tmp
    deb=$(find "$VM_DIR/debs" -maxdepth 1 -name "${image}_*_arm64.deb" | sort | head -n1)
    tmp=$(mktemp -d)
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
    mv "$tmp"/boot/vmlinuz-* "$VM_DIR/vmlinuz.part" && rm -rf "$tmp"
    mv "$VM_DIR/vmlinuz.part" "$VM_DIR/vmlinuz"
    echo "$image" >"$VM_DIR/kernel-package"
  fi
  if [[ ! -s "$VM_DIR/busybox" ]]; then
    echo "ci/pmu-vm: downloading busybox-static:arm64" >&2
    vm_download busybox-static
    local deb tmp
    deb=$(find "$VM_DIR/debs" -maxdepth 1 -name 'busybox-static_*_arm64.deb' | sort | head -n1)
    tmp=$(mktemp -d)
    dpkg-deb -x "$deb" "$tmp"
    # /bin/busybox on Debian 12, /usr/bin/busybox on 13 (its files moved
    # under /usr).
    local binary=$tmp/usr/bin/busybox
    [[ -f "$binary" ]] || binary=$tmp/bin/busybox
    [[ -f "$binary" ]] || vm_die "$deb has neither /bin/busybox nor /usr/bin/busybox"
    mv "$binary" "$VM_DIR/busybox" && rm -rf "$tmp"
  fi
  # vgcount's arm64 build links Valgrind's arm64 archives and headers, and
  # the machine runs the arm64 launcher and tools. Debian's valgrind of one
  # architecture cannot be installed beside another's, so the package is
  # unpacked here (VM_VALGRIND) instead, whole, into a directory made
  # elsewhere and moved into place, so a half-unpacked tree is never used.
  if [[ ! -x "$VM_VALGRIND/usr/bin/valgrind.bin" ]]; then
    echo "ci/pmu-vm: downloading valgrind:arm64" >&2
    rm -f "$VM_DIR"/debs/valgrind_*_arm64.deb
    vm_download valgrind
    local deb tmp
    deb=$(find "$VM_DIR/debs" -maxdepth 1 -name 'valgrind_*_arm64.deb' | head -n1)
    tmp=$(mktemp -d "$VM_DIR/valgrind-arm64.XXXXXX")
    dpkg-deb -x "$deb" "$tmp" || { rm -rf "$tmp"; vm_die "dpkg-deb -x $deb failed"; }
    rm -rf "$VM_VALGRIND"
    mv "$tmp" "$VM_VALGRIND"
  fi
}

# Creates the root file system skeleton in directory $1: busybox, /init, a
# root and an unprivileged user, and the empty /work and /payload.
vm_stage_init() {
  local stage=$1
  rm -rf "$stage"
  mkdir -p "$stage"/{bin,dev,etc,proc,sys,tmp,work,lib/aarch64-linux-gnu}
  install -m 0755 "$VM_DIR/busybox" "$stage/bin/busybox"
  install -m 0755 "$VM_ROOT/ci/pmu-vm.d/init" "$stage/init"
  printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\n' >"$stage/etc/passwd"
  printf 'root:x:0:\nuser:x:1000:\n' >"$stage/etc/group"
  : >"$stage/payload"
}

# Finds the arm64 shared library named $1 on the host.
vm_find_lib() {
  local d
  for d in "${VM_ARM64_LIBDIRS[@]}"; do
    if [[ -e "$d/$1" ]]; then
      echo "$d/$1"
      return 0
    fi
  done
  return 1
}

# Copies the arm64 program $1 to $2 inside stage $3, with the dynamic loader
# and every shared library it needs (NEEDED entries, followed recursively)
# into the stage's /lib/aarch64-linux-gnu, where glibc's loader looks by
# default.
vm_stage_program() {
  local src=$1 dest=$2 stage=$3
  mkdir -p "$(dirname "$stage/$dest")"
  install -m 0755 "$src" "$stage/$dest"
  local -a queue=("$src")
  local elf lib path interp
  interp=$(aarch64-linux-gnu-readelf -l "$src" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
  if [[ -n "$interp" && ! -e "$stage/$interp" ]]; then
    path=$(vm_find_lib "$(basename "$interp")") || vm_die "no arm64 $interp on this machine"
    mkdir -p "$stage/$(dirname "$interp")"
    cp -L "$path" "$stage/$interp"
  fi
  while [[ ${#queue[@]} -gt 0 ]]; do
    elf=${queue[0]}
    queue=("${queue[@]:1}")
    for lib in $(aarch64-linux-gnu-readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [[ -e "$stage/lib/aarch64-linux-gnu/$lib" ]] && continue
      path=$(vm_find_lib "$lib") || vm_die "$src needs $lib, which is not installed for arm64"
      cp -L "$path" "$stage/lib/aarch64-linux-gnu/$lib"
      queue+=("$path")
    done
  done
}

# Packs stage $1 into the gzip-compressed newc cpio archive $2.
vm_pack() {
  (cd "$1" && find . -print0 | LC_ALL=C sort -z |
    cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$2"
}

# Boots initramfs $1, writing the serial console to $2. Returns 0 when the
# guest reported that it was done; otherwise says why and returns
# vm_cannot_boot's code when the machine never reached /init (slow, or QEMU
# could not start), 1 for every other failure.
vm_boot() {
  local initrd=$1 log=$2
  local boot_limit=${WORKGATE_VM_BOOT_LIMIT:-180} run_limit=${WORKGATE_VM_RUN_LIMIT:-300}
  # -icount shift=0: one instruction per virtual nanosecond. QEMU's emulated
  # PMU counts retired instructions only in this precise icount mode.
  # A named CPU, the same in QEMU 7.2 (Debian 12) and 10.0 (Debian 13):
  # "max" grows with each QEMU, and on 10.0 it added 5,283 instructions to
  # a --region count of 10,000 iterations (25,312, not 20,029) that
  # neoverse-n1 does not add on either release.
  qemu-system-aarch64 -M virt -cpu neoverse-n1 -icount shift=0 -m 1024 -smp 1 \
    -nographic -nic none -monitor none -serial "file:$log" -no-reboot \
    -kernel "$VM_DIR/vmlinuz" -initrd "$initrd" \
    -append "console=ttyAMA0 loglevel=1 panic=-1 rdinit=/init" </dev/null >/dev/null 2>"$log.qemu" &
  local pid=$! waited=0 limit=$boot_limit booted=0
  while kill -0 "$pid" 2>/dev/null; do
    if [[ $booted -eq 0 ]] && grep -q '^@@wg-booted' "$log" 2>/dev/null; then
      booted=1
      waited=0
      limit=$run_limit
    fi
    if [[ $waited -ge $((limit * 10)) ]]; then
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      vm_show_tail "$log"
      if [[ $booted -eq 0 ]]; then
        echo "ci/pmu-vm: the emulated machine did not boot within ${boot_limit} s" >&2
        vm_cannot_boot
        return
      fi
      echo "ci/pmu-vm: the command did not finish within ${run_limit} s" >&2
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  local qemu_status=0
  wait "$pid" 2>/dev/null || qemu_status=$?
  if ! grep -q '^@@wg-done' "$log" 2>/dev/null; then
    cat "$log.qemu" >&2
    vm_show_tail "$log"
    if grep -q '^@@wg-booted' "$log" 2>/dev/null; then
      echo "ci/pmu-vm: the emulated machine stopped before the command finished" >&2
      return 1
    fi
    # panic=-1 with -no-reboot: a panic ends QEMU; that is our kernel or
    # initramfs failing, not this host.
    # grep reads all of it (grep -q could stop first, and pipefail would
    # take tr's broken pipe for no panic).
    if tr -d '\r' 2>/dev/null <"$log" | grep 'Kernel panic' >/dev/null; then
      echo "ci/pmu-vm: the emulated kernel panicked before /init ran" >&2
      return 1
    fi
    echo "ci/pmu-vm: QEMU ended (status $qemu_status) before the machine booted" >&2
    vm_cannot_boot
    return
  fi
}

# Returns VM_CANNOT_BOOT, or 1 under CI=true, saying so.
vm_cannot_boot() {
  if [[ "${CI:-}" == true ]]; then
    echo "ci/pmu-vm: CI=true: an emulated machine that does not boot fails the run" >&2
    return 1
  fi
  return "$VM_CANNOT_BOOT"
}

vm_show_tail() {
  echo "--- last lines of the serial console (all of it is kept with WORKGATE_VM_KEEP=1) ---" >&2
  tail -n 20 "$1" | tr -d '\r' >&2
}

# Writes the file named $2 that the guest printed into console log $1 to
# path $3, or to standard output when $3 is "-". Returns 1 if the guest did
# not print it.
vm_extract() {
  local log=$1 name=$2 out=$3
  grep -qxF "@@wg-file-begin $name" <(tr -d '\r' <"$log") || return 1
  if [[ "$out" == - ]]; then
    vm_extract_raw "$log" "$name"
  else
    vm_extract_raw "$log" "$name" >"$out"
  fi
}

vm_extract_raw() {
  tr -d '\r' <"$1" |
    awk -v b="@@wg-file-begin $2" -v e="@@wg-file-end $2" \
      '$0 == e {on = 0} on {print} $0 == b {on = 1}' | base64 -d
}

# Names of the files the guest printed into console log $1, one a line.
vm_list_files() {
  tr -d '\r' <"$1" | sed -n 's/^@@wg-file-begin //p'
}

VM_BUILD="$VM_ROOT/build-arm64"
# Inside the machine, workgate and its companions keep the build tree's
# layout (workgate finds the clock shim and probes/ beside itself).
VM_GUEST_PREFIX=/opt/workgate

# Installs what the emulated machine needs (quiet when it is all there).
vm_setup() {
  "$VM_ROOT/ci/setup" --pmu-vm || vm_die "ci/setup --pmu-vm failed"
  vm_fetch
}

# Cross-builds workgate, the clock shim, vgcount (against the arm64 Valgrind
# vm_fetch unpacked) and the probes/ programs for arm64 in $VM_BUILD: what the
# machine runs, and nothing else. The tests are not built (they do not run in
# the machine), and workgate's C++ is compiled without debug information: the
# machine's copy is stripped of it anyway (vm_stage_workgate), and generating
# it took a third of the cross build's time. The C programs keep the flags of
# every other build (their instruction counts are what the checks compare).
vm_build() {
  mkdir -p "$VM_BUILD"
  # One run at a time builds and stages build-arm64; the lock is held until
  # this script exits.
  exec {VM_LOCK_FD}>"$VM_BUILD/.lock"
  flock "$VM_LOCK_FD"
  local -a toolchain=()
  # The toolchain file is read only when the build directory is made.
  [[ -f "$VM_BUILD/CMakeCache.txt" ]] ||
    toolchain=(-DCMAKE_TOOLCHAIN_FILE="$VM_ROOT/cmake/toolchain-aarch64.cmake")
  cmake -S "$VM_ROOT" -B "$VM_BUILD" -G "Unix Makefiles" "${toolchain[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
    -DWORKGATE_BUILD_TESTS=OFF -DVGCOUNT_VALGRIND_ROOT="$VM_VALGRIND" >"$VM_BUILD/configure.log" 2>&1 ||
    { cat "$VM_BUILD/configure.log" >&2; rm -f "$VM_BUILD/CMakeCache.txt"; vm_die "configuring the arm64 build failed"; }
  # The package's arm64 Valgrind is there, so a configure that leaves vgcount
  # out is this build's fault, never the machine's: say why it did.
  cmake --build "$VM_BUILD" --target help | grep -w vgcount_tool >/dev/null ||
    vm_die "the arm64 build leaves vgcount out: $(grep 'vgcount:' "$VM_BUILD/configure.log")"
  local jobs
  jobs=$(nproc)
  local -a targets=(workgate)
  if cmake --build "$VM_BUILD" --target help | grep -w workgate_clock >/dev/null; then
    targets+=(workgate_clock)
  fi
  cmake --build "$VM_BUILD" -j"$jobs" --target "${targets[@]}" >"$VM_BUILD/build.log" 2>&1 ||
    { tail -n 40 "$VM_BUILD/build.log" >&2; vm_die "the arm64 build of workgate failed (log: $VM_BUILD/build.log)"; }
  make -C "$VM_BUILD/probes" -j"$jobs" >>"$VM_BUILD/build.log" 2>&1 ||
    { tail -n 40 "$VM_BUILD/build.log" >&2; vm_die "the arm64 build of probes/ failed (log: $VM_BUILD/build.log)"; }
}

# Stages the arm64 build into stage $1 under $VM_GUEST_PREFIX, with the
# libraries everything needs, and makes ./probes visible in /work.
vm_stage_workgate() {
  local stage=$1 f
  vm_stage_program "$VM_BUILD/workgate" "$VM_GUEST_PREFIX/workgate" "$stage"
  # Its debug information is most of its size (about 50 MB), and the machine
  # unpacks every byte of the initramfs at emulated speed.
  aarch64-linux-gnu-strip --strip-debug "$stage/$VM_GUEST_PREFIX/workgate"
  if [[ -f "$VM_BUILD/libworkgate-clock.so" ]]; then
    vm_stage_program "$VM_BUILD/libworkgate-clock.so" "$VM_GUEST_PREFIX/libworkgate-clock.so" "$stage"
  fi
  for f in "$VM_BUILD"/probes/*; do
    [[ -f "$f" && -x "$f" ]] || continue
    vm_stage_program "$f" "$VM_GUEST_PREFIX/probes/$(basename "$f")" "$stage"
  done
  ln -s "$VM_GUEST_PREFIX/probes" "$stage/work/probes"
  ln -s "$VM_GUEST_PREFIX/workgate" "$stage/bin/workgate"
}

# Stages the arm64 Valgrind into stage $1 where Debian installs it (the
# launcher in /usr/bin, the files it loads in /usr/libexec/valgrind), with
# only what workgate's Valgrind backends load: the core's preload and
# suppressions, callgrind, and memcheck, the launcher's default tool, which
# answers the `valgrind --version` workgate asks; and vgcount as the build
# lays it out, in valgrind-lib/ beside workgate, with links to those files.
# The other tools are left out: the machine unpacks every byte at emulated
# speed.
vm_stage_valgrind() {
  local stage=$1 f lib=/usr/libexec/valgrind
  local vglib=$VM_GUEST_PREFIX/valgrind-lib
  # Debian's launcher is a shell script that runs valgrind.bin beside it.
  install -D -m 0755 "$VM_VALGRIND/usr/bin/valgrind" "$stage/usr/bin/valgrind"
  vm_stage_program "$VM_VALGRIND/usr/bin/valgrind.bin" /usr/bin/valgrind.bin "$stage"
  mkdir -p "$stage/$lib" "$stage/$vglib"
  for f in vgpreload_core-arm64-linux.so default.supp callgrind-arm64-linux \
    memcheck-arm64-linux; do
    [[ -f "$VM_VALGRIND/$lib/$f" ]] || vm_die "the valgrind:arm64 package has no $lib/$f"
    cp "$VM_VALGRIND/$lib/$f" "$stage/$lib/$f"
    ln -s "$lib/$f" "$stage/$vglib/$f"
  done
  install -m 0755 "$VM_BUILD/valgrind-lib/vgcount-arm64-linux" "$stage/$vglib/"
  # Valgrind reads a tool's symbols, never its debug information.
  aarch64-linux-gnu-strip --strip-debug "$stage/$vglib/vgcount-arm64-linux"
}

# True when $1 is a dynamically linked arm64 ELF file.
vm_is_arm64_dynamic() {
  aarch64-linux-gnu-readelf -h "$1" 2>/dev/null | grep 'Machine:.*AArch64' >/dev/null &&
    aarch64-linux-gnu-readelf -d "$1" 2>/dev/null | grep '(NEEDED)' >/dev/null
}

# Quotes each argument for a POSIX shell (busybox ash has no $'...').
vm_sh_quote() {
  local a out=""
  for a in "$@"; do
    out+="'${a//\'/\'\\\'\'}' "
  done
  printf '%s' "$out"
}
