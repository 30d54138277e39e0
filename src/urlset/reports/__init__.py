"""Static HTML reports: one self-contained page each (styles and charts inline, no script),
for ``urlset check --format html``, ``urlset fetch --report FILE.html`` and ``urlset diff
--format html``.

The rendering is pure (results in, HTML text out); ``gather`` holds the check's URL counts
(``UrlCounter``, fed by the checker as it reads). Charts are drawn by matplotlib, the ``report``
extra, imported only when a chart is drawn: ``require`` raises ``ExtraMissing`` naming the
pip command when it is not installed, and the commands check that before they start.
"""

from __future__ import annotations

from .plots import INSTALL, ExtraMissing, require

__all__ = ["INSTALL", "ExtraMissing", "require"]
