"""The public surface is small and explicit: changing it is a decision, so it is guarded here."""

import urlset


def test_public_names() -> None:
    assert sorted(urlset.__all__) == sorted(
        [
            "CURRENT",
            "SITEMAPS_2008",
            "BuildReport",
            "ChangeFreq",
            "InputError",
            "InvalidValue",
            "Issue",
            "LimitExceeded",
            "Limits",
            "PublishError",
            "RawElement",
            "ReadError",
            "ReadLimits",
            "Severity",
            "SitemapRef",
            "Url",
            "UrlsetError",
            "write_sitemaps",
        ]
    )
    for name in urlset.__all__:
        assert getattr(urlset, name) is not None
