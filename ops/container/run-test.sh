#!/usr/bin/env bash
# Starts the sidecar image (built by build-image.sh) as a container and proves it works:
# plain-SQL rows written to a fresh PostgreSQL database arrive at the broker, /health answers UP,
# /metrics counts them, the process runs as uid 10001, and SIGTERM stops it with exit code 0.
#
#   ops/container/run-test.sh                 # RabbitMQ (the shared server)
#   BROKER=kafka ops/container/run-test.sh    # a Kafka broker of its own, started here
#
# Servers: PostgreSQL on 127.0.0.1:5432 (user postgres, trust); RabbitMQ on 127.0.0.1:5672
# (guest). Tools: psql, curl, podman; amqp-consume (apt-get install amqp-tools) for RabbitMQ.
# RabbitMQ: the relay publishes to the built-in exchange amq.topic (routing key: the event type);
# a private exclusive queue bound to the test's event type receives the rows.
# Kafka: a single-node KRaft broker (the test kit's BrokerMain, on the twinbox-testkit module's
# Maven classpath) on 127.0.0.1:$KAFKA_PORT; the relay publishes to one topic of this run, which
# ops/container/kafka/KafkaRead.java reads back.
#
# When podman cannot run a container here, the test runs the image's own root file system
# (umoci unpack of the OCI layout) with chroot as uid 10001 with the image's entrypoint and
# environment, and says so; RUNNER=chroot forces that path, RUNNER=podman forbids it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$here/target}
TAG=${TAG:-dev}
IMAGE=${IMAGE:-localhost/twinbox-relay:$TAG}
PORT=${PORT:-18419}
ROWS=${ROWS:-50}
RUNNER=${RUNNER:-auto}
BROKER=${BROKER:-rabbitmq}
KAFKA_PORT=${KAFKA_PORT:-19092}
repo=$(cd "$here/../.." && pwd)
PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres
export PGHOST PGPORT PGUSER
run=$(date +%s)$$
DB=twinbox_p19_container_$run
TYPE=ContainerProbe
name=twinbox-relay-test-$run
log=$OUT/run-$run.log
received=$OUT/received-$run.txt
mode=

fail() { echo "run-test: FAIL: $*" >&2; [ -f "$log" ] && { echo "--- relay log (last 30 lines):" >&2; tail -n 30 "$log" >&2; }; exit 1; }
step() { echo "run-test: $*"; }
[ "$BROKER" = rabbitmq ] || [ "$BROKER" = kafka ] || { echo "run-test: BROKER must be rabbitmq or kafka" >&2; exit 2; }
tools="psql curl"; [ "$BROKER" = rabbitmq ] && tools="$tools amqp-consume"
for tool in $tools; do command -v "$tool" >/dev/null || fail "$tool not found"; done
mkdir -p "$OUT"

relay_env=(
  TWINBOX_DB_URL="jdbc:postgresql://127.0.0.1:5432/$DB"
  TWINBOX_DB_USER=postgres
  TWINBOX_RELAY_NAME=container-test
  TWINBOX_HTTP_PORT="$PORT"
)
topic=container-test-$run
if [ "$BROKER" = rabbitmq ]; then
  relay_env+=(TWINBOX_TRANSPORT=rabbitmq TWINBOX_RABBITMQ_HOST=127.0.0.1 TWINBOX_RABBITMQ_EXCHANGE=amq.topic)
else
  relay_env+=(TWINBOX_TRANSPORT=kafka TWINBOX_KAFKA_BOOTSTRAP_SERVERS="127.0.0.1:$KAFKA_PORT" TWINBOX_KAFKA_TOPIC="$topic")
fi

rootfs_pid=
bundle=
consumer_pid=
kafka_pid=
kafka_dir=
cleanup() {
  set +e
  if [ -n "$kafka_pid" ]; then kill -TERM "$kafka_pid" 2>/dev/null; wait "$kafka_pid" 2>/dev/null; fi
  [ -n "$kafka_dir" ] && rm -rf "$kafka_dir"
  [ -n "$consumer_pid" ] && kill "$consumer_pid" 2>/dev/null
  if [ "$mode" = podman ]; then podman rm -f "$name" > /dev/null 2>&1; fi
  if [ -n "$rootfs_pid" ] && kill -0 "$rootfs_pid" 2>/dev/null; then kill -TERM "$rootfs_pid"; wait "$rootfs_pid"; fi
  if [ -n "$bundle" ]; then umount "$bundle/rootfs/proc" 2>/dev/null; rm -rf "$bundle"; fi
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" > /dev/null 2>&1
}
trap cleanup EXIT

psql -q -d postgres -c "CREATE DATABASE $DB" || fail "cannot create database $DB"
step "database $DB"

