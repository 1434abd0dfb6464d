#!/usr/bin/env bash
# Builds the OCI image of the Twinbox sidecar (`twinbox relay`) from what this machine can reach:
# Debian packages (debootstrap + apt) and the project's own fat jar. No image registry is used.
#
#   ops/container/build-image.sh            # jar from twinbox-cli/target/twinbox.jar
#   TWINBOX_JAR=/path/twinbox.jar ops/container/build-image.sh
#
# Result: an OCI image layout at $OUT/oci (tag $TAG), and, when podman is installed, the same
# image in podman's local storage as localhost/twinbox-relay:$TAG.
#
# Layers: 1. Debian bookworm minbase + openjdk-17-jre-headless + user twinbox (uid 10001),
#         2. /app/twinbox.jar.
# The Debian root file system is built once and cached under $CACHE (debootstrap takes minutes,
# a rebuild with a new jar takes seconds). Delete $CACHE to rebuild it from scratch.
# Needs root (debootstrap, chroot), debootstrap and umoci: apt-get install debootstrap umoci podman
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CACHE=${CACHE:-/var/tmp/twinbox-image}
OUT=${OUT:-$here/target}
TAG=${TAG:-dev}
IMAGE=${IMAGE:-twinbox-relay}
TWINBOX_JAR=${TWINBOX_JAR:-$repo/twinbox-cli/target/twinbox.jar}
HTTP_PORT=8080
APP_UID=10001
PACKAGES="openjdk-17-jre-headless"

fail() { echo "build-image: $*" >&2; exit 1; }
step() { echo "build-image: $*"; }

[ "$(id -u)" = 0 ] || fail "must run as root (debootstrap and chroot need it)"
for tool in debootstrap umoci chroot tar; do
  command -v "$tool" >/dev/null || fail "$tool not found; apt-get install debootstrap umoci"
done
[ -f "$TWINBOX_JAR" ] || fail "no jar at $TWINBOX_JAR; build it: ./mvnw -B -q package -pl twinbox-cli -am -DskipTests"
unzip -p "$TWINBOX_JAR" META-INF/MANIFEST.MF 2>/dev/null | grep -q '^Main-Class:' \
  || fail "$TWINBOX_JAR is not an executable jar (no Main-Class in its manifest)"

start=$(date +%s)
rootfs=$CACHE/rootfs-$SUITE
stamp=$rootfs/.twinbox-rootfs-done
want_stamp="$SUITE $MIRROR $PACKAGES uid=$APP_UID"

# --- 1. The Debian root file system (cached) --------------------------------------------------
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
  step "rootfs cached at $rootfs"
else
  step "debootstrap $SUITE (minbase) into $rootfs"
  rm -rf "$rootfs"
  mkdir -p "$CACHE"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 \
    || fail "debootstrap failed, see $CACHE/debootstrap.log: $(tail -n 3 "$CACHE/debootstrap.log")"
  step "apt-get install $PACKAGES (no recommends)"
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $PACKAGES && apt-get clean" \
    > "$CACHE/apt.log" 2>&1 || fail "apt-get in the rootfs failed, see $CACHE/apt.log: $(tail -n 3 "$CACHE/apt.log")"
  # The non-root user the relay runs as; no login shell, no home beyond /app.
  chroot "$rootfs" groupadd --gid "$APP_UID" twinbox
  chroot "$rootfs" useradd --uid "$APP_UID" --gid "$APP_UID" --no-create-home \
    --home-dir /app --shell /usr/sbin/nologin twinbox
  # Trim what a runtime image does not need.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log
  # (java finds libjli.so through $ORIGIN, which glibc reads from /proc/self/exe: /proc is needed.)
  chroot "$rootfs" java -version > "$CACHE/java-version.txt" 2>&1 \
    || fail "java does not run in the rootfs: $(cat "$CACHE/java-version.txt")"
  umount "$rootfs/proc"; trap - EXIT
  echo "$want_stamp" > "$stamp"
fi
java_version=$(head -n 1 "$CACHE/java-version.txt")
step "rootfs java: $java_version"

