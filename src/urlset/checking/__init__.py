"""Checking: sitemap bytes (from files, directories or URLs) in, findings with stable codes out.

``rules`` holds one function per protocol rule and the code table; ``checker`` runs the reader
and the rules over a document and over a set (files and directories); ``http`` is the driver
that downloads URLs and their index children for the same checks.
"""
