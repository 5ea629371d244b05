"""`judge_label_bias: "auto"`: the labels' token ids are read from the judge server's
`/tokenize` instead of asked from the user (vLLM refuses the "tokens" form: it wants ids). On
our llama.cpp server the constrained re-ask under "auto" must be the very request "tokens"
makes: the same top logprobs."""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from smol_envs_core.errors import InfrastructureError
from smoltalkbench import data, judge
from smoltalkbench.errors import ConfigError
from smoltalkbench.judge_client import JudgeClient, JudgeConfig, check_judge_options


@pytest.mark.unit
def test_ids_mode_spells_the_openai_form_and_refuses_empty_ids():
    assert judge.ids_mode([76], [68, 3]) == "ids:76;68,3"
    assert judge.label_bias_params(judge.ids_mode([76], [68])) == {
        "logit_bias": {"76": judge.LABEL_BIAS, "68": judge.LABEL_BIAS}}
    for bad in ([], [-1], ["m"], [True]):
        with pytest.raises(ValueError, match="label token ids"):
            judge.ids_mode(bad, [68])


@pytest.mark.unit
def test_auto_is_a_valid_option_and_typos_are_still_refused():
    check_judge_options("auto", 0.5)
    with pytest.raises(ConfigError, match="'auto'"):
        check_judge_options("automatic", 0.5)


def _client(base_url: str, model: str, mode: str) -> JudgeClient:
    return JudgeClient(JudgeConfig(model=model, base_url=base_url, api_key_var=None,
                                   max_concurrent=1, timeout_s=120, label_bias=mode))


@contextlib.contextmanager
def judge_routes(status: int, delay_s: float = 0.0) -> Iterator[str]:
    """A real HTTP server whose every route answers `status` (200: a tokenizer's JSON) after
    `delay_s`; yields its base URL (`.../v1`)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            time.sleep(delay_s)
            body = json.dumps({"tokens": [7], "eos_token": "<|im_end|>"}).encode()
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer  # noqa: N815

        def log_message(self, *args) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address) -> None:
            # A client past its own timeout (the slow route's purpose) closed the connection
            # before the answer: nothing to report.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.integration
async def test_auto_without_a_tokenize_route_falls_back_to_the_reminder_reask():
    with judge_routes(404) as base_url:
        client = _client(base_url, "m", "auto")
        assert await client.label_bias_mode() == "none"
        assert await client.special_tokens() == ()


@pytest.mark.integration
async def test_a_judge_that_cannot_answer_its_routes_is_an_infrastructure_error():
    # Down (nothing listens), failing (HTTP 500) or slower than the judge's timeout: the mode
    # and the neutralised tokens must not silently change with the judge's health or load.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    with judge_routes(500) as failing_url, judge_routes(200, delay_s=1.0) as slow_url:
        for base_url, timeout_s in ((f"http://127.0.0.1:{port}/v1", 30.0),
                                    (failing_url, 30.0), (slow_url, 0.3)):
            client = JudgeClient(JudgeConfig(model="m", base_url=base_url, api_key_var=None,
                                             timeout_s=timeout_s, max_retries=1,
                                             backoff_s=0.01, label_bias="auto"))
            with pytest.raises(InfrastructureError, match="judge"):
                await client.label_bias_mode()
            with pytest.raises(InfrastructureError, match="tokenizer_info"):
                await client.special_tokens()
            judged = await client.judge("Say hi.", "Hi.", "Hello.")
            assert judged.judge_error and "/tokenizer_info" in judged.reason, judged


@pytest.mark.integration
async def test_a_slow_judge_is_waited_for_within_its_own_timeout():
    # The routes were read with at most 10 s whatever the judge's timeout: under load the
    # mode fell back to "none" and no special token was neutralised.
    with judge_routes(200, delay_s=1.0) as base_url:
        client = JudgeClient(JudgeConfig(model="m", base_url=base_url, api_key_var=None,
                                         timeout_s=30.0, label_bias="auto"))
        assert await client.label_bias_mode() == "ids:7;7"
        assert await client.special_tokens() != ()


@pytest.mark.integration
async def test_auto_on_our_server_makes_the_same_constrained_reask_as_tokens(
        local_model_base_url, local_model_name):
    auto = _client(local_model_base_url, local_model_name, "auto")
    tokens = _client(local_model_base_url, local_model_name, "tokens")
    mode = await auto.label_bias_mode()
    assert mode.startswith("ids:"), mode
    row = json.loads(data.fixture_path().read_text().splitlines()[0])
    messages = judge.build_prompt(row["instruction"], "Sure.", row["output"]).messages
    replies = [await c.top_logprobs(messages, judge.REASK_TOP_LOGPROBS,
                                    judge.label_bias_params(m), 0.0)
               for c, m in ((auto, mode), (tokens, "tokens"))]
    assert all(r.error is None for r in replies), replies
    assert replies[0].token in judge.IDENTIFIERS
    assert replies[0].token == replies[1].token
    assert replies[0].top_logprobs == replies[1].top_logprobs
