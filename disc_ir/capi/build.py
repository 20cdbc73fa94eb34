"""Builds libdisc_graph_compiler.so, the RFC's C API, with cffi's embedding mode.

    python -m disc_ir.capi.build [-o DIR]

writes `DIR/libdisc_graph_compiler.so` and `DIR/dnnl_graph_compiler.h`
(default DIR: `disc_ir/capi/lib`). The library embeds this Python
interpreter: its first call starts it, adds this environment's
site-packages (so `disc_ir` imports as here) and defines the functions of
`disc_ir.capi.entry`. A C caller needs no Python code of its own; the
library needs this environment and libpython at run time.
"""

from __future__ import annotations

import argparse
import re
import shutil
import site
import sys
import sysconfig
import tempfile
from pathlib import Path

HEADER = Path(__file__).with_name("dnnl_graph_compiler.h")
LIBRARY_NAME = "libdisc_graph_compiler.so"
MODULE_NAME = "_disc_graph_compiler"
DEFAULT_DIR = Path(__file__).with_name("lib")


def header_types(header: str) -> str:
    """The type declarations of `header` as cffi's `cdef` takes them: comments,
    preprocessor lines, the C++-only `extern "C"` block markers and the
    `DNNL_API` function declarations left out; of an `#if ... #else ... #endif`,
    the `#else` part (the header's own definitions, not oneDNN's include)."""
    text = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    kept: list[str] = []
    # per open conditional: whether its current branch is kept
    branches: list[bool] = []
    for line in text.splitlines():
        directive = line.strip()
        if directive.startswith("#"):
            word = directive[1:].split(maxsplit=1)[0] if directive[1:].strip() else ""
            if word in ("if", "ifdef", "ifndef"):
                # the include guard and DNNL_API's default are kept; `__cplusplus`
                # and the oneDNN-types branch are not
                branches.append(not ("__cplusplus" in directive or directive.startswith("#if ")))
            elif word == "else" and branches:
                branches[-1] = not branches[-1]
            elif word == "endif" and branches:
                branches.pop()
            continue
        if all(branches):
            kept.append(line)
    declarations = re.sub(r"DNNL_API[^;]*;", "", "\n".join(kept), flags=re.S)
    return "\n".join(line for line in declarations.splitlines() if line.strip()) + "\n"


#: the functions the embedded Python defines (disc_ir.capi.entry); the RFC's
#: functions are C wrappers of these (`_SOURCE`). Status results are offset by
#: one so that cffi's 0 for "the interpreter failed to start" reads as an error.
_API = """
int _disc_gc_create(const struct dnnl_graph_compiler_context *ctx,
        const struct dnnl_graph_compiler **gc);
void _disc_gc_destroy(const struct dnnl_graph_compiler *gc);
int _disc_gc_compile(const struct dnnl_graph_compiler *gc, const char *graph_json,
        const struct dnnl_graph_compiler_executable **exe);
void _disc_gc_destroy_executable(const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe);
int _disc_gc_execute(const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe,
        dnnl_graph_compiler_tensor *inputs, dnnl_graph_compiler_tensor *outputs);
const char *_disc_gc_last_error(void);
"""

