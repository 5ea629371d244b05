"""Scale-out: one client over several service replicas (least busy first, health checks, one
retry elsewhere for the jobs of a replica that dies). Three real containers on loopback ports;
one is killed (SIGKILL) in the middle of a 256-job run: no job lost, none scored twice."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from smolscript_sandbox.client import REPLICAS, SandboxClient, split_urls
from smolscript_sandbox.container import start_container, stop_container

from tests.support.sandbox_load import job_for
from tests.support.sandbox_targets import CONTAINER_PORT, IMAGE, docker_or_skip

JOBS = 256
KILL_AFTER = 24  # jobs answered by the victim before it is killed


@pytest.mark.unit
def test_least_busy_first_and_down_replicas():
    urls = split_urls(" http://a:1/, http://b:2,http://c:3,http://b:2 ")
    assert urls == ["http://a:1", "http://b:2", "http://c:3"]
    REPLICAS.in_flight.update({"http://a:1": 3, "http://b:2": 1, "http://c:3": 1})
    try:
        assert REPLICAS.pick(urls, set()) == "http://b:2"  # fewest in flight, first on ties
        assert REPLICAS.pick(urls, {"http://b:2"}) == "http://c:3"
        REPLICAS.down_since["http://c:3"] = 0.0
        assert REPLICAS.pick(urls, {"http://b:2"}) == "http://a:1"
        assert REPLICAS.pick(urls, {"http://a:1", "http://b:2"}) is None
    finally:
        for url in urls:
            REPLICAS.in_flight.pop(url, None)
            REPLICAS.down_since.pop(url, None)
    with pytest.raises(ValueError, match="no service URL"):
        split_urls(" , ")


@pytest.fixture(scope="module")
def replicas():
    """Three service containers on CONTAINER_PORT+1..+3 (1 CPU, 2 slots each)."""
    docker_or_skip()
    ports = [CONTAINER_PORT + i for i in (1, 2, 3)]
    with ThreadPoolExecutor(len(ports)) as pool:
        futures = [pool.submit(start_container, IMAGE, port, slots=2) for port in ports]
        started, errors = [], []
        for future in futures:
            try:
                started.append(future.result())
            except Exception as exc:  # noqa: BLE001 - stop the others, then fail
                errors.append(exc)
    try:
        if errors:
            raise errors[0]
        yield started
    finally:
        for container in started:
            stop_container(container.container_id)


@pytest.mark.integration
async def test_killed_replica_loses_no_job_and_scores_none_twice(replicas):
    urls = [r.url for r in replicas]
    victim = replicas[1]
    jobs = [job_for(i) for i in range(JOBS)]
    client = SandboxClient(urls, max_concurrency=24)
    killed = asyncio.Event()

    async def kill_when_busy() -> None:
        while client.stats["jobs"][victim.url] < KILL_AFTER:
            await asyncio.sleep(0.05)
        docker_or_skip().api.kill(victim.container_id)  # SIGKILL: jobs in flight get no reply
        killed.set()

    async with client:
        killer = asyncio.create_task(kill_when_busy())
        results = await asyncio.gather(*(client.run_program_job(job) for job, _ in jobs),
                                       return_exceptions=True)
        await killer
    assert killed.is_set()
    lost = [r for r in results if isinstance(r, BaseException)]
    assert lost == []
    wrong = [i for i, ((_, expected), r) in enumerate(zip(jobs, results, strict=True))
             if r.status != "ok" or [t.stdout for t in r.tests] != expected]
    assert wrong == []
    # Every job was answered exactly once; the survivors ran exactly the jobs they answered
    # (their own counters), so no retried job ran twice on them.
    answered = client.stats["jobs"]
    assert sum(answered.values()) == JOBS
    ran = {}
    async with httpx.AsyncClient() as http:
        for replica in (replicas[0], replicas[2]):
            health = (await http.get(f"{replica.url}/health", timeout=10)).json()
            ran[replica.url] = health["jobs"]["program"]
    double = sum(ran[url] - answered[url] for url in ran)
    assert double == 0, (ran, answered)
    retried = client.stats["retried"]
    assert 1 <= retried <= 24  # the victim's jobs in flight when it died, each retried once
    print(f"\nreplicas: {JOBS} jobs over 3 replicas, {victim.name} killed after "
          f"{answered[victim.url]} answered; lost {len(lost)}, wrong {len(wrong)}, "
          f"double-scored {double}, retried {retried}; answered per replica "
          f"{list(answered.values())}, run by the survivors {list(ran.values())}")
