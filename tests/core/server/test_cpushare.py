"""The model server's thread governor: its arithmetic, its reading of a real busy machine, and
the claim it rests on, that llama.cpp's thread count never changes a logit."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest
from smol_envs_core.server.cpushare import (
    CpuSample,
    ThreadGovernor,
    busy_seconds,
    others_cores,
    read_sample,
    running_tasks,
    threads_for,
    threads_now,
)

STAT = """cpu  900 0 300 5000 100 0 0 0 0 0
cpu0 500 0 100 2000 50 0 10 0 0 0
cpu1 400 0 200 3000 50 0 0 5 0 0
intr 12345
ctxt 999
"""


@pytest.mark.unit
def test_busy_seconds_counts_every_column_but_idle_and_iowait_of_the_watched_cpus():
    assert busy_seconds(STAT, [0], 100) == pytest.approx(6.1)  # 500 + 100 + 10 ticks
    assert busy_seconds(STAT, [0, 1], 100) == pytest.approx(12.15)  # + 400 + 200 + 5
    with pytest.raises(ValueError, match=r"no line for CPUs \[2\]"):
        busy_seconds(STAT, [1, 2], 100)


@pytest.mark.unit
def test_others_are_the_busy_time_less_our_own():
    before = CpuSample(at_s=10.0, busy_s=100.0, own_s=5.0)
    # 2 s: the CPUs were busy 3.0 s, 1.0 s of it ours: the others kept one core busy.
    assert others_cores(before, CpuSample(12.0, 103.0, 6.0)) == pytest.approx(1.0)
    # Ours counted on another CPU than the watched ones never makes the others negative.
    assert others_cores(before, CpuSample(12.0, 100.5, 7.0)) == 0.0
    with pytest.raises(ValueError, match="out of order"):
        others_cores(before, before)


@pytest.mark.unit
@pytest.mark.parametrize(("others", "cores", "ceiling", "threads"), [
    (0.0, 2, 2, 2),    # idle: the ceiling
    (0.15, 2, 2, 2),   # a daemon's wake-ups leave both cores free
    (0.5, 2, 2, 1),    # half a core taken is a core taken
    (1.0, 2, 2, 1),
    (2.0, 2, 2, 1),    # never below one
    (3.6, 16, 8, 8),   # never above the ceiling
    (9.9, 16, 8, 6),
])
def test_threads_are_the_free_cores_between_one_and_the_ceiling(others, cores, ceiling,
                                                               threads):
    assert threads_for(others, cores, ceiling) == threads


@pytest.mark.unit
def test_tasks_runnable_now_raise_the_window_count_only_when_cores_are_free():
    assert running_tasks("0.52 0.58 0.59 3/467 12345\n") == 3
    with pytest.raises(ValueError, match="not /proc/loadavg"):
        running_tasks("0.52 0.58")
    # The window saw a client working; now only the decoding thread runs: both cores.
    assert threads_now(1, running=1, cores=2, ceiling=2) == 2
    # A busy program runs now too: the window's one thread stays.
    assert threads_now(1, running=2, cores=2, ceiling=2) == 1
    # A host busier than the window's CPUs (a container sees its host's count): the window.
    assert threads_now(2, running=40, cores=2, ceiling=2) == 2


@pytest.mark.unit
def test_a_governor_starts_at_its_ceiling_and_refuses_none():
    assert ThreadGovernor(2).threads() == 2
    with pytest.raises(ValueError, match="ceiling"):
        ThreadGovernor(0)


@pytest.mark.integration
def test_a_busy_program_beside_the_server_leaves_it_one_thread():
    """A real busy loop pinned to one of two CPUs: within a few periods the governor watching
    those two CPUs answers 1, and 2 again within a few periods of the loop's end (when the
    machine is otherwise quiet enough for it)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    governor = ThreadGovernor(2, period_s=0.2)
    governor.cpus = cpus[:2]
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(hog.pid, {cpus[0]})
        governor.start()
        seen = []
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and seen[-3:] != [1, 1, 1]:
            time.sleep(0.2)
            seen.append(governor.threads())
        assert seen[-3:] == [1, 1, 1], seen
    finally:
        hog.kill()
        hog.wait()
    try:
        # Back to 2 once the loop is gone, when the machine really is quiet: measured here
        # over the same second, independently of the governor.
        time.sleep(0.5)
        before, windows = read_sample(governor.cpus), []
        for _ in range(5):
            time.sleep(0.2)
            windows.append(governor._threads)
        others = others_cores(before, read_sample(governor.cpus))
        if others < 0.1:
            assert 2 in windows, (others, windows)
    finally:
        governor.stop()
    assert governor._thread is not None and not governor._thread.is_alive()