_SOURCE = r"""
#include <dlfcn.h>
#include "dnnl_graph_compiler.h"

#define DISC_EXPORT __attribute__((visibility("default")))

static int _disc_gc_create(const struct dnnl_graph_compiler_context *,
        const struct dnnl_graph_compiler **);
static void _disc_gc_destroy(const struct dnnl_graph_compiler *);
static int _disc_gc_compile(const struct dnnl_graph_compiler *, const char *,
        const struct dnnl_graph_compiler_executable **);
static void _disc_gc_destroy_executable(const struct dnnl_graph_compiler *,
        const struct dnnl_graph_compiler_executable *);
static int _disc_gc_execute(const struct dnnl_graph_compiler *,
        const struct dnnl_graph_compiler_executable *, dnnl_graph_compiler_tensor *,
        dnnl_graph_compiler_tensor *);
static const char *_disc_gc_last_error(void);

/* Extension modules the embedded interpreter imports resolve libpython's
   symbols globally: make them global even when the caller dlopens this
   library with RTLD_LOCAL, as oneDNN's loader may. */
__attribute__((constructor)) static void disc_gc_load_libpython(void) {
    dlopen("%(libpython)s", RTLD_NOW | RTLD_GLOBAL);
}

/* cffi makes and drops a Python thread state on every call from a thread
   Python does not know (so its thread-locals, and the runtime's per-thread
   state, start afresh each call): keep one per calling thread instead. */
static __thread int disc_gc_thread_state_kept;

static void disc_gc_keep_thread_state(void) {
    if (disc_gc_thread_state_kept || !Py_IsInitialized()) return;
    PyGILState_Ensure();
    PyEval_SaveThread();
    disc_gc_thread_state_kept = 1;
}

static dnnl_status_t disc_gc_status(int offset_status) {
    disc_gc_keep_thread_state();
    return offset_status <= 0 ? dnnl_runtime_error : (dnnl_status_t)(offset_status - 1);
}

DISC_EXPORT const struct dnnl_graph_compiler_version *dnnl_graph_compiler_get_version(void) {
    static const struct dnnl_graph_compiler_version version = {
        {DNNL_GRAPH_COMPILER_API_VERSION_MAJOR, DNNL_GRAPH_COMPILER_API_VERSION_MINOR,
         DNNL_GRAPH_COMPILER_API_VERSION_PATCH},
        {%(major)d, %(minor)d, %(patch)d, "%(hash)s"}};
    return &version;
}

DISC_EXPORT dnnl_status_t dnnl_graph_compiler_create(
        const struct dnnl_graph_compiler_context *ctx, const struct dnnl_graph_compiler **gc) {
    return disc_gc_status(_disc_gc_create(ctx, gc));
}

DISC_EXPORT void dnnl_graph_compiler_destroy(const struct dnnl_graph_compiler *gc) {
    _disc_gc_destroy(gc);
}

DISC_EXPORT dnnl_status_t dnnl_graph_compiler_compile(const struct dnnl_graph_compiler *gc,
        const char *graph_json, const struct dnnl_graph_compiler_executable **exe) {
    return disc_gc_status(_disc_gc_compile(gc, graph_json, exe));
}

DISC_EXPORT void dnnl_graph_compiler_destroy_executable(const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe) {
    _disc_gc_destroy_executable(gc, exe);
}

DISC_EXPORT dnnl_status_t dnnl_graph_compiler_execute(const struct dnnl_graph_compiler *gc,
        const struct dnnl_graph_compiler_executable *exe, dnnl_graph_compiler_tensor *inputs,
        dnnl_graph_compiler_tensor *outputs) {
    return disc_gc_status(_disc_gc_execute(gc, exe, inputs, outputs));
}

DISC_EXPORT const char *dnnl_graph_compiler_get_last_error(void) {
    const char *message = _disc_gc_last_error();
    return message ? message
                   : "disc-ir: the embedded Python interpreter failed to start (see stderr)";
}
"""

_INIT = """
import site as _site
import sys as _sys
for _p in {paths!r}:
    if _p not in _sys.path:
        _site.addsitedir(_p)
from {module} import ffi
from disc_ir.capi.entry import define
define(ffi)
"""


def _search_paths() -> list[str]:
    """This environment's import roots: site-packages (with their .pth files) and the
    directory `disc_ir` is imported from."""
    paths = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    paths.append(str(Path(__file__).resolve().parents[2]))
    out: list[str] = []
    for p in paths:
        if p not in out and Path(p).is_dir():
            out.append(p)
    return out


def _source() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        text = version("disc-ir")
    except PackageNotFoundError:
        text = "0.0.0"
    parts = [int(p) if p.isdigit() else 0 for p in text.split(".")[:3]] + [0, 0, 0]
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    libpython = str(Path(libdir) / (sysconfig.get_config_var("LDLIBRARY") or ""))
    return _SOURCE % {
        "libpython": libpython,
        "major": parts[0],
        "minor": parts[1],
        "patch": parts[2],
        "hash": f"disc-ir {text}",
    }


def build(out_dir: str | Path = DEFAULT_DIR, verbose: bool = False) -> Path:
    """Compiles the library into `out_dir` (with the header beside it); returns its path."""
    import cffi

    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ffi = cffi.FFI()
    ffi.cdef(header_types(HEADER.read_text()))
    ffi.embedding_api(_API)
    ffi.set_source(
        MODULE_NAME,
        _source(),
        include_dirs=[str(HEADER.parent)],
        libraries=["dl"],
    )
    ffi.embedding_init_code(_INIT.format(paths=_search_paths(), module=MODULE_NAME))
    with tempfile.TemporaryDirectory(prefix="disc_capi_") as tmp:
        built = ffi.compile(tmpdir=tmp, target=LIBRARY_NAME, verbose=verbose)
        target = out / LIBRARY_NAME
        shutil.copyfile(built, target)
    shutil.copyfile(HEADER, out / HEADER.name)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m disc_ir.capi.build", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "-o", "--output-dir", default=str(DEFAULT_DIR), help="where to write the library and header"
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        path = build(args.output_dir, verbose=args.verbose)
    except ImportError:
        print("disc_ir.capi.build needs cffi: pip install 'disc-ir[capi]'", file=sys.stderr)
        return 1
    except Exception as err:  # noqa: BLE001 - a compiler failure is reported, not traced
        print(f"error: building {LIBRARY_NAME} failed: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
