# Sourced by tools/debian-check.sh and tools/debian-gpu-build.sh: mounts a
# Debian chroot needs (proc, dev, sys, this machine's CUDA toolkit
# read-only, and folders given) and undoes them. The caller sets
# chroot_dir and calls chroot_unmount_all on exit.
chroot_mounts=()
# chroot_bind SOURCE [ro [PATH]]: SOURCE at PATH inside (default: SOURCE)
chroot_bind() {
  local target=$chroot_dir${3:-$1}
  mkdir -p "$target"
  mount --rbind "$1" "$target" || return 1
  chroot_mounts+=("$target")
  if [ "${2:-}" = ro ]; then mount -o remount,ro,bind "$target"; fi
}
chroot_mount_system() {
  cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
  mount -t proc proc "$chroot_dir/proc" || return 1
  chroot_mounts+=("$chroot_dir/proc")
  chroot_bind /dev && chroot_bind /sys || return 1
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    chroot_bind "$(readlink -f /usr/local/cuda)" ro /usr/local/cuda
  fi
}
chroot_unmount_all() {
  for ((i = ${#chroot_mounts[@]} - 1; i >= 0; i--)); do
    umount -R "${chroot_mounts[$i]}" 2>/dev/null ||
      umount -lR "${chroot_mounts[$i]}" 2>/dev/null || true
  done
  chroot_mounts=()
}
# whether anything is still mounted under the chroot (then never delete it)
chroot_has_mounts() {
  findmnt -rn -o TARGET | grep -q "^$chroot_dir/"
}
# chroot_run DIR_INSIDE COMMAND: a login-like clean environment, as root
chroot_run() {
  chroot "$chroot_dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd $1 && $2"
}
