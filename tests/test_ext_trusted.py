"""The makers of extension values a reader has checked already (``trusted_maker``): each
sets every field of its class, to what the checked constructor gives for the same values."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, fields
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from urlset.extensions import Alternate, Image, News, Video
from urlset.extensions.field_checks import trusted_maker
from urlset.extensions.hreflang import trusted_link
from urlset.extensions.image import trusted_image
from urlset.extensions.news import trusted_article
from urlset.extensions.video import _TYPED_BY_CORE, trusted_video


@dataclass(frozen=True, slots=True)
class _Three:
    first: object
    second: object
    third: object = "default"


_VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.tuples(st.integers()))


@given(_VALUES, _VALUES, _VALUES)
def test_a_made_value_equals_the_constructors(first: object, second: object, third: object) -> None:
    made = trusted_maker(_Three, ("first", "second", "third"))(first, second, third)
    assert made == _Three(first, second, third)
    assert repr(made) == repr(_Three(first, second, third))
    assert hash(made) == hash(_Three(first, second, third))
    assert pickle.loads(pickle.dumps(made)) == made and copy.copy(made) == made
    fixed = trusted_maker(_Three, ("second", "first"), {"third": third})(second, first)
    assert fixed == _Three(first, second, third)


def test_a_maker_takes_exactly_its_fields_and_the_value_stays_frozen() -> None:
    make = trusted_maker(_Three, ("first", "second"), {"third": 3})
    with pytest.raises(TypeError):
        make(1)
    with pytest.raises(TypeError):
        make(1, 2, 3)
    made = make(1, 2)
    with pytest.raises(AttributeError):
        made.first = 5  # type: ignore[misc]


def test_a_maker_refuses_a_class_whose_fields_it_would_not_all_set() -> None:
    """Every slot set, each by its own descriptor: a maker that left one empty would make a
    value that fails on reading it, and a property or a dict would take a value elsewhere."""

    class Plain:
        first: object

    @dataclass(frozen=True, slots=True)
    class Named:
        first: object

        @property
        def second(self) -> object:
            return self.first

    with pytest.raises(TypeError, match="holds a dict"):
        trusted_maker(Plain, ("first",))
    with pytest.raises(TypeError, match="are not the slots"):
        trusted_maker(_Three, ("first", "second"))
    with pytest.raises(TypeError, match="are not the slots"):
        trusted_maker(Named, ("first", "second"))
    with pytest.raises(TypeError, match="are not the slots"):
        trusted_maker(_Three, ("first", "second", "third"), {"third": 3})


def test_every_extension_maker_sets_what_the_checked_constructor_sets() -> None:
    """The four kinds the reader's compiled tokenizer types, made from its field tuples."""
    published = datetime(2024, 5, 6, 10, 30, tzinfo=UTC)
    image = ("https://cdn.example.com/a.jpg", "A caption", "Lyon, France", "A title")
    assert trusted_image(*image) == Image(*image)
    assert trusted_image(image[0], None, None, None) == Image(image[0])
    article = ("The Paper", "en", published, "Headline", "Subscription", ("Blog",), ("a",), ())
    assert trusted_article(*article) == News(*article)
    assert trusted_link("x-default", "https://x.io/") == Alternate("x-default", "https://x.io/")
    typed = dict.fromkeys(_TYPED_BY_CORE)
    typed.update(
        thumbnail_loc="https://www.example.com/t.jpg",
        title="Grilling",
        description="How to grill",
        content_loc="https://www.example.com/v.mp4",
        duration=600,
        rating=4.5,
        view_count=12,
        publication_date=published,
        tags=("steak", "grill"),
        category="Food",
        family_friendly=True,
        live=False,
    )
    video = trusted_video(*typed.values())
    checked = Video(**{k: v for k, v in typed.items() if v is not None})  # type: ignore[arg-type]
    assert video == checked
    assert [getattr(video, f.name) for f in fields(Video)] == [
        getattr(checked, f.name) for f in fields(Video)
    ]