# --- Kafka: a broker of this run ------------------------------------------------------------------
kafka_cp=
start_kafka() {
  local cpfile=$OUT/testkit-classpath.txt
  if [ ! -s "$cpfile" ] || [ ! -d "$repo/twinbox-testkit/target/classes" ]; then
    step "resolving the Kafka broker's classpath (twinbox-testkit, compile)"
    (cd "$repo" && ./mvnw -B -q -pl twinbox-testkit -am compile dependency:build-classpath \
      -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=runtime) > "$OUT/classpath.log" 2>&1 \
      || fail "cannot build the test kit's classpath, see $OUT/classpath.log"
  fi
  kafka_cp="$repo/twinbox-testkit/target/classes:$(cat "$cpfile")"
  kafka_dir=$OUT/kafka-$run
  mkdir -p "$kafka_dir"
  cat > "$kafka_dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((KAFKA_PORT + 1))
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$((KAFKA_PORT + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$kafka_dir/data
num.partitions=4
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  local cluster
  cluster=$(python3 -c 'import base64,uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')
  java -cp "$kafka_cp" io.twinbox.testkit.internal.BrokerMain "$kafka_dir/server.properties" \
    "$kafka_dir/data" "$cluster" > "$kafka_dir/broker.log" 2>&1 &
  kafka_pid=$!
  for _ in $(seq 1 120); do
    kill -0 "$kafka_pid" 2>/dev/null || fail "Kafka exited: $(tail -n 5 "$kafka_dir/broker.log")"
    grep -q 'Kafka Server started\|\[KafkaRaftServer nodeId=1\] Kafka Server started' "$kafka_dir/broker.log" && break
    sleep 0.5
  done
  grep -q 'Kafka Server started' "$kafka_dir/broker.log" || fail "Kafka not started within 60 s: $(tail -n 5 "$kafka_dir/broker.log")"
  step "Kafka broker on 127.0.0.1:$KAFKA_PORT (pid $kafka_pid), topic $topic"
}
[ "$BROKER" = kafka ] && start_kafka

# --- start the relay ----------------------------------------------------------------------------
start_podman() {
  local envargs=() kv
  for kv in "${relay_env[@]}"; do envargs+=(-e "$kv"); done
  # This machine (a sandbox VM with cgroup v1 + a cgroup2 mount, "hybrid") needs three changes from
  # podman's defaults, each found by its error: crun refuses hybrid cgroups ("cgroups in hybrid
  # mode not supported"), so runc; podman's default rlimits (nofile 1048576, nproc = the host's)
  # are refused ("setrlimit RLIMIT_NOFILE/RLIMIT_NPROC: Operation not permitted"), so the shell's
  # own nofile and a lower nproc. OCI_RUNTIME= and ULIMITS= override them.
  local runtime=${OCI_RUNTIME-$(command -v runc >/dev/null && echo runc)}
  local opts=(${runtime:+--runtime "$runtime"})
  local ulimits=${ULIMITS-"nofile=$(ulimit -n):$(ulimit -Hn) nproc=4096:4096"} u
  for u in $ulimits; do opts+=(--ulimit "$u"); done
  # PODMAN_EXTRA adds options, e.g. "--read-only --tmpfs /tmp" as in ops/k8s/deployment.yaml.
  opts+=(${PODMAN_EXTRA:-})
  step "podman run ${opts[*]} --network host $IMAGE --migrate"
  podman run -d --name "$name" --network host "${opts[@]}" "${envargs[@]}" "$IMAGE" --migrate \
    > "$OUT/podman-run-$run.txt" 2>&1
}

start_rootfs() {
  local layout=$OUT/oci
  [ -d "$layout" ] || fail "no OCI layout at $layout; run build-image.sh first"
  bundle=$OUT/bundle-$run
  umoci unpack --image "$layout:$TAG" "$bundle" > /dev/null || fail "umoci unpack $layout:$TAG failed"
  # The image's own entrypoint, environment and user, as umoci wrote them into the runtime config.
  local cfg=$bundle/config.json
  mapfile -t args < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["process"]["args"]]' "$cfg")
  mapfile -t imgenv < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["process"]["env"]]' "$cfg")
  local uid gid
  uid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["user"]["uid"])' "$cfg")
  gid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["user"]["gid"])' "$cfg")
  mount -t proc proc "$bundle/rootfs/proc"
  step "rootfs entrypoint as $uid:$gid: ${args[*]} --migrate"
  chroot --userspec="$uid:$gid" "$bundle/rootfs" /usr/bin/env -i "${imgenv[@]}" "${relay_env[@]}" \
    "${args[@]}" --migrate > "$log" 2>&1 &
  rootfs_pid=$!
}

if [ "$RUNNER" != chroot ]; then
  command -v podman >/dev/null || fail "podman not installed (RUNNER=chroot runs the unpacked rootfs)"
  if start_podman; then
    mode=podman
    step "container $name started with podman (host network) from $IMAGE"
  else
    step "podman could not start the container; its error:"
    sed 's/^/    /' "$OUT/podman-run-$run.txt"
    podman rm -f "$name" > /dev/null 2>&1 || true
    [ "$RUNNER" = podman ] && fail "podman run failed (RUNNER=podman)"
  fi
fi
if [ -z "$mode" ]; then
  mode=chroot
  step "FALLBACK: running the image's unpacked rootfs with chroot, not as a container"
  start_rootfs
