"""Progress bars for the library's long loops: tqdm when it is installed (extra ``progress``),
otherwise the plain iterable (nothing is printed)."""

from __future__ import annotations

from typing import Iterable


def progress_bar(iterable: Iterable, desc: str = "", disable: bool = False, **kwargs) -> Iterable:
    """``tqdm(iterable, desc=..., disable=...)`` if tqdm is importable, else ``iterable``."""
    if disable:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, **kwargs)
