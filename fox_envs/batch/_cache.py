"""numba's on-disk cache for this package's kernels, made safe to rely on.

``install()`` (run by ``fox_envs.batch`` before any kernel is compiled) gives every function of
the package compiled with ``cache=True`` a ``PackageCache`` instead of numba's own; numba's
other functions are left as they are. A ``PackageCache`` entry is:

* kept in the first writable directory of: ``NUMBA_CACHE_DIR`` (when set), the source folder's
  ``__pycache__``, numba's user-wide cache directory, and a private directory under the
  system's temporary directory (``fox_envs-numba-<uid>``, mode 0700, owned by the user; else
  one made for the process and removed at exit). With none writable the kernels are compiled
  in every process, after one warning (``KernelCacheWarning``).
* valid only for the exact source of the function's file and of the files it imports from its
  own folder and from ``fox_envs/batch``: a kernel compiles the helpers and constants it imports
  into itself, while numba checks only the function's own file.
* dropped when it cannot be read (a truncated or garbage file): its files are deleted and the
  function is compiled afresh, after one warning.
"""
from __future__ import annotations

import ast
import atexit
import glob
import hashlib
import inspect
import os
import shutil
import stat
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

from numba.core import caching, config, dispatcher
from numba.misc.appdirs import AppDirs

HERE = Path(__file__).resolve().parent  # fox_envs/batch
PACKAGE = HERE.parent  # fox_envs
_warned: set[str] = set()


class KernelCacheWarning(RuntimeWarning):
    """The kernels' disk cache could not be used as it is (said once per process and kind)."""


def _warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, KernelCacheWarning, stacklevel=3)


def is_package_file(path: str) -> bool:
    """Whether ``path`` is a source file of this package."""
    try:
        return Path(path).resolve().is_relative_to(PACKAGE)
    except (OSError, ValueError):
        return False


# ----- freshness -----------------------------------------------------------------------------------
def _module_file(name: str) -> Path | None:
    """The source file of the package module ``name`` (``fox_envs.x.y``), if there is one."""
    base = PACKAGE.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported_files(path: Path) -> set[Path]:
    """The package files ``path`` imports (a name imported from a package may be a submodule)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    files = (_module_file(name) for name in names if name.split(".")[0] == PACKAGE.name)
    return {file for file in files if file is not None}


def source_files(py_file: str) -> list[Path]:
    """``py_file`` and every file it imports, directly or through each other, from its own
    folder or ``fox_envs/batch``: what a kernel compiled from it depends on."""
    start = Path(py_file).resolve()
    roots = (start.parent, HERE)
    seen, todo = {start}, [start]
    while todo:
        for file in _imported_files(todo.pop()):
            if file not in seen and file.parent in roots:
                seen.add(file)
                todo.append(file)
    return sorted(seen)


@lru_cache(maxsize=None)
def source_fingerprint(py_file: str) -> str:
    """A digest of the ``source_files`` of ``py_file``."""
    digest = hashlib.sha256()
    for file in source_files(py_file):
        digest.update(str(file.relative_to(PACKAGE)).encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()


# ----- where -----------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def private_cache_root() -> str | None:
    """A directory under the temporary directory that only this user can write and read (None
    when there is none)."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        shared = os.path.join(tempfile.gettempdir(), f"fox_envs-numba-{uid if uid is not None else os.getlogin()}")
        os.makedirs(shared, mode=0o700, exist_ok=True)
        info = os.lstat(shared)
        if stat.S_ISDIR(info.st_mode) and (uid is None or (info.st_uid == uid and not info.st_mode & 0o077)):
            return shared
        private = tempfile.mkdtemp(prefix="fox_envs-numba-")  # someone else's, or open to others
    except OSError:
        return None
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


def cache_dirs(py_file: str) -> list[str]:
    """The directories tried, in order, for the cache of a function of ``py_file``."""
    subpath = caching._CacheLocator.get_suitable_cache_subpath(py_file)
    dirs = [os.path.join(config.CACHE_DIR, subpath)] if config.CACHE_DIR else []
    dirs.append(os.path.join(os.path.dirname(py_file), "__pycache__"))
    dirs.append(os.path.join(AppDirs(appname="numba", appauthor=False).user_cache_dir, subpath))
    private = private_cache_root()
    if private is not None:
        dirs.append(os.path.join(private, subpath))
    return dirs


class PackageCacheLocator(caching._CacheLocator):
    """The first writable directory of ``cache_dirs``; entries keyed by ``source_fingerprint``."""

    def __init__(self, py_func, py_file: str, path: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._path = path

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> tuple[str, str]:
        return "fox_envs", source_fingerprint(self._py_file)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file: str):
        if not is_package_file(py_file):
            return None
        for path in cache_dirs(py_file):
            locator = cls(py_func, py_file, path)
            try:
                locator.ensure_cache_path()
            except OSError:  # missing, read-only, or under a file
                continue
            return locator
        return None


class _PackageCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [PackageCacheLocator]


# ----- reading -----------------------------------------------------------------------------------------
class PackageCache(caching.FunctionCache):
    """numba's function cache, except that an entry that cannot be read is deleted (the
    function is then compiled and cached afresh)."""

    _impl_class = _PackageCacheImpl

    def _load_overload(self, sig, target_context):
        try:
            return super()._load_overload(sig, target_context)
        except Exception as error:  # noqa: BLE001  (a truncated or garbage index or data file)
            index = self._cache_file._index_path
            self.drop()
            _warn_once("unreadable", f"fox_envs: an unreadable numba cache entry ({index}: {type(error).__name__}: "
                                     f"{str(error)[:120]}) was deleted; compiling afresh")
            return None

    def drop(self) -> None:
        """Delete this function's index and data files."""
        base = os.path.join(self._cache_path, glob.escape(self._impl.filename_base))
        for path in [self._cache_file._index_path, *glob.glob(base + ".*.nbc")]:
            try:
                os.unlink(path)
            except OSError:
                pass


def _enable_caching(self) -> None:
    """``Dispatcher.enable_caching`` with a ``PackageCache`` for this package's functions (no
    cache, after one warning, when no directory is writable)."""
    if not is_package_file(inspect.getfile(self.py_func)):
        return _numba_enable_caching(self)
    try:
        self._cache = PackageCache(self.py_func)
    except RuntimeError as error:  # numba: "cannot cache function ...: no locator available"
        _warn_once("nowhere", f"fox_envs: no writable directory for numba's cache ({error}); the batched "
                              "kernels are compiled in every process (set NUMBA_CACHE_DIR to a writable directory)")
        self._cache = caching.NullCache()


_numba_enable_caching = dispatcher.Dispatcher.enable_caching
while hasattr(_numba_enable_caching, "numba_original"):  # this module loaded again: numba's own
    _numba_enable_caching = _numba_enable_caching.numba_original
_enable_caching.numba_original = _numba_enable_caching


def install() -> None:
    """Give the package's ``cache=True`` functions a ``PackageCache`` (idempotent)."""
    dispatcher.Dispatcher.enable_caching = _enable_caching
