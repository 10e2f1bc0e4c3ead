"""The one progress bar the commands show: tqdm on standard error, nothing with --quiet."""

from __future__ import annotations

import sys
from typing import Any


class Bar:
    """``total`` known up front (statements to check), or learnt from the first step (a resumed evaluation counts
    only what is left: ``reset``)."""

    def __init__(self, total: int, unit: str, *, quiet: bool = False) -> None:
        self.bar: Any = None
        if not quiet and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=unit, file=sys.stderr, dynamic_ncols=True)

    def reset(self, total: int) -> None:
        if self.bar is not None:
            self.bar.reset(total=total)

    def step(self, text: str = "") -> None:
        if self.bar is not None:
            if text:
                self.bar.set_postfix_str(text[:40], refresh=False)
            self.bar.update(1)

    def write(self, text: str) -> None:
        """A line above the bar (or on standard error when there is none)."""
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
