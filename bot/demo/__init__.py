"""refbot's offline demo world (``refbot demo``): invented items, pages and services served on loopback."""
