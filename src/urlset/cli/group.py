"""The ``urlset`` command as a click group whose subcommands live in their own modules.

Each subcommand module is imported only when that command runs, so ``urlset --help`` and
short commands start fast. Exit status everywhere: 0 ok, 1 problems found, 2 usage or I/O.
"""

from __future__ import annotations

import importlib
import importlib.util

import click

# command name -> (module, attribute, one-line help shown by `urlset --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "build": (
        "urlset.cli.build",
        "build",
        "Write a sitemap set (split, indexed, gzipped) from URL lists.",
    ),
    "read": ("urlset.cli.read", "read", "Read any sitemap format and print its entries."),
    "check": ("urlset.cli.check", "check", "Validate sitemaps the way a search engine does."),
    "fetch": ("urlset.cli.fetch", "fetch", "Discover and download a site's sitemaps."),
    "robots": (
        "urlset.cli.robots",
        "robots",
        "Add or update Sitemap: lines in robots.txt, or --check one.",
    ),
    "announce": (
        "urlset.cli.announce_engines",  # the group of announce.py with the engines' APIs
        "announce",
        "Tell search engines: ping, IndexNow, Search Console, Bing Webmaster.",
    ),
    "crawl": (
        "urlset.cli.crawl",
        "crawl",
        "Crawl a running site politely and list its pages for build.",
    ),
    "audit": ("urlset.cli.audit", "audit", "Request the URLs sitemaps list: are they indexable?"),
    "diff": ("urlset.cli.diff", "diff", "Compare two snapshots, sitemap sets or sites."),
    "watch": ("urlset.cli.watch", "watch", "Fetch a site every so often, store and diff each run."),
    "serve": ("urlset.cli.serve", "serve", "Preview a published sitemap set over HTTP."),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _available(name)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, attribute, _ = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(name: str) -> bool:
    return importlib.util.find_spec(COMMANDS[name][0]) is not None


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="urlset", prog_name="urlset")  # whatever argv[0] is
def main() -> None:
    """urlset: the Sitemaps protocol, complete and fast."""
