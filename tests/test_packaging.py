"""A non-editable install works: the wheel carries the lessons, the scripts and the module source.

The wheel is built from the checkout, installed with ``--no-deps`` into a fresh venv that borrows the current
environment's dependencies (``--system-site-packages``), and used from a directory outside the checkout, with no
PYTHONPATH, so nothing can be found in the source tree by accident.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = bool(os.environ.get("CI"))

MUST_SHIP = (
    "emq_dive/_lessons/batches-03.toml",
    "emq_dive/engine/echo_mq/scripts/extend_locks.lua",
    "emq_dive/engine/echo_mq/scripts/extend_lock.lua",
    "emq_dive/engine/native/emq_module.c",
)


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
         ) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    if importlib.util.find_spec("build") is not None:
        _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], cwd=out)
    else:
        _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out), str(ROOT)], cwd=out)
    built = sorted(out.glob("emq_dive-*.whl"))
    assert len(built) == 1, built
    return built[0]


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel: Path) -> dict:
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(home / "env")], cwd=home)
    python = home / "env" / "bin" / "python"
    # when the tests run inside a venv (make test), --system-site-packages reaches the base interpreter only:
    # this environment's site-packages are appended as plain paths, after the new venv's own, and without
    # running their .pth files, so an editable emq_dive there cannot shadow the installed wheel
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=home)
    (Path(purelib.stdout.strip()) / "zz_test_deps.pth").write_text(
        "\n".join(p for p in site.getsitepackages() if Path(p).is_dir()) + "\n")
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], cwd=home)
    outside = tmp_path_factory.mktemp("elsewhere")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["XDG_CACHE_HOME"] = str(home / "cache")
    return {"python": python, "bin": home / "env" / "bin", "cwd": outside, "env": env, "home": home}


def test_the_wheel_carries_lessons_scripts_and_module_source(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in MUST_SHIP if name not in names]
    assert not missing, f"the wheel lacks {missing}"
    assert not any(name.startswith(("tests/", "lessons/")) for name in names)
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("emq_dive/_lessons/batches-03.toml") == (ROOT / "lessons" / "batches-03.toml").read_bytes()


def test_every_package_data_file_reaches_the_wheel(wheel: Path) -> None:
    """Whatever the package reads at run time (.lua, .c, .toml, .tcss, ...) is in the wheel, not only .py files."""
    names = set(zipfile.ZipFile(wheel).namelist())
    package = ROOT / "emq_dive"
    wanted = [str(p.relative_to(ROOT)) for p in package.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so")]
    assert [name for name in wanted if name not in names] == []


def test_installed_list_shows_the_lesson(venv: dict) -> None:
    done = _run([str(venv["bin"] / "emq-dive"), "list"], cwd=venv["cwd"], env=venv["env"])
    assert "batches-03" in done.stdout
    assert "Batch lease extension" in done.stdout


def test_installed_script_prints_the_shipped_lua(venv: dict, wheel: Path) -> None:
    done = _run([str(venv["bin"] / "emq-dive"), "script", "extend_locks"], cwd=venv["cwd"], env=venv["env"])
    shipped = zipfile.ZipFile(wheel).read("emq_dive/engine/echo_mq/scripts/extend_locks.lua").decode()
    assert done.stdout == shipped
    assert "redis.call" in done.stdout


def test_installed_version(venv: dict) -> None:
    from emq_dive import __version__
    done = _run([str(venv["bin"] / "emq-dive"), "--version"], cwd=venv["cwd"], env=venv["env"])
    assert done.stdout.strip() == f"emq-dive {__version__}"


def test_installed_lessons_load_from_the_installed_package(venv: dict) -> None:
    code = ("import emq_dive, emq_dive.course.lessons as L; from emq_dive.course.lessons import load; "
            "l = load('batches-03'); print(l.heading); print(emq_dive.__file__); print(l.path)")
    done = _run([str(venv["python"]), "-c", code], cwd=venv["cwd"], env=venv["env"])
    heading, module_file, lesson_path = done.stdout.splitlines()
    assert heading == "Batches · dive 03 — Batch lease extension"
    home = str(venv["home"])
    assert module_file.startswith(home), f"imported the checkout, not the wheel: {module_file}"
    assert lesson_path.startswith(home) and "_lessons" in lesson_path, lesson_path


def test_installed_native_build_compiles_the_shipped_source(venv: dict) -> None:
    if shutil.which((os.environ.get("CC") or "cc").split()[0]) is None:
        if IN_CI:
            pytest.fail("CI must build the EMQ module, but there is no C compiler")
        pytest.skip("no C compiler (install gcc)")
    done = _run([str(venv["bin"] / "emq-dive"), "native", "build"], cwd=venv["cwd"], env=venv["env"])
    path = Path(done.stdout.strip())
    assert path.is_file() and path.suffix == ".so"
    assert str(path).startswith(str(venv["home"] / "cache"))


def test_installed_app_opens_the_lesson(venv: dict) -> None:
    """The installed app opens batches-03 headless and steps it: styles, scripts and lesson all came with the wheel."""
    shot = venv["home"] / "first.svg"
    done = _run([str(venv["bin"] / "emq-dive"), "batches-03", "--screenshot", str(shot), "--step", "2"],
                cwd=venv["cwd"], env=venv["env"])
    assert done.stdout.strip() == str(shot)
    svg = shot.read_text().replace("&#160;", " ")
    assert "Batch lease extension" in svg
    assert "step 2 of 4" in svg
