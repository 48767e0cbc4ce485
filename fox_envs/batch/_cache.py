"""Keeps numba's on-disk kernel cache consistent with the shared kernel helpers.

numba checks only the source file of a cached function, but a game's kernels compile the shared
helpers (``_rows``, ``_rng``) into themselves. When a shared helper file changes, every cached
kernel of this package is stale, so the cache files are removed and compiled afresh once.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = ("_rows.py", "_rng.py")
STAMP = "shared-helpers.stamp"


def shared_fingerprint() -> str:
    digest = hashlib.sha1()
    for name in SHARED:
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()


def drop_stale_kernels() -> None:
    """Remove this package's numba cache files when the shared helpers changed since they were made."""
    cache = HERE / "__pycache__"
    stamp = cache / STAMP
    fingerprint = shared_fingerprint()
    try:
        if stamp.read_text() == fingerprint:
            return
    except OSError:
        pass
    try:
        for path in cache.glob("*.nb[ic]"):
            path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(fingerprint)
    except OSError:  # a read-only install: numba then caches elsewhere, nothing to do here
        pass
