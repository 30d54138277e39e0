"""Call the peer harness from a benchmark that runs in the project's venv (stdlib only).

    import sys; sys.path.insert(0, "bench")
    from peers import client

    rows = client.run_peers("read", "bench/out/big.xml", repeat=3)   # one dict per peer
    with client.Server(client.make_site(Path("bench/out/site"), 20, 50000)) as server:
        url = server.origin() + "/"     # serve urlset's fetch the same bytes the peers get

Each row is run.py's JSON line. If bench/setup_peers.sh has not been run, run_peers returns
one row per requested peer with "error" set, so a benchmark can still print its table.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from . import items as _items
from . import run as _run

HERE = Path(__file__).resolve().parent
PEERS_PYTHON = HERE.parent / ".venv-peers" / "bin" / "python"

make_site = _run.make_site
make_file = _run.make_file
item = _items.item
Server = _run.Server
PEERS = _run.PEERS
Row = _run.Row


def available() -> bool:
    return PEERS_PYTHON.exists()


def run_peers(
    task: str,
    *args: str,
    peers: tuple[str, ...] = ("all",),
    timeout: float = 300.0,
    repeat: int = 1,
) -> list[Row]:
    """Run TASK ARGS for each peer (or "all" of TASK's peers); return their result rows."""
    names = [p for p, (tasks, _) in PEERS.items() if task in tasks] if peers == ("all",) else peers
    if not available():
        msg = f"{PEERS_PYTHON} missing: run bench/setup_peers.sh"
        return [{"peer": p, "task": task, "error": msg} for p in names]
    rows: list[Row] = []
    for peer in names:
        cmd = [str(PEERS_PYTHON), str(HERE / "run.py"), "--timeout", str(timeout)]
        cmd += ["--repeat", str(repeat), peer, task, *map(str, args)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if lines:
            rows.extend(json.loads(ln) for ln in lines)
        else:
            err = (proc.stderr or proc.stdout).strip()[-500:]
            rows.append({"peer": peer, "task": task, "error": f"harness failed: {err}"})
    return rows
