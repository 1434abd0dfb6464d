#!/usr/bin/env python3
"""Checks ops/k8s/*.yaml without a cluster (kubectl is not needed): every file parses, and the
manifests agree with each other, with the image (ops/container/build-image.sh) and with the
sidecar's settings (docs/cli.md) — the relay refuses an unknown TWINBOX_* variable with exit code 2.

    python3 ops/k8s/check-manifests.py      # needs PyYAML (python3-yaml)
"""
import pathlib
import re
import sys

import yaml

here = pathlib.Path(__file__).resolve().parent
repo = here.parent.parent
errors = []


def check(ok, message):
    if not ok:
        errors.append(message)


docs = {}
for path in sorted(here.glob("*.yaml")):
    for doc in yaml.safe_load_all(path.read_text()):
        check(isinstance(doc, dict) and "kind" in doc and "apiVersion" in doc, f"{path.name}: not a Kubernetes object")
        docs[doc["kind"]] = doc

deployment, service, secret = docs.get("Deployment"), docs.get("Service"), docs.get("Secret")
check(deployment and service and secret, "expected a Deployment, a Service and a Secret")
if errors:
    sys.exit("\n".join(errors))

build = (repo / "ops/container/build-image.sh").read_text()
image_uid = int(re.search(r"^APP_UID=(\d+)", build, re.M).group(1))
image_port = int(re.search(r"^HTTP_PORT=(\d+)", build, re.M).group(1))
known = set(re.findall(r"`(TWINBOX_[A-Z0-9_]+)`", (repo / "docs/cli.md").read_text()))

pod = deployment["spec"]["template"]
labels = pod["metadata"]["labels"]
check(deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), "Deployment selector does not match its pod labels")
check(service["spec"]["selector"].items() <= labels.items(), "Service selector does not match the pod labels")
spec = pod["spec"]
(container,) = spec["containers"]
ports = {p["name"]: p["containerPort"] for p in container["ports"]}
check(ports.get("http") == image_port, f"container port http must be the image's {image_port}")

for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
    get = container.get(probe, {}).get("httpGet", {})
    check(get.get("path") == "/health", f"{probe} must GET /health")
    check(get.get("port") in ports or get.get("port") in ports.values(), f"{probe} port {get.get('port')} is no container port")

for kind, meta in (("pod", pod["metadata"]), ("Service", service["metadata"])):
    a = meta.get("annotations", {})
    check(a.get("prometheus.io/scrape") == "true", f"{kind}: prometheus.io/scrape must be \"true\"")
    check(a.get("prometheus.io/path") == "/metrics", f"{kind}: prometheus.io/path must be /metrics")
    check(a.get("prometheus.io/port") == str(image_port), f"{kind}: prometheus.io/port must be \"{image_port}\"")
(sport,) = service["spec"]["ports"]
check(sport["targetPort"] in ports, f"Service targetPort {sport['targetPort']} is no container port")

sc = spec["securityContext"]
check(sc.get("runAsNonRoot") is True, "runAsNonRoot must be true")
check(sc.get("runAsUser") == image_uid, f"runAsUser must be the image's uid {image_uid}")
csc = container["securityContext"]
check(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation must be false")
if csc.get("readOnlyRootFilesystem"):
    check(any(m["mountPath"] == "/tmp" for m in container.get("volumeMounts", [])), "a read-only root needs a writable /tmp")
check("memory" in container["resources"].get("limits", {}), "a memory limit sizes the heap (MaxRAMPercentage)")

secret_keys = set(secret.get("stringData", {})) | set(secret.get("data", {}))
for env in container["env"]:
    name = env["name"]
    check(name in known, f"{name} is not a setting of docs/cli.md: the relay would refuse it (exit code 2)")
    ref = env.get("valueFrom", {}).get("secretKeyRef")
    if ref:
        check(ref["name"] == secret["metadata"]["name"] and ref["key"] in secret_keys, f"{name}: no key {ref['key']} in Secret {ref['name']}")
    check(not ("PASSWORD" in name or "TOKEN" in name) or ref, f"{name} is a secret: take it from a Secret")
check(any(e["name"] == "TWINBOX_DB_PASSWORD" and "valueFrom" in e for e in container["env"]), "TWINBOX_DB_PASSWORD must come from the Secret")

if errors:
    sys.exit("check-manifests: FAIL\n  " + "\n  ".join(errors))
print(f"check-manifests: OK: {', '.join(sorted(docs))}; {len(container['env'])} env settings known to docs/cli.md; "
      f"probes on /health:{image_port}; uid {image_uid}")