@pytest.mark.integration
def test_a_governor_that_cannot_read_the_load_says_so_and_stays_at_the_top():
    lines = []
    governor = ThreadGovernor(2, log=lines.append)
    governor.cpus = [0, max(governor.cpus) + 4096]  # no such CPU line in /proc/stat
    assert governor.start().threads() == 2
    assert governor._thread is None
    assert all("cannot read the load" in line for line in lines) and len(lines) == 1


@pytest.mark.unit
def test_changes_are_logged_at_most_once_per_period_and_a_failing_log_is_ignored():
    lines = []
    governor = ThreadGovernor(2, log=lines.append)
    governor.cpus = [0, 1]
    start, idle, busy = CpuSample(0, 0, 0), CpuSample(1, 0, 0), CpuSample(1, 1, 0)
    for after in (busy, idle, busy, idle, busy):
        governor.update(start, after)
    assert len(lines) == 1 and "2 -> 1" in lines[0]
    governor._logged_at -= ThreadGovernor.LOG_EVERY_S
    governor.update(start, idle)
    assert lines[1].endswith("(4 changes since the last line)")

    def broken(line: str) -> None:
        raise OSError("No space left on device")

    governor = ThreadGovernor(2, log=broken)
    governor.cpus = [0, 1]
    assert governor.update(start, busy) == 1  # the count changes; the log's failure is not ours


@pytest.mark.unit
def test_governed_threads_reach_the_server_command_line_only_when_asked():
    from smol_envs_core.server import serve

    assert "--governed-threads" in serve.service("127.0.0.1", 8999, 2, governed=True).argv
    assert "--governed-threads" not in serve.service("127.0.0.1", 8999, 2).argv


@pytest.fixture(scope="module")
def governed_llama():
    """A subclass of llama-cpp-python's Llama with the server's `governed_threads` hook, and
    the governor it follows (the class Llama itself stays as it was)."""
    from llama_cpp import Llama
    from smol_envs_core.server import serve

    class GovernedLlama(Llama):
        pass

    governor = ThreadGovernor(2, look_now=False)  # the count this test sets, whatever runs now
    serve.governed_threads(GovernedLlama, governor)
    llama = GovernedLlama(model_path=str(serve.model_path()), n_ctx=serve.N_CTX, n_threads=2,
                          n_threads_batch=2, logits_all=True, verbose=False)
    return llama, governor


def logits_of(llama, text: str, before_step=None, generated: int = 6) -> np.ndarray:
    """Every row of a fresh evaluation of `text`, then of `generated` greedy one-token steps
    (`before_step(i)` called before step i)."""
    llama.reset()
    llama.eval(llama.tokenize(text.encode()))
    for step in range(generated):
        if before_step is not None:
            before_step(step)
        llama.eval([int(np.argmax(llama.scores[llama.n_tokens - 1]))])
    return np.array(llama.scores[: llama.n_tokens], copy=True)


@pytest.mark.integration
def test_the_thread_count_never_changes_a_logit(governed_llama):
    """One thread, two threads, and a count that changes between decodes give bit-identical
    logits (prompt rows and one-token steps); the hook sets the context's count each time."""
    import llama_cpp

    llama, governor = governed_llama
    texts = ["Question: Which of these is a gas at room temperature?\nAnswer: steam",
             "def fibonacci(n):\n    if n < 2:\n        return n\n" * 6]
    start = CpuSample(0.0, 0.0, 0.0)
    others = {2: CpuSample(1.0, 0.0, 0.0), 1: CpuSample(1.0, 1.0, 0.0)}  # 0 and 1 core busy
    runs = {}
    for name, count in (("two", 2), ("one", 1)):
        assert governor.update(start, others[count]) == count
        runs[name] = [logits_of(llama, text) for text in texts]
        assert llama_cpp.llama_n_threads(llama._ctx.ctx) == count
    seen = []

    def flip(step: int) -> None:  # 2, 1, 2, 1, ... threads, step by step
        governor.update(start, others[2 - step % 2])
        seen.append(llama_cpp.llama_n_threads(llama._ctx.ctx))

    runs["changing"] = [logits_of(llama, text, flip) for text in texts]
    assert set(seen) == {1, 2}  # each step ran with the count set before the previous one
    assert runs["two"][0].shape[0] > 10
    for name in ("one", "changing"):
        for a, b in zip(runs["two"], runs[name], strict=True):
            np.testing.assert_array_equal(a, b)
