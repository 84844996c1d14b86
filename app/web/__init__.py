"""The public, read-only web view of every league (``docs/web.md``).

* :mod:`app.web.app`: the Starlette application (pages, JSON twins, CSV, Atom, headers);
* :mod:`app.web.server`: uvicorn in a thread (``amaryllis web``, and next to the workers of
  ``amaryllis serve``), stopped by an event within about a second;
* :mod:`app.web.battles`: battle logs recomputed through the league's ``Ruleset`` and cached;
* :mod:`app.reports.urls`: the URLs of every page (shared with the mails), absolute with ``public_url``;
* :mod:`app.web.payloads`: the JSON documents (schema ``app/web/schemas/web.v1.json``);
* :mod:`app.web.feeds`, :mod:`app.web.charts`: Atom feeds and the SVG HP chart.

Data comes from :mod:`app.league.queries` (public read models: no address, no sheet while
entries are open) through a read-only database connection.
"""
