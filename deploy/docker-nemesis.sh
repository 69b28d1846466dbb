#!/usr/bin/env bash
# The live nemesis against the Docker Compose cluster (deploy/compose.yaml:
# cops on local3, one container per node). It builds the image, starts the
# cluster under its own compose project, and runs `causeway nemesis
# --docker-project` in a container on the cluster's network with the
# Docker socket mounted: a checked closed-loop bench and the ack-log
# writers run while the schedule deploy/nemesis.yaml kills (docker kill),
# restarts (docker start), pauses (docker pause/unpause), cuts a DC off
# (docker network disconnect/connect) and kills a whole DC; after the heal
# every acknowledged write is read back from every DC. The cluster runs
# with tls: true (deploy/cluster.yaml): the nemesis's container mounts the
# certificates the compose service certs made. It fails when an
# event of the schedule could not be carried out, an acknowledged write is
# lost, a read returns what no put wrote, the history
# is not causal+, or the cluster does not heal.
#
# It always removes the cluster and its volumes. The nemesis's report
# (JSON), its log, the bench's history and the containers' logs are left
# in deploy/.build/docker-nemesis/.
#
#   deploy/docker-nemesis.sh      # or: make docker-nemesis
#
# Environment:
#   IMAGE         the image to build and run (default causeway:dev)
#   NEMESIS_CPUS  CPUs of the nemesis's container (default 1): its bench is
#                 a closed loop, which uncapped starves the Docker daemon
#   KEEP=1        leave the cluster running at the end
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
export CAUSEWAY_IMAGE=${IMAGE:-causeway:dev}
project=causeway-nemesis
runner=$project-run # the nemesis's container (not a compose service)
out=$here/.build/docker-nemesis
cfg=/etc/causeway
sock=/var/run/docker.sock
t0=$SECONDS

step() { printf '\n==> [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
info() { printf '    [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() {
	printf '\nFAIL: %s\n' "$*" >&2
	exit 1
}

command -v docker >/dev/null || fail "docker is not installed"
docker info >/dev/null 2>&1 || fail "the Docker daemon is not reachable (docker info failed)"
[[ -S $sock ]] || fail "no Docker socket at $sock to give the nemesis"
if docker compose version >/dev/null 2>&1; then
	compose=(docker compose)
elif command -v docker-compose >/dev/null; then
	compose=(docker-compose)
else
	fail "neither 'docker compose' (v2) nor 'docker-compose' (v1) is installed"
fi
dc() { "${compose[@]}" -p "$project" -f "$here/compose.yaml" "$@"; }
cid() {
	docker ps -aq --filter "label=com.docker.compose.project=$project" \
		--filter "label=com.docker.compose.service=$1" --filter "label=com.docker.compose.oneoff=False"
}

cleanup() {
	local rc=$?
	set +e
	docker logs "$runner" >"$out/nemesis.log" 2>&1
	mkdir -p "$out/logs"
	for s in a-s0 a-s1 b-s0 b-s1 c-s0 c-s1; do
		id=$(cid "$s")
		[[ -n $id ]] && docker logs "$id" >"$out/logs/$s.log" 2>&1
	done
	((rc == 0)) || step "failed (exit $rc): the containers' logs are in ${out#"$root"/}/logs"
	if [[ ${KEEP:-} == 1 ]]; then
		step "KEEP=1: the cluster is left running; remove it with:
    docker rm -f $runner; ${compose[*]} -p $project -f $here/compose.yaml down -v"
	else
		step "tearing down (${compose[*]} down -v)"
		docker rm -f "$runner" >/dev/null 2>&1
		dc down -v --remove-orphans -t 5 >/dev/null 2>&1 || info "down failed"
	fi
	((rc == 0)) && step "PASS in $((SECONDS - t0))s"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # still tears down
rm -rf "$out"
mkdir -p "$out"

step "1/4 building the image $CAUSEWAY_IMAGE"
IMAGE=$CAUSEWAY_IMAGE "$here/build-image.sh"

step "2/4 starting the cluster (${compose[*]} -p $project up -d)"
docker rm -f "$runner" >/dev/null 2>&1 || true
dc down -v --remove-orphans -t 5 >/dev/null 2>&1 || true
dc up -d a-s0 a-s1 b-s0 b-s1 c-s0 c-s1 >"$out/up.log" 2>&1 || { cat "$out/up.log" >&2; fail "${compose[*]} up failed"; }
network=$(docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}' "$(cid a-s0)")
info "$(docker ps -q --filter "label=com.docker.compose.project=$project" | wc -l) containers up on network $network"

step "3/4 causeway nemesis --docker-project $project (schedule deploy/nemesis.yaml) in a container on $network"
# Root in the container: the Docker socket is root's. The cluster runs
# with tls: true, so both containers mount the cluster's certificates (the
# compose project's volume "certs", read-only): /healthz answers only the
# admin certificate, and the bench's and writers' sessions present the
# client certificate (the nodes reply on their connections). The nemesis
# waits for nothing: its first faults come after the nodes had seconds to
# start, and its bench and writers retry.
certs=("-v" "${project}_certs:$cfg/certs:ro")
deadline=$((SECONDS + 90))
until docker run --rm --network "$network" -v "$here/cluster.yaml:$cfg/cluster.yaml:ro" "${certs[@]}" "$CAUSEWAY_IMAGE" \
	cluster status --dir "$cfg" >"$out/status.txt" 2>&1; do
	((SECONDS < deadline)) || { cat "$out/status.txt" >&2; fail "not every node is healthy after 90s"; }
	sleep 1
done
info "every node answers /healthz"
docker run -d --name "$runner" --hostname nemesis --network "$network" --network-alias nemesis \
	--user 0:0 --cpus "${NEMESIS_CPUS:-1}" \
	-v "$sock:/var/run/docker.sock" -v "$here/cluster.yaml:$cfg/cluster.yaml:ro" "${certs[@]}" \
	-v "$here/nemesis.yaml:$cfg/nemesis.yaml:ro" "$CAUSEWAY_IMAGE" \
	nemesis --cluster "$cfg" --docker-project "$project" --docker-network "$network" \
	--schedule "$cfg/nemesis.yaml" --clients 3 --history /tmp/history.jsonl -w json >/dev/null
rc=$(docker wait "$runner")
docker logs "$runner" >"$out/report.json" 2>"$out/nemesis.err"
docker cp "$runner:/tmp/history.jsonl" "$out/history.jsonl" >/dev/null 2>&1 || info "no history written"
grep '^nemesis:' "$out/nemesis.err" | sed 's/^/    /' || true

step "4/4 verdict (causeway nemesis exited $rc)"
summary=$(sed -nE 's/^  "(puts|acked|keys|read_back_ns|ok)": (.*),?$/\1=\2/p' "$out/report.json" | tr -d ',' | tr '\n' ' ')
info "report: $summary(${out#"$root"/}/report.json)"
((rc == 0)) || { tail -n 5 "$out/nemesis.err" >&2; fail "the live nemesis failed on the Docker cluster (exit $rc)"; }
# A fault Docker could not inject fails the run too: the schedule did not
# happen as written.
if grep -q '"error":' "$out/report.json"; then
	grep -B3 '"error":' "$out/report.json" >&2
	fail "some events of the schedule failed (see ${out#"$root"/}/report.json)"
fi
