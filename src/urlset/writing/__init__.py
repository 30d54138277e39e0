"""Writing: entries in, a published sitemap set out.

``sources`` reads build inputs (text, CSV, TSV, JSON Lines) into rows or ``Url`` values;
``document`` serialises one sitemap with exact byte accounting and splitting; ``build`` runs
the pipeline (checks, scope, de-duplication, split, index); ``files`` is the driver that
gzips, stages and publishes atomically.
"""
