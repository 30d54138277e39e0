"""Shared test fixtures. Tests that need ../shared skip cleanly where it is absent."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

# beside the repository; URLSET_SHARED names it elsewhere (a git worktree one level deeper)
SHARED = Path(os.environ.get("URLSET_SHARED") or Path(__file__).resolve().parents[2] / "shared")


@pytest.fixture(params=["lean", "aiohttp"])
def either_client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a fetch test over each HTTP client: the lean one (fetching/h1.py, aiohttp only
    for what it leaves to it) and aiohttp alone, through ``test_fetch_support.fast_http``."""
    import test_fetch_support

    monkeypatch.setattr(test_fetch_support, "LEAN", request.param == "lean")
    return str(request.param)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The project's shared material (spec, schemas, corpus); skips when it is not beside the repo."""
    if not (SHARED / "corpus").is_dir():
        pytest.skip(reason="../shared is absent (a fresh clone): no corpus or official schemas")
    return SHARED


# what a property asserts is never how fast examples come: on shared, loaded cores (CI) the
# generation-speed check and the per-example deadline fail properties that hold
settings.register_profile("urlset", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("urlset")


# fixture -> the marker its tests get, so that scripts/check --quick can leave them out by
# what they need rather than by a list of names that goes stale
MARK_BY_FIXTURE = {"browser": "browser", "shared": "corpus", "dask_client": "dask"}


# a property test asking for more examples than this is exhaustive rather than a unit check
EXHAUSTIVE_EXAMPLES = 200


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests that drive Chromium, read the shared corpus (by the fixture, or a
    ``corpus`` in the test's name: those parametrized over its files at collection), start a
    Dask cluster, or run a property more than EXHAUSTIVE_EXAMPLES times (``exhaustive``)."""
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            mark = MARK_BY_FIXTURE.get(fixture)
            if mark:
                item.add_marker(getattr(pytest.mark, mark))
        if "corpus" in item.name:
            item.add_marker(pytest.mark.corpus)
        # hypothesis keeps a test's @settings here (not a documented name; absent: no mark)
        chosen = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None)
        if chosen is not None and chosen.max_examples > EXHAUSTIVE_EXAMPLES:
            item.add_marker(pytest.mark.exhaustive)


SCREENSHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots"


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    """Debian's Chromium, headless, driven through Debian's chromedriver (scripts/check installs
    both where it runs as root); skips with the reason where no browser can be started."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip(reason="no Chromium here: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(flag)
    # an explicit driver path keeps Selenium Manager from looking for one on the network
    session = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    session.set_page_load_timeout(30)
    try:
        yield session
    finally:
        session.quit()


@pytest.fixture
def screenshot(browser: WebDriver, request: pytest.FixtureRequest) -> Callable[[], Path]:
    """Saves what the browser shows as out/screenshots/<test>.png (a CI artifact, never compared)."""

    def take() -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{request.node.name}.png"
        browser.save_screenshot(str(path))
        return path

    return take


@pytest.fixture(scope="session")
def dask_client() -> Iterator[object]:
    """A local Dask cluster of two worker processes (each task pickled across a process
    boundary, as on a real cluster), shared by the Dask tests; skips without dask."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
