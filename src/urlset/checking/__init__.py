"""Checking: sitemap bytes (from files, directories or URLs) in, findings with stable codes out.

``rules`` holds one function per protocol rule and the code table. ``document`` checks one
document's bytes with the reader and the rules (``raw_text``, ``structure``, ``schema`` and
``positions`` look at the bytes themselves; ``findings`` collects what they find);
``files`` checks files and directories, ``children`` compares an index with its children,
``report`` holds the results and their JSON and SARIF forms, and ``checker`` is the Python
API (``check``, ``is_valid``). ``http`` is the driver that downloads URLs and their index
children for the same checks.
"""
