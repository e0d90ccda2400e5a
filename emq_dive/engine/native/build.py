"""Compile the EMQ server module with the system C compiler, once per source and flags."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

FLAGS = ("-std=c11", "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror")
SOURCE_NAME = "emq_module.c"


class NoCompiler(RuntimeError):
    """There is no C compiler to build the module with."""


class BuildFailed(RuntimeError):
    """The compiler rejected the module; the message carries its output."""


def module_source() -> Path:
    """The path of the module's C source inside the installed package."""
    return Path(str(resources.files(__package__).joinpath(SOURCE_NAME)))


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/emq-dive``, else ``~/.cache/emq-dive``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "emq-dive"


def find_compiler() -> list[str]:
    """The compiler command: ``$CC`` when set, else ``cc``; raises NoCompiler when absent."""
    command = shlex.split(os.environ.get("CC", "")) or ["cc"]
    if shutil.which(command[0]) is None:
        raise NoCompiler(f"no C compiler found ({command[0]!r} is not on PATH): install gcc "
                         "(apt-get install gcc) to build the EMQ module")
    return command


def build_module(cache_dir: Path | None = None, *, extra_flags: Sequence[str] = ()) -> Path:
    """Return the compiled module, compiling it into ``cache_dir`` on first use."""
    compiler = find_compiler()
    source = module_source().read_bytes()
    flags = [*FLAGS, *extra_flags]
    digest = hashlib.sha256()
    for part in (source, "\0".join(compiler).encode(), "\0".join(flags).encode()):
        digest.update(part)
        digest.update(b"\0\0")
    target_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = target_dir / f"emq-{digest.hexdigest()[:12]}.so"
    if target.is_file():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    # compiled from a private copy so the hash always names the bytes that were built
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".build-") as scratch:
        copy = Path(scratch) / SOURCE_NAME
        copy.write_bytes(source)
        built = Path(scratch) / target.name
        try:
            done = subprocess.run([*compiler, *flags, "-o", str(built), str(copy)],
                                  capture_output=True, text=True, timeout=120)
        except FileNotFoundError:
            raise NoCompiler(f"no C compiler found ({compiler[0]!r} could not run): install gcc "
                             "(apt-get install gcc) to build the EMQ module") from None
        if done.returncode != 0 or not built.is_file():
            output = (done.stdout + done.stderr).strip()
            raise BuildFailed(f"building the EMQ module failed ({' '.join(compiler)} exited "
                              f"{done.returncode}):\n{output}")
        os.replace(built, target)
    return target


def build_command() -> int:
    """Build the module, print its path and return an exit status, for ``emq-dive native build``."""
    try:
        path = build_module()
    except (NoCompiler, BuildFailed) as err:
        print(err, file=sys.stderr)
        return 1
    print(path)
    return 0
