"""Rollouts on a real Dask cluster on 127.0.0.1 (``dask scheduler`` and two ``dask worker``
processes, one thread each): the same JSON as a local run, a worker killed mid-run, a worker of
another install refused, a scheduler that does not answer. Without ``--scheduler`` nothing of
Dask is imported."""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bgtui.cli import main

ROOT = Path(__file__).resolve().parents[2]
OPENING = "4HPwATDgc/ABMA"
ROLLOUT = ("rollout", OPENING, "--trials", "324", "--truncate", "7", "--json")
CANDIDATES = (
    "rollout",
    OPENING,
    "--dice",
    "31",
    "--top",
    "3",
    "--trials",
    "324",
    "--truncate",
    "7",
    "--json",
)
CUBEFUL = ("cube", OPENING, "--rollout", "--trials", "36", "--json")


def _json(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    d.pop("games_per_second", None)  # the only figure that depends on the clock
    return d


def test_a_local_rollout_imports_nothing_of_dask():
    code = (
        "import sys; from bgtui.cli import main; "
        "main(['rollout', '4HPwATDgc/ABMA', '--trials', '36', '--truncate', '1', '--json']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), BGTUI_NO_SERVER="1")
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "[]"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``dask scheduler`` and two ``dask worker`` (one thread each, with a nanny that restarts
    a killed worker) on 127.0.0.1, running this checkout; yields (address, client)."""
    distributed = pytest.importorskip("distributed")
    from bgtui.analysis.cluster import start_processes, stop_processes

    tmp = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, PYTHONPATH=str(ROOT), BGTUI_NO_SERVER="1")
    with open(tmp / "cluster.log", "w") as log:
        procs, address = start_processes(2, env, tmp, log)
        try:
            client = distributed.Client(address, timeout=30, set_as_default=False)
            client.wait_for_workers(2, timeout=120)
            yield address, client
            client.close()
        finally:
            stop_processes(procs)


def test_cluster_rollouts_give_the_local_json(cluster, capsys):
    """Each run also finds the workers' play caches as the runs before left them: filled
    under the same settings (another seed, other roots, the same run again) or other ones."""
    address, _ = cluster
    other_seed = ROLLOUT + ("--seed", "7")
    for argv in (ROLLOUT, CANDIDATES, CUBEFUL, other_seed, ROLLOUT, CANDIDATES):
        local = _json(capsys, *argv)
        remote = _json(capsys, *argv, "--scheduler", address)
        assert remote == local, argv[:2]


def test_a_worker_killed_mid_run_loses_nothing(cluster):
    from bgtui.analysis.formats import parse_position
    from bgtui.analysis.models import RolloutSettings
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.state import GameState

    address, client = cluster
    state = parse_position(OPENING)
    assert isinstance(state, GameState)
    settings = RolloutSettings(trials=1296, truncate=7, seed=5)
    local = Analyzer()
    truth = list(local.iter_rollout(state, settings))[-1]
    an = Analyzer()
    an.scheduler = address
    pids = client.run(os.getpid)
    killed = None
    for snap in an.iter_rollout(state, settings):
        if killed is None and snap.trials_done > 0 and not snap.finished:
            busy = [
                w
                for w, keys in client.processing().items()
                if any(str(k).startswith("run_chunk") for k in keys)
            ]
            if busy:  # a worker running a chunk of this rollout: kill its process
                killed = busy[0]
                os.kill(pids[killed], signal.SIGKILL)
    assert killed is not None, "the rollout ended before a worker could be killed"
    assert snap.finished and snap.trials_done == truth.trials_done
    assert snap.rows == truth.rows
    client.wait_for_workers(2, timeout=120)  # its nanny starts it again for the next tests


def test_a_worker_of_another_install_is_refused(cluster, capsys):
    # simulated: one worker's identity says its code digest differs (what a worker with other
    # bgtui sources or weights reports); the refusal must name it and nothing be merged
    address, client = cluster
    client.wait_for_workers(2, timeout=120)
    target = sorted(client.nthreads())[0]

    def tamper(code):
        import bgtui.analysis.cluster as c

        c.worker_identity()  # loads the evaluator and the identity
        old = c._WORKER["identity"]["code"]
        c._WORKER["identity"]["code"] = code
        return old

    old = client.run(tamper, "bgtui 0.0.0+other", workers=[target])[target]
    try:
        code = main(list(ROLLOUT) + ["--trials", "72", "--scheduler", address])
        out, err = capsys.readouterr()
    finally:
        client.run(tamper, old, workers=[target])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"worker {target} is refused" in err and "bgtui 0.0.0+other" in err


def test_a_scheduler_that_does_not_answer_is_one_line_and_exit_2(capsys):
    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(list(ROLLOUT) + ["--scheduler", f"tcp://127.0.0.1:{port}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port}" in err


def test_the_documented_quiet_settings_are_what_dask_reads():
    pytest.importorskip("distributed")
    from bgtui.analysis.cluster import QUIET_DASK_CONFIG, quiet_dask_env

    env = quiet_dask_env()
    doc = (ROOT / "docs" / "cluster.md").read_text()
    documented = dict(
        line.strip().removeprefix("export ").split("=", 1)
        for line in doc.splitlines()
        if line.strip().startswith("export DASK_")
    )
    assert documented == env
    code = (
        "import json, dask, distributed\n"
        f"print(json.dumps([dask.config.get(k) for k in {list(QUIET_DASK_CONFIG)!r}]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == list(QUIET_DASK_CONFIG.values())


def test_the_play_cache_epoch_changes_with_every_setting_and_the_nets():
    """Workers keep their play caches between runs of equal epochs: the epoch must differ when
    any engine setting (the match table included) or the identity of code and nets does."""
    import numpy as np

    from bgtui.analysis.rollout import play_cache_epoch
    from bgtui.engine import make_settings

    ident = {"code": "bgtui x", "evaluator": "e1"}
    base = make_settings(truncate=7)
    epoch = play_cache_epoch(base, ident)
    assert epoch == play_cache_epoch(make_settings(truncate=7), dict(ident))
    assert epoch > 0 and epoch % 2 == 1 and epoch < 2**63
    seen = {epoch}
    for field, value in base._asdict().items():
        if field == "met":
            other = base._replace(met=np.array([[0.25]]))
        elif isinstance(value, (bool, np.bool_)):
            other = base._replace(**{field: not value})
        else:
            other = base._replace(**{field: value + 1})
        seen.add(play_cache_epoch(other, ident))
    assert len(seen) == 1 + len(base._fields)
    assert play_cache_epoch(base, {**ident, "evaluator": "e2"}) not in seen
    assert play_cache_epoch(base, {**ident, "filter": "f"}) not in seen
