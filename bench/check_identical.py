"""Whether a change to the checker kept its findings: check's JSON, byte for byte, from two
source trees on the same files (bench_side_by_side.py's shop and mix, and a urlset of every
shape of read_shapes.py).

    .venv/bin/python bench/check_identical.py OTHER_SRC [--urls 20000 200000] [--no-shapes]

``OTHER_SRC`` is the ``src`` folder of the other tree (a worktree of the base branch, with
its compiled core); this tree's ``src`` is the one beside this script. Each file's JSON is
written by both and compared; the first differing lines are shown. Exit status 1 when any
differs.
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
OURS = HERE.parent / "src"
NOW = "2026-01-01T00:00:00Z"


def check_json(src: Path, path: Path, out: Path) -> bytes:
    code = "import sys; from urlset.cli import main; sys.exit(main())"
    args = [sys.executable, "-c", code, "check", str(path), "--now", NOW, "--format", "json"]
    subprocess.run([*args, "-o", str(out)], env={"PYTHONPATH": str(src)}, check=False)
    return out.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other tree's src folder")
    parser.add_argument("--urls", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--no-shapes", action="store_true", help="shop and mix only")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import read_shapes
    from bench_side_by_side import OUT, mix, shape_file, shop

    OUT.mkdir(parents=True, exist_ok=True)
    differ = False
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.urls:
            files: list[tuple[str, Callable[[Path, int], None] | None]] = [
                (f"shop-{n}.xml", shop),
                (f"mix-{n}.xml", mix),
            ]
            if not args.no_shapes:
                files += [(shape_file(shape, n).name, None) for shape in read_shapes.SHAPES]
            for name, make in files:
                path = OUT / name
                if make is not None and not path.exists():
                    make(path, n)
                ours = check_json(OURS, path, Path(tmp) / "ours.json")
                theirs = check_json(args.other, path, Path(tmp) / "theirs.json")
                same = ours == theirs
                differ |= not same
                print(f"{name}: {'identical' if same else 'DIFFERS'} ({len(ours):,} bytes)")
                if not same:
                    lines = difflib.unified_diff(
                        theirs.decode().splitlines(), ours.decode().splitlines(), lineterm=""
                    )
                    print("\n".join(list(lines)[:40]))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