# --- 2. The OCI image: base layer, then the jar -----------------------------------------------
layout=$OUT/oci
work=$OUT/work
rm -rf "$layout" "$work"
mkdir -p "$OUT" "$work"
umoci init --layout "$layout"
umoci new --image "$layout:$TAG"

step "layer 1: Debian $SUITE + JRE + user twinbox ($APP_UID)"
umoci unpack --image "$layout:$TAG" "$work/bundle" > /dev/null
tar -C "$rootfs" --exclude=./.twinbox-rootfs-done --exclude='./proc/*' --exclude='./dev/*' -cf - . \
  | tar -C "$work/bundle/rootfs" -xpf -
umoci repack --image "$layout:$TAG" "$work/bundle"
rm -rf "$work/bundle"

step "layer 2: /app/twinbox.jar"
umoci unpack --image "$layout:$TAG" "$work/bundle" > /dev/null
install -d -o 0 -g 0 -m 0755 "$work/bundle/rootfs/app"
install -o 0 -g 0 -m 0644 "$TWINBOX_JAR" "$work/bundle/rootfs/app/twinbox.jar"
umoci repack --image "$layout:$TAG" "$work/bundle"
rm -rf "$work"

revision=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
umoci config --image "$layout:$TAG" \
  --config.user "$APP_UID:$APP_UID" \
  --config.workingdir /app \
  --config.entrypoint java --config.entrypoint -XX:MaxRAMPercentage=75 \
  --config.entrypoint -jar --config.entrypoint /app/twinbox.jar --config.entrypoint relay \
  --clear=config.cmd \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.env LANG=C.UTF-8 \
  --config.env TWINBOX_HTTP_BIND=0.0.0.0 \
  --config.env TWINBOX_HTTP_PORT=$HTTP_PORT \
  --config.exposedports "$HTTP_PORT/tcp" \
  --config.stopsignal SIGTERM \
  --config.label org.opencontainers.image.title=twinbox-relay \
  --config.label org.opencontainers.image.description="Twinbox sidecar: twinbox relay" \
  --config.label org.opencontainers.image.revision="$revision" \
  --config.label org.opencontainers.image.base.name="debian:$SUITE (debootstrap minbase)" \
  --history.created_by "ops/container/build-image.sh" \
  --tag "$TAG"
umoci gc --layout "$layout"

size=$(du -sb "$layout" | cut -f1)
step "OCI layout $layout:$TAG ($((size / 1024 / 1024)) MiB compressed)"

if command -v podman >/dev/null; then
  old=$(podman image inspect -f '{{.Id}}' "localhost/$IMAGE:$TAG" 2>/dev/null || true)
  if command -v skopeo >/dev/null; then
    skopeo copy -q "oci:$layout:$TAG" "containers-storage:localhost/$IMAGE:$TAG" 2> "$OUT/podman-load.log" \
      || fail "skopeo could not copy oci:$layout:$TAG into podman's storage: $(tail -n 3 "$OUT/podman-load.log")"
  else
    # `podman pull -q` prints the image id; it names the image after the layout's path, so retag it.
    id=$(podman pull -q "oci:$layout:$TAG" 2> "$OUT/podman-load.log") \
      || fail "podman could not load oci:$layout:$TAG: $(tail -n 3 "$OUT/podman-load.log")"
    podman tag "$id" "localhost/$IMAGE:$TAG"
    podman untag "$id" "localhost${layout}:$TAG" 2>/dev/null || true
  fi
  new=$(podman image inspect -f '{{.Id}}' "localhost/$IMAGE:$TAG")
  # The previous build of this tag, now untagged, is ours to remove (only if nothing uses it).
  if [ -n "$old" ] && [ "$old" != "$new" ]; then podman rmi "$old" > /dev/null 2>&1 || true; fi
  step "podman image localhost/$IMAGE:$TAG ${new:0:12} ($(podman image inspect -f '{{.Size}}' "localhost/$IMAGE:$TAG" \
    | awk '{printf "%d MiB", $1/1024/1024}') uncompressed)"
else
  step "podman not installed: the image is the OCI layout only"
fi
step "done in $(( $(date +%s) - start )) s"
