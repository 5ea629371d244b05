"""Deployment files of the scoring service: the Kubernetes manifests validate offline against
the API schemas (kubernetes-validate, strict: unknown fields fail), carry the container's
security settings and deny egress; the compose file carries exactly container.py's settings."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from smolscript_sandbox.container import ContainerLimits, container_config

pytestmark = pytest.mark.unit

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S_VERSION = "1.33.0"  # the oldest minor with hostUsers and procMount in the schemas we need
MANIFESTS = sorted((DEPLOY / "k8s").glob("*.yaml"))


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.name for p in MANIFESTS])
@pytest.mark.parametrize("version", [K8S_VERSION, kubernetes_validate.latest_version()])
def test_manifest_validates_offline(path, version):
    kubernetes_validate.validate(load(path), version, strict=True)


def test_a_manifest_with_a_wrong_field_fails_validation():
    """The validator really checks (a negative control): a misspelt field is refused."""
    deployment = load(DEPLOY / "k8s" / "deployment.yaml")
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRoot"] = 1
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)


def test_manifests_hold_the_container_policy():
    kinds = {load(p)["kind"]: load(p) for p in MANIFESTS}
    assert set(kinds) == {"Deployment", "Service", "HorizontalPodAutoscaler", "NetworkPolicy"}
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == 1000 and pod["securityContext"]["runAsNonRoot"]
    assert pod["securityContext"]["seccompProfile"]["type"] == "Localhost"
    container = pod["containers"][0]
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["privileged"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"] == {"drop": ["ALL"]}
    limits = ContainerLimits()
    assert container["resources"]["limits"] == {"cpu": str(int(limits.cpus)), "memory": "2Gi"}
    assert limits.memory == "2g"
    policy = kinds["NetworkPolicy"]["spec"]
    assert "Egress" in policy["policyTypes"] and policy["egress"] == []
    selector = kinds["Deployment"]["spec"]["selector"]["matchLabels"]
    assert policy["podSelector"]["matchLabels"] == selector
    assert kinds["Service"]["spec"]["selector"] == selector
    assert kinds["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]["name"] == \
        kinds["Deployment"]["metadata"]["name"]


def test_compose_file_holds_the_container_policy():
    service = load(DEPLOY / "compose" / "compose.yaml")["services"]["scoring"]
    create, host = container_config("sha256:x", 8790, 1)  # one job per replica
    assert service["user"] == create["user"]
    assert service["read_only"] is host["read_only"] and service["cap_drop"] == host["cap_drop"]
    assert service["mem_limit"] == host["mem_limit"]
    assert service["memswap_limit"] == host["memswap_limit"]
    assert service["cpus"] * 1e9 == host["nano_cpus"]
    assert service["pids_limit"] == host["pids_limit"]
    assert dict(t.split(":", 1) for t in service["tmpfs"]) == host["tmpfs"]
    assert "no-new-privileges" in service["security_opt"]
    assert "systempaths=unconfined" in service["security_opt"]
    assert any(o.startswith("seccomp=") for o in service["security_opt"])
    for key in ("SMOLSCRIPT_SANDBOX_SLOTS", "SMOLSCRIPT_SANDBOX_BROWSER_SLOTS"):
        assert service["environment"][key] == create["environment"][key]


def test_seccomp_profile_adds_only_the_namespace_calls():
    """The committed profile: deny by default, bubblewrap's namespace calls allowed, Docker's
    refused calls still refused, and identical to what its generator writes from the table."""
    import json
    import sys

    sys.path.insert(0, str(DEPLOY.parent / "scripts"))
    from make_sandbox_seccomp import (
        DEFAULT_OUT,
        DEFAULT_TABLE,
        DENIED,
        NAMESPACE_CALLS,
        build_profile,
        syscall_names,
    )

    profile = json.loads(DEFAULT_OUT.read_text())
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    allowed = set(profile["syscalls"][0]["names"])
    assert set(NAMESPACE_CALLS) <= allowed
    assert not allowed & DENIED
    assert {"read", "write", "execve", "clone3", "rseq", "openat"} <= allowed
    assert "Added to Docker's default" in profile["comment"]
    if DEFAULT_TABLE.exists():  # linux-libc-dev: the same table gives the same profile
        assert build_profile(syscall_names(DEFAULT_TABLE.read_text())) == profile