fi

relay_alive() {
  if [ "$mode" = podman ]; then [ "$(podman inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" = true ]
  else kill -0 "$rootfs_pid" 2>/dev/null; fi
}
save_log() { [ "$mode" = podman ] && podman logs "$name" > "$log" 2>&1 || true; }

# Wait for the HTTP side (it starts after the migration); the relay must not have exited.
health_code=000
for _ in $(seq 1 120); do
  relay_alive || { save_log; fail "the relay exited before /health answered"; }
  health_code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/health" || true)
  [ "$health_code" != 000 ] && break
  sleep 1
done
[ "$health_code" != 000 ] || { save_log; fail "/health on port $PORT never answered"; }
step "/health answers ($health_code)"

# --- write plain-SQL rows, receive them --------------------------------------------------------
: > "$received"
if [ "$BROKER" = rabbitmq ]; then
  timeout 120 amqp-consume -s 127.0.0.1 -e amq.topic -r "$TYPE" -x -c "$ROWS" -- sh -c 'cat; echo' \
    > "$received" 2> "$OUT/consumer-$run.err" &
  consumer_pid=$!
  for _ in $(seq 1 50); do grep -q 'queue name' "$OUT/consumer-$run.err" && break; sleep 0.2; done
  grep -q 'queue name' "$OUT/consumer-$run.err" || fail "consumer did not bind: $(cat "$OUT/consumer-$run.err")"
fi

psql -q -v ON_ERROR_STOP=1 -d "$DB" <<SQL || fail "plain-SQL insert refused"
INSERT INTO twinbox_outbox (aggregate_type, aggregate_id, type, version, payload)
SELECT 'Order', (g % 5)::text, '$TYPE', 1, jsonb_build_object('run', '$run', 'n', g)
FROM generate_series(1, $ROWS) AS g;
SQL
step "inserted $ROWS plain-SQL rows (5 aggregates) in one transaction"

if [ "$BROKER" = kafka ]; then
  # Reads the topic from its start: the rows may be published before the reader subscribes.
  timeout 150 java -cp "$kafka_cp" "$here/kafka/KafkaRead.java" "127.0.0.1:$KAFKA_PORT" "$topic" \
    "\"run\": \"$run\"" "$ROWS" 120 > "$received" 2> "$OUT/consumer-$run.err" &
  consumer_pid=$!
fi

wait "$consumer_pid" || { consumer_pid=; save_log; fail "consumer got $(grep -c "\"$run\"" "$received" || true) of $ROWS messages within 120 s"; }
consumer_pid=
got=$(grep -c "\"run\": \"$run\"" "$received" || true)
distinct=$(grep -o '"n": [0-9]*' "$received" | sort -u | wc -l)
[ "$got" = "$ROWS" ] && [ "$distinct" = "$ROWS" ] || fail "received $got messages of this run ($distinct distinct), expected $ROWS"
step "$BROKER delivered $got of $ROWS rows ($distinct distinct), e.g. $(head -n 1 "$received")"

for _ in $(seq 1 50); do
  left=$(psql -tA -d "$DB" -c "SELECT count(*) FROM twinbox_outbox")
  [ "$left" = 0 ] && break; sleep 0.2
done
[ "$left" = 0 ] || fail "$left rows still in twinbox_outbox after delivery"
step "twinbox_outbox is empty (completion mode DELETE)"

# --- health, metrics, user ---------------------------------------------------------------------
health=$(curl -s -w ' HTTP %{http_code}' "http://127.0.0.1:$PORT/health")
step "/health: $health"
case "$health" in *'HTTP 200') ;; *) fail "/health is not 200: $health";; esac
echo "$health" | grep -q 'UP' || fail "/health does not say UP: $health"
published=$(curl -s "http://127.0.0.1:$PORT/metrics" | grep '^twinbox_relay_publish_total{outcome="published"' || true)
step "/metrics: ${published:-no published series}"
[ "${published##* }" = "$ROWS.0" ] || fail "/metrics does not count $ROWS published: $published"

if [ "$mode" = podman ]; then
  uid=$(podman exec "$name" id -u)
else
  uid=$(ps -o uid= -p "$(pgrep -P "$rootfs_pid" java || echo "$rootfs_pid")" | tr -d ' ')
fi
[ "$uid" = 10001 ] || fail "the relay runs as uid $uid, not 10001"
step "the relay runs as uid $uid"

# --- graceful stop -----------------------------------------------------------------------------
if [ "$mode" = podman ]; then
  podman stop -t 30 "$name" > /dev/null
  code=$(podman inspect -f '{{.State.ExitCode}}' "$name")
  podman logs "$name" > "$log" 2>&1
else
  kill -TERM "$rootfs_pid"; code=0; wait "$rootfs_pid" || code=$?; rootfs_pid=
fi
[ "$code" = 0 ] || fail "SIGTERM stop exit code $code, expected 0"
step "SIGTERM: exit code 0"
step "PASS ($mode): $ROWS plain-SQL rows from PostgreSQL to $BROKER through the sidecar image; log $log"
