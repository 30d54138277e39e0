"""``Scope.of`` takes a plain base URL apart by hand: the same scope the WHATWG parse gives."""

from __future__ import annotations

import ada_url
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.errors import InvalidValue
from urlset.urls import _DEFAULT_PORT, Scope, is_plain_uri, to_uri


def scope_by_parse(base_url: str) -> Scope:
    """The scope as the WHATWG parse reads ``base_url`` (what ``Scope.of`` did for all)."""
    parsed = ada_url.URL(to_uri(base_url, field="base URL"))
    path = parsed.pathname
    scheme = parsed.protocol.rstrip(":")
    port = int(parsed.port) if parsed.port else _DEFAULT_PORT[scheme]
    return Scope(scheme, parsed.hostname, port, path[: path.rfind("/") + 1] or "/")


bases = st.builds(
    lambda scheme, host, port, path, query: f"{scheme}://{host}{port}/{path}{query}",
    st.sampled_from(["http", "https", "HTTPS"]),
    st.sampled_from(["shop.test", "a.b-c.example", "127.0.0.1", "Shop.Test", "bücher.de", "1.2"]),
    st.sampled_from(["", ":80", ":443", ":8080", ":0", ":08080", ":65535", ":65536"]),
    st.lists(st.sampled_from(["a", "b.xml", "%41", "ü", "..", "."]), max_size=3).map("/".join),
    st.sampled_from(["", "?x=1/2", "?x=1&y=/a", "#f/g"]),
)


@settings(max_examples=300, deadline=None)
@given(bases)
def test_scope_of_a_base_url_is_what_the_whatwg_parse_gives(base_url: str) -> None:
    try:
        expected = scope_by_parse(base_url)
    except InvalidValue:
        with pytest.raises(InvalidValue):
            Scope.of(base_url)
        return
    assert Scope.of(base_url) == expected


def test_plain_base_urls_are_taken_apart_by_hand() -> None:
    # the property above covers the hand path only if plain bases are among its inputs
    assert is_plain_uri("https://shop.test:8080/a/b.xml?x=1/2")
    assert Scope.of("https://shop.test:8080/a/b.xml?x=1/2") == Scope(
        "https", "shop.test", 8080, "/a/"
    )
