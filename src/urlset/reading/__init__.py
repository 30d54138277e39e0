"""Reading: bytes of any format the protocol allows in, entries and issues out.

``sniff`` finds gzip and the format by content; the XML body reader (a fast lane for plain
urlsets, lxml's careful lane for everything else) and the text reader turn bodies into
``Url``, ``SitemapRef`` and ``Issue`` events; ``reader`` is the push-parser façade and
``read_*``; ``output`` renders entries as JSON Lines, CSV, TSV or locs. No I/O but files
read by ``read_file``.
"""
