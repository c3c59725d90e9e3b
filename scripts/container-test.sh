#!/usr/bin/env bash
# Builds Taskboard's container image and the compose stack (compose.yaml) from Debian's packages and
# the npm registry alone, starts the stack and checks the scale-out from outside: the web app through
# the proxy, a card written through one instance read through the other, a live stream on one
# instance receiving a change made on the other, an attachment uploaded through one and downloaded
# through the other, a `kill -9` of an instance losing no acknowledged write while the proxy keeps
# answering, every record kept across `down` and `up`, and a backup (pg_dump and the store's files)
# restored into an emptied stack. The stack is torn down at the end, whatever happened. CI runs it after `npm test` (.ci/run); run it as root.
#
# Installs what is missing from Debian (podman, buildah, podman-compose, runc, debootstrap, the CNI
# plugins with name resolution). Keeps the base image and the build cache between runs.
# Prints the figures at the end: base and image build times, image size, start-to-ready times.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

now_ms() { date +%s%3N; }
script_started=$(now_ms)
log() { printf 'container-test: %s\n' "$*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}
# wait_for WHAT SECONDS COMMAND...: runs COMMAND until it succeeds; fails the test past SECONDS.
wait_for() {
  local what=$1 limit=$2
  shift 2
  local deadline=$(($(now_ms) + limit * 1000))
  until "$@" >/dev/null 2>&1; do
    (($(now_ms) < deadline)) || fail "$what: not within ${limit}s"
    sleep 0.05
  done
}

# --- Tools -----------------------------------------------------------------------------------------
packages=(podman buildah podman-compose runc debootstrap containernetworking-plugins
  golang-github-containernetworking-plugin-dnsname iptables binutils curl jq)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
  [ "$(id -u)" = 0 ] || fail "run as root: ${missing[*]} must be installed from Debian"
  log "installing ${missing[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# This machine's root lacks CAP_SYS_RESOURCE: crun fails on its hybrid cgroups, and runc needs its
# limits given explicitly. A caller's own CONTAINERS_CONF wins.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  export CONTAINERS_CONF=/var/tmp/taskboard-containers.conf
  cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "runc"
EOF
fi

work=$(mktemp -d /var/tmp/taskboard-container-test.XXXXXX)
project=taskboard-ci
# What podman-compose and podman start say (podman's complaints that there is no systemd to run
# health checks with included); shown when the test fails.
compose_log="$work/compose.log"
compose() { podman-compose -p "$project" -f compose.yaml -f containers/compose.ci.yaml "$@" >>"$compose_log" 2>&1; }
container() { echo "${project}_$1_1"; }
# Down, and the anonymous volumes of the image's VOLUME (the instances' unused /app/data) with it.
compose_down() {
  local anonymous
  anonymous=$(podman ps -a --filter "label=io.podman.compose.project=$project" --format '{{.ID}}' |
    xargs -r podman inspect --format '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}' |
    tr ' ' '\n' | grep -E '^[0-9a-f]{64}$' || true)
  compose down "$@" || true
  [ -z "$anonymous" ] || podman volume rm $anonymous >/dev/null 2>&1 || true
}
background_pids=()
finish() {
  local status=$?
  for pid in "${background_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ "$status" != 0 ]; then
    log "--- last lines of podman-compose and podman start"
    tail -15 "$compose_log" | sed 's/^/    /' >&2 || true
    for service in postgres redis s3 migrate taskboard-1 taskboard-2 proxy; do
      log "--- last lines of $service"
      podman logs --tail 30 "$(container "$service")" 2>&1 | sed 's/^/    /' >&2 || true
    done
  fi
  log "tearing the stack down"
  compose_down -t 15 -v
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap finish EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export TASKBOARD_HTTP_PORT=${TASKBOARD_HTTP_PORT:-$(free_port)} TASKBOARD_1_PORT=$(free_port) TASKBOARD_2_PORT=$(free_port)
proxy_url=http://127.0.0.1:$TASKBOARD_HTTP_PORT
instance_url=([1]=http://127.0.0.1:$TASKBOARD_1_PORT [2]=http://127.0.0.1:$TASKBOARD_2_PORT)

# Leftovers of a run that was itself killed.
compose_down -t 1 -v

# --- Images ----------------------------------------------------------------------------------------
started=$(now_ms)
base=$(bash scripts/container-base.sh)
base_ms=$(($(now_ms) - started))
export TASKBOARD_NODE_BASE=$base TASKBOARD_DEBIAN_BASE=$base TASKBOARD_IMAGE=localhost/taskboard:latest

# npm inside the build trusts the CAs this machine trusts (a TLS-inspecting proxy may sit on the way).
ca_bundle=${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
npm_ca=()
if [ -f "$ca_bundle" ]; then
  npm_ca=(--volume "$ca_bundle:/run/taskboard-build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/taskboard-build-ca.crt)
fi
build() { # build TAG CONTEXT [FILE] [more podman build arguments]
  local tag=$1 context=$2 file=${3:-$2/Containerfile}
  shift 3 || shift $#
  podman build --quiet --format docker --layers ${TASKBOARD_IMAGE_NO_CACHE:+--no-cache} \
    --build-arg "BASE=$base" -t "$tag" -f "$file" "$@" "$context" >"$work/build.log" 2>&1 || {
    tail -40 "$work/build.log" >&2
    fail "building $tag"
  }
}
log "building the image"
started=$(now_ms)
build "$TASKBOARD_IMAGE" . Containerfile "${npm_ca[@]}"
image_ms=$(($(now_ms) - started))
image_bytes=$(podman image inspect --format '{{.Size}}' "$TASKBOARD_IMAGE")
log "building the proxy, PostgreSQL, Redis and S3 images"
started=$(now_ms)
build localhost/taskboard-proxy:latest containers/proxy
build localhost/taskboard-postgres:15 containers/postgres
build localhost/taskboard-redis:7 containers/redis
build localhost/taskboard-s3:latest containers/s3 containers/s3/Containerfile "${npm_ca[@]}"
services_ms=$(($(now_ms) - started))

# --- The stack -------------------------------------------------------------------------------------
# Debian's podman-compose (1.0.3) ignores depends_on conditions, so the order compose.yaml states is
# kept here: the stores, then the migrations once, then the instances, then the proxy.
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1/readyz")" = 200 ]; }
declare -A ready_ms ready_cpu_ms
# The CPU time a process has used (user and system, all its threads): on this shared machine the
# wall time to ready mostly measures the other work, this measures the start's own cost.
cpu_ms() { awk -v tick="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / tick) }' "/proc/$1/stat"; }
stack_up() {
  compose up --no-start
  podman start "$(container postgres)" "$(container redis)" "$(container s3)" >/dev/null 2>>"$compose_log"
  wait_for "PostgreSQL ready" 60 podman exec "$(container postgres)" pg_isready --host=127.0.0.1 --quiet
  wait_for "Redis ready" 30 sh -c "podman exec $(container redis) redis-cli ping | grep -q PONG"
  podman start "$(container migrate)" >/dev/null 2>>"$compose_log"
  local migrated
  migrated=$(podman wait "$(container migrate)")
  [ "$migrated" = 0 ] || fail "the migrations exited with $migrated: $(podman logs --tail 5 "$(container migrate)" 2>&1)"
  local n started
  for n in 1 2; do
    started=$(now_ms)
    podman start "$(container "taskboard-$n")" >/dev/null 2>>"$compose_log"
    wait_for "instance $n ready" 120 ready "${instance_url[$n]}"
    ready_ms[$n]=$(($(now_ms) - started))
    ready_cpu_ms[$n]=$(cpu_ms "$(podman inspect --format '{{.State.Pid}}' "$(container "taskboard-$n")")")
  done
  podman start "$(container proxy)" >/dev/null 2>>"$compose_log"
  wait_for "the proxy answering" 30 ready "$proxy_url"
}
log "starting the stack"
stack_up
log "ready after start: instance 1 ${ready_ms[1]} ms (${ready_cpu_ms[1]} ms of CPU), instance 2 ${ready_ms[2]} ms (${ready_cpu_ms[2]} ms of CPU)"
first_ready="${ready_ms[1]} ${ready_ms[2]} (CPU ${ready_cpu_ms[1]} ${ready_cpu_ms[2]})"

# --- Checks ----------------------------------------------------------------------------------------
# api METHOD URL [curl arguments]: the body on stdout; fails the test on an answer other than 2xx.
api() {
  local method=$1 url=$2
  shift 2
  local status
  status=$(curl -sS -o "$work/body" -w '%{http_code}' --max-time 15 -X "$method" -H "Authorization: Bearer $key" "$@" "$url") ||
    fail "$method $url: no answer"
  [[ $status == 2* ]] || fail "$method $url: $status $(head -c 300 "$work/body")"
  cat "$work/body"
}
json=(-H 'Content-Type: application/json')

log "the web app through the proxy"
curl -fsS --max-time 10 "$proxy_url/" >"$work/index.html" || fail "GET / through the proxy"
grep -q '<div id="root">' "$work/index.html" || fail "GET / through the proxy is not the web app"
asset=$(grep -o '/assets/[^"]*\.js' "$work/index.html" | head -1)
curl -fsS --max-time 10 -o /dev/null "$proxy_url$asset" || fail "GET $asset through the proxy"

tenant=$(podman exec "$(container taskboard-1)" taskboard bootstrap --company Acme --team Core \
  --email ci@acme.test --name 'CI' --json) || fail "taskboard bootstrap in instance 1"
key=$(jq -r .apiKey <<<"$tenant")
team=$(jq -r .teamId <<<"$tenant")
board=$(api POST "$proxy_url/api/v1/boards?teamId=$team" "${json[@]}" -d '{"name":"Stack"}' | jq -r .board._id)
list=$(api POST "$proxy_url/api/v1/lists" "${json[@]}" -d "{\"board\":\"$board\",\"name\":\"Doing\"}" | jq -r .list._id)

log "a card made through instance 1, read through instance 2"
card=$(api POST "${instance_url[1]}/api/v1/cards" "${json[@]}" -d "{\"list\":\"$list\",\"name\":\"Made on one\"}" | jq -r .card._id)
[ "$(api GET "${instance_url[2]}/api/v1/cards/$card" | jq -r .card.name)" = "Made on one" ] ||
  fail "instance 2 does not read the card made through instance 1"

log "a live stream on instance 2, and one through the proxy, receive a change made on instance 1"
open_stream() { # open_stream NAME URL: curl as the SSE client, its headers and frames in files
  curl -sS -N --max-time 120 -D "$work/$1.headers" -H "Authorization: Bearer $key" \
    -H 'Accept: text/event-stream' "$2/api/v1/boards/$board/events" >"$work/$1.events" 2>/dev/null &
  background_pids+=($!)
}
open_stream instance-2 "${instance_url[2]}"
open_stream proxy "$proxy_url"
wait_for "the stream on instance 2 open" 15 grep -q '^HTTP/1.1 200' "$work/instance-2.headers"
wait_for "the stream through the proxy open" 15 grep -q '^HTTP/1.1 200' "$work/proxy.headers"
streamed=$(api POST "${instance_url[1]}/api/v1/cards" "${json[@]}" -d "{\"list\":\"$list\",\"name\":\"Streamed\"}" | jq -r .card._id)
wait_for "the card's event on instance 2's stream" 10 grep -q "^data: .*$streamed" "$work/instance-2.events"
wait_for "the card's event through the proxy, unbuffered" 10 grep -q "^data: .*$streamed" "$work/proxy.events"

log "an attachment uploaded through instance 1, downloaded through instance 2"
head -c 300000 /dev/urandom >"$work/upload.bin"
attachment=$(api POST "${instance_url[1]}/api/v1/cards/$card/attachments" -F name=Evidence -F "file=@$work/upload.bin" |
  jq -r '.attachment._id')
api GET "${instance_url[2]}/api/v1/cards/$card/attachments/$attachment/file" >"$work/download.bin"
cmp -s "$work/upload.bin" "$work/download.bin" || fail "the file downloaded through instance 2 differs"

log "kill -9 of instance 1 while cards are written through the proxy"
# The client retries an answer that is not a 2xx with the same idempotency key, as a careful client
# does: each card must then exist exactly once.
write_card() { # write_card NAME: prints the card's id
  local status deadline=$(($(now_ms) + 30000))
  while (($(now_ms) < deadline)); do
    status=$(curl -sS -o "$work/write" -w '%{http_code}' --max-time 15 -X POST -H "Authorization: Bearer $key" \
      -H "Idempotency-Key: ci-$1" "${json[@]}" -d "{\"list\":\"$list\",\"name\":\"$1\"}" "$proxy_url/api/v1/cards") || status=000
    if [[ $status == 2* ]]; then
      jq -r .card._id "$work/write"
      return
    fi
    echo "$1: $status" >>"$work/write-failures"
    sleep 0.2
  done
  fail "writing $1 through the proxy: $status"
}
acknowledged=()
for n in $(seq 1 12); do
  acknowledged+=("$(write_card "kill-$n")")
  if [ "$n" = 4 ]; then
    # The process itself, as a crash would: podman's restart policy then brings it back (a
    # `podman kill` counts as stopped by the user, and stays stopped).
    kill -9 "$(podman inspect --format '{{.State.Pid}}' "$(container taskboard-1)")"
  fi
done
# Reads through the proxy while instance 1 is down or restarting: each must be answered.
for n in $(seq 1 10); do
  [ "$(api GET "$proxy_url/api/v1/cards/$card" | jq -r .card._id)" = "$card" ] || fail "read $n through the proxy after the kill"
done
[ ! -f "$work/write-failures" ] || log "answers retried: $(tr '\n' ';' <"$work/write-failures")"
check_cards() { # every acknowledged card, once, read through $1
  local names
  names=$(api GET "$1/api/v1/lists/$list/cards?limit=100" | jq -r '[.cards[].name | select(startswith("kill-"))] | sort | join(",")')
  [ "$names" = "$(printf 'kill-%s\n' $(seq 1 12) | sort | paste -sd,)" ] || fail "cards through $1: $names"
  for id in "${acknowledged[@]}"; do
    [ "$(api GET "$1/api/v1/cards/$id" | jq -r .card._id)" = "$id" ] || fail "card $id missing through $1"
  done
}
check_cards "${instance_url[2]}"
# The restart policy brings the killed instance back.
wait_for "instance 1 back after the kill" 120 ready "${instance_url[1]}"
check_cards "${instance_url[1]}"

log "down, then up: every record kept"
compose_down -t 15
stack_up
check_cards "$proxy_url"
[ "$(api GET "$proxy_url/api/v1/cards/$streamed" | jq -r .card.name)" = Streamed ] || fail "card Streamed after down and up"
api GET "$proxy_url/api/v1/cards/$card/attachments/$attachment/file" >"$work/download-again.bin"
cmp -s "$work/upload.bin" "$work/download-again.bin" || fail "the attachment after down and up differs"

after_down_up="${ready_ms[1]} ${ready_ms[2]} (CPU ${ready_cpu_ms[1]} ${ready_cpu_ms[2]})"

log "back up (pg_dump, then the store's files), restore into an emptied stack"
podman exec "$(container postgres)" pg_dump --format=custom --username=taskboard taskboard >"$work/taskboard.dump" ||
  fail "pg_dump in the postgres container"
podman run --rm --user root -v "${project}_s3-data:/data:ro" -v "$work:/backup" localhost/taskboard-s3:latest \
  tar -czf /backup/s3-data.tar.gz -C /data . || fail "copying the store's files"
compose_down -t 15 -v
stack_up
podman stop -t 15 "$(container proxy)" "$(container taskboard-1)" "$(container taskboard-2)" >/dev/null 2>>"$compose_log"
podman exec -i "$(container postgres)" pg_restore --clean --if-exists --username=taskboard --dbname=taskboard \
  <"$work/taskboard.dump" || fail "pg_restore in the postgres container"
podman run --rm --user root -v "${project}_s3-data:/data" -v "$work:/backup:ro" localhost/taskboard-s3:latest \
  sh -c 'rm -rf /data/* && tar -xzf /backup/s3-data.tar.gz -C /data' || fail "restoring the store's files"
podman start "$(container taskboard-1)" "$(container taskboard-2)" >/dev/null 2>>"$compose_log"
wait_for "instance 1 ready after the restore" 120 ready "${instance_url[1]}"
wait_for "instance 2 ready after the restore" 120 ready "${instance_url[2]}"
podman start "$(container proxy)" >/dev/null 2>>"$compose_log"
wait_for "the proxy answering after the restore" 30 ready "$proxy_url"
check_cards "$proxy_url"
api GET "$proxy_url/api/v1/cards/$card/attachments/$attachment/file" >"$work/download-restored.bin"
cmp -s "$work/upload.bin" "$work/download-restored.bin" || fail "the attachment after the restore differs"

total_ms=$(($(now_ms) - script_started))
log "passed"
log "figures: base image $((base_ms / 1000)) s to build or reuse; image built in $((image_ms / 1000)) s;" \
  "image size $((image_bytes / 1000000)) MB; other images $((services_ms / 1000)) s;" \
  "start to ready (ms): first up $first_ready, after down and up $after_down_up;" \
  "whole test $((total_ms / 1000)) s"
