"""``urlset build --dask SCHEDULER``: the build on a Dask cluster (``urlset.dask``)."""

from __future__ import annotations

import gzip
import zlib
from concurrent.futures import CancelledError
from typing import Any

from ..errors import InvalidValue, PublishError
from ..writing.build import BuildReport
from .shared import BuildMode, json_lines_log
from .streams import UsageProblem

_USAGE_FIELDS = ("input format", "scheduler", "input", "dedupe", "exclude")


def run_on_dask(
    scheduler: str,
    sources: tuple[str, ...],
    input_format: str | None,
    out_dir: str,
    base_url: str,
    options: dict[str, Any],
    mode: BuildMode,
) -> BuildReport:
    """The whole stable set of ``sources`` built on the cluster, its problems logged to
    --report; a job that fails or is cancelled publishes nothing (PublishError)."""
    if mode.update or mode.changes_path or mode.remove_paths:
        raise UsageProblem(
            "--dask builds a whole set; --update, --remove and --changes run without it"
        )
    if "-" in sources:
        raise UsageProblem("--dask reads files or fsspec URLs, not standard input ('-')")
    try:
        from ..dask.building import build
    except ImportError as exc:
        raise UsageProblem(str(exc)) from None
    with json_lines_log("--report", mode.report_path) as on_problem:
        try:
            return build(
                list(sources),
                out_dir,
                base_url,
                scheduler=scheduler,
                input_format=input_format,
                on_problem=on_problem,
                **options,
            )
        except ImportError as exc:
            raise UsageProblem(str(exc)) from None
        except InvalidValue as exc:
            if exc.field in _USAGE_FIELDS:
                raise UsageProblem(str(exc)) from None
            raise
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            from ..dask.partitions import reader_message

            # as a local build says it (a bare EOFError would be click's "Aborted!")
            raise PublishError(
                f"{_compressed(sources)}: the gzip stream ends early or is damaged "
                f"({reader_message(exc)})"
            ) from None
        except CancelledError as exc:
            raise PublishError(f"the Dask job was cancelled ({exc})") from None
        except Exception as exc:
            from distributed import KilledWorker

            if isinstance(exc, KilledWorker):
                raise PublishError(f"the Dask job lost its workers ({exc})") from None
            raise


def _compressed(sources: tuple[str, ...]) -> str:
    """The gzipped input a damaged stream is in: the one named, or among several (a task's
    error does not say which file it read)."""
    gzipped = [name for name in sources if name.endswith(".gz")] or list(sources)
    if len(gzipped) == 1:
        return gzipped[0]
    return f"one of {', '.join(gzipped)} (the Dask job does not say which)"
