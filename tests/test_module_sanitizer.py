"""Under AddressSanitizer and LeakSanitizer the module shows no memory error and no leak."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from emq_dive.engine.native import build

try:
    from tests.conftest_module import FUZZ_SEED, Err, fuzz_vector, spawn, stop
    from tests.test_module import BATCH_FATES, SEED, SINGLE_FATES
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from conftest_module import FUZZ_SEED, Err, fuzz_vector, spawn, stop
    from test_module import BATCH_FATES, SEED, SINGLE_FATES

SANITIZE = ("-g", "-fsanitize=address", "-fno-omit-frame-pointer", "-DEMQ_SCRATCH_LIBC")
VECTORS = 3000

# A deliberately leaking module loaded beside ours proves the harness sees module leaks.
CANARY = r"""
#include <stdlib.h>
#include <string.h>
typedef struct Ctx Ctx;
typedef struct Str Str;
void *volatile canary_last;
static int (*reply_ll)(Ctx *, long long);
static int leak(Ctx *ctx, Str **argv, int argc) {
    (void)argv; (void)argc;
    canary_last = malloc(48);
    return reply_ll(ctx, 1);
}
int RedisModule_OnLoad(Ctx *ctx, Str **argv, int argc) {
    (void)argv; (void)argc;
    int (*get_api)(const char *, void *);
    void (*attribs)(Ctx *, const char *, int, int);
    int (*create)(Ctx *, const char *, int (*)(Ctx *, Str **, int), const char *, int, int, int);
    memcpy(&get_api, (void *)ctx, sizeof get_api);
    get_api("RedisModule_SetModuleAttribs", &attribs);
    get_api("RedisModule_CreateCommand", &create);
    get_api("RedisModule_ReplyWithLongLong", &reply_ll);
    attribs(ctx, "canary", 1, 1);
    return create(ctx, "canary.leak", leak, "", 0, 0, 0);
}
"""


def _libasan() -> str:
    found = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not found or not Path(found).exists():
        pytest.fail("libasan is required for the sanitizer test (apt-get install gcc)")
    return str(Path(found).resolve())


def _reports(workdir: Path) -> list[str]:
    text = "".join(p.read_text(errors="replace") for p in sorted(workdir.glob("asan.*")))
    return [r for r in re.split(r"(?m)^(?===\d+==ERROR)", text) if "ERROR" in r]


def test_no_error_or_leak_from_the_module(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("cc") is None:
        pytest.fail("a C compiler is required for the sanitizer test")
    cache = tmp_path_factory.mktemp("emq-asan")
    module = build.build_module(cache, extra_flags=SANITIZE)
    canary = cache / "canary.so"
    (cache / "canary.c").write_text(CANARY)
    subprocess.run(["cc", "-std=c11", "-g", "-O0", "-fPIC", "-shared", "-o", str(canary),
                    str(cache / "canary.c")], check=True)
    # the slow unwinder walks through redis-server's frame-pointer-less code to the module's frames
    env = {"LD_PRELOAD": _libasan(),
           "ASAN_OPTIONS": "detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=0:log_path=asan"}
    rng = random.Random(7)
    with spawn(module, extra=["--loadmodule", str(canary)], env=env, start_seconds=60) as server:
        conn = server.raw()
        conn.call("ACL", "SETUSER", "reader", "on", ">pw-r", "+@all", "~emq:{q}:active", "~emq:{q}:",
                  "%R~emq:{q}:job:*")
        conn.call("ACL", "SETUSER", "blind", "on", ">pw-b", "+@all", "~emq:{q}:active", "~emq:{q}:")
        for _ in range(3):
            conn.pipeline(SEED)
            replies = conn.pipeline([["EMQ.EXTENDS", *a] for a in BATCH_FATES.values()]
                                    + [["EMQ.EXTEND", *a] for a in SINGLE_FATES.values()])
            assert any(r == 1 for r in replies) and any(isinstance(r, Err) for r in replies)
            for user, password in (("reader", "pw-r"), ("blind", "pw-b")):
                other = server.raw(user, password)
                other.pipeline([["EMQ.EXTENDS", *BATCH_FATES["mixed"]], ["EMQ.EXTEND", *SINGLE_FATES["live"]],
                                ["EVAL", "return redis.call('EMQ.EXTENDS', '2', KEYS[1], KEYS[2], '100', 'live', '1')",
                                 2, b"emq:{q}:active", b"emq:{q}:"]])
                other.close()
        conn.pipeline(FUZZ_SEED)
        vectors = [fuzz_vector(rng) for _ in range(VECTORS)]
        conn.pipeline([[verb, *v] for v in vectors for verb in ("EMQ.EXTENDS", "EMQ.EXTEND")])
        assert conn.call("canary.leak") == 1 and conn.call("canary.leak") == 1
        assert conn.call("PING") == b"PONG"
        conn.close()
        code = stop(server, timeout=60)
        reports = _reports(server.workdir)
        assert code is not None and code > 0, f"not an exit of its own with the sanitizer's leak status: {code}"
        assert any("canary.c" in r for r in reports), "the harness did not see the canary's leak"
        ours = [r for r in reports if "emq_module.c" in r or module.name in r]
        assert not ours, "\n".join(ours)
