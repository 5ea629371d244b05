"""smoltalkbench's length-controlled win rate against AlpacaEval's own GLM fit, on shared
synthetic annotations (issue 44).

AlpacaEval's `get_length_controlled_winrate` downloads instruction difficulties and the
annotations of "gamed" baselines from the Hugging Face hub, which this machine cannot reach. Its
"length_controlled_minimal" GLM (an intercept and tanh of the standardised length difference,
the two terms a one-model, one-reference run can identify) needs neither, so this script feeds
the same synthetic preferences to AlpacaEval's own design-matrix and fit functions
(`make_dmatrix_for_model`, `fit_LogisticRegressionCV`: L1, cross-validated strength) in the
Python of a separate venv holding `alpaca_eval`, and to ours (L2 with a fixed small penalty,
Newton steps), and prints both, with AlpacaEval's "extreme change" warning and our support check.

    uv venv /tmp/ae && VIRTUAL_ENV=/tmp/ae uv pip install alpaca_eval==0.6.6
    uv run python benchmarks/lc_winrate_vs_alpaca_eval.py --alpaca-python /tmp/ae/bin/python

Exits 1, printing no comparison line, when AlpacaEval's side fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
from smoltalkbench.report import lc_withheld, length_controlled_win_rate

ALPACA_SIDE = r"""
import json, sys
import numpy as np, pandas as pd
from alpaca_eval.metrics.glm_winrate import (
    GLM_INFO, fit_LogisticRegressionCV, get_is_extreme_changes, make_dmatrix_for_model)
cases = json.load(sys.stdin)
out = {}
for name, case in cases.items():
    y = np.asarray(case["preferences"]); d = -np.asarray(case["length_diffs"], dtype=float)
    # AlpacaEval's length difference is baseline minus model (output_1 - output_2).
    df = pd.DataFrame({"preference": y, "std_delta_len": d / d.std(ddof=1),
                       "not_gamed_baseline": True})
    test = df[["not_gamed_baseline"]].copy(); test["std_delta_len"] = 0.0
    info = GLM_INFO["length_controlled_minimal"]
    train, x_test = make_dmatrix_for_model(df, test, formula=info["formula"])
    model = fit_LogisticRegressionCV(train, "preference", is_ytrue_proba=True, **info["kwargs"])
    lc = float(model.predict_proba(x_test)[:, 1].mean() * 100)
    raw = float(y.mean() * 100)
    out[name] = {"lc": lc, "raw": raw, "extreme": bool(get_is_extreme_changes(raw, lc))}
json.dump(out, sys.stdout)
"""


def cases(seed: int = 0, n: int = 400) -> dict[str, dict[str, list[float]]]:
    """Two synthetic runs of `n` judged samples: "supported" (length differences around zero,
    a preference that rises with length) and "all longer" (every reply 300-700 characters
    longer than its reference, preferences independent of length: the issue's case)."""
    rng = np.random.default_rng(seed)
    d = rng.normal(50.0, 300.0, n)
    p = 1 / (1 + np.exp(-(0.2 + 0.9 * np.tanh(d / d.std(ddof=1)))))
    supported = np.clip(p + rng.normal(0, 0.1, n), 0.0, 1.0)
    longer = rng.uniform(300.0, 700.0, n)
    independent = rng.beta(2.0, 2.0, n)
    return {"supported": {"preferences": supported.tolist(), "length_diffs": d.tolist()},
            "all longer": {"preferences": independent.tolist(), "length_diffs": longer.tolist()}}


def main(argv: list[str] | None = None) -> int:
    """Print ours and AlpacaEval's LC win rate per case; 1 when AlpacaEval's side fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpaca-python", required=True,
                        help="the python of a venv with alpaca_eval installed")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    shared = cases(args.seed)
    done = subprocess.run([args.alpaca_python, "-c", ALPACA_SIDE], input=json.dumps(shared),
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        print(f"AlpacaEval's side failed (exit {done.returncode}):\n{done.stderr[-2000:]}",
              file=sys.stderr)
        return 1
    theirs = json.loads(done.stdout)
    print(f"{'case':<12} {'N':>4} {'raw':>6} {'ours LC':>8} {'AlpacaEval LC':>14}  ours shown?")
    for name, case in shared.items():
        ours = length_controlled_win_rate(case["preferences"], case["length_diffs"])
        why = lc_withheld(case["length_diffs"])
        t = theirs[name]
        flag = " (AlpacaEval: extreme change warning)" if t["extreme"] else ""
        print(f"{name:<12} {len(case['preferences']):>4} {t['raw']:>6.1f} {ours:>8.1f} "
              f"{t['lc']:>14.1f}  {'no: ' + why if why else 'yes'}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
