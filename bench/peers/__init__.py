"""The peer harness as a package, for benchmarks in the project's venv: ``from peers import client``.

run.py also runs as a script in the peers' venv (bench/setup_peers.sh); it then imports
items.py as a top-level module, from its own directory.
"""
