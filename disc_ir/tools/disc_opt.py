"""disc-opt: the mlir-opt of disc-ir.

Reads MLIR (a file or stdin), runs the passes named on the command line in
order, prints the result. Flags follow mlir-opt's spelling (one or two
dashes): `-split-input-file`, `-o FILE`, `-pass-pipeline='builtin.module(...)'`,
`-pass-name`, `-pass-name='opt=v'`, `--pass-name{opt=v}`,
`--mlir-print-ir-after-all`, `--mlir-print-ir-before-all`,
`--mlir-print-op-generic`, `--mlir-timing`, `--verify-each[=false]`,
`--allow-unregistered-dialect`, `--list-passes`, `-verify-diagnostics`
(check the input's `// expected-error {{...}}` comments, see
`diagnostic_verifier`).

User errors (bad text, unknown pass or option, a verifier failing) print a
diagnostic and exit 1, never a traceback.
"""

from __future__ import annotations

import difflib
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from disc_ir import config
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.pass_pipeline import (
    PassSpec,
    PipelineError,
    build_pass,
    flatten,
    parse_options,
    parse_pass_pipeline,
    pass_spec_text,
)
from disc_ir.ir.printer import module_text
from disc_ir.ir.verify import VerifyEach, first_verify_failure
from disc_ir.passes.registry import is_pass_name, pass_infos, pass_names
from disc_ir.tools.diagnostic_verifier import (
    EmittedDiagnostic,
    parse_expectations,
    verify_diagnostics,
)

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)

# flag name -> whether it takes a value
_FLAGS = {
    "split-input-file": False,
    "o": True,
    "pass-pipeline": True,
    "mlir-print-ir-after-all": False,
    "mlir-print-ir-before-all": False,
    "mlir-print-ir-after-change": False,
    "mlir-print-op-generic": False,
    "mlir-print-debuginfo": False,
    "mlir-timing": False,
    "verify-each": False,
    "allow-unregistered-dialect": False,
    "list-passes": False,
    "help": False,
    "h": False,
    "version": False,
    "mlir-disable-threading": False,
    "show-dialects": False,
    "load-pass-plugin": True,
    "verify-diagnostics": False,
}


class UsageError(Exception):
    """A bad command line."""


@dataclass
class Options:
    inputs: list[str] = field(default_factory=list)
    output: str = "-"
    split_input_file: bool = False
    passes: list[ModulePass] = field(default_factory=list)
    print_after_all: bool = False
    print_before_all: bool = False
    print_after_change: bool = False
    generic: bool = False
    timing: bool = False
    verify_each: bool = True
    allow_unregistered: bool = False
    list_passes: bool = False
    show_dialects: bool = False
    help: bool = False
    version: bool = False
    verify_diagnostics: bool = False


def _split_flag(arg: str) -> tuple[str, str | None]:
    """`--name=value` / `-name{...}` -> (name, value or None)."""
    body = arg.lstrip("-")
    brace = body.find("{")
    eq = body.find("=")
    if brace >= 0 and (eq < 0 or brace < eq):
        if not body.endswith("}"):
            raise UsageError(f"unbalanced '{{' in '{arg}'")
        return body[:brace], body[brace + 1 : -1]
    if eq >= 0:
        return body[:eq], body[eq + 1 :]
    return body, None


def parse_args(argv: Sequence[str]) -> Options:
    opts = Options()
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            opts.inputs.append(arg)
            continue
        name, value = _split_flag(arg)
        if name in _FLAGS:
            if _FLAGS[name] and value is None:
                if i >= len(args):
                    raise UsageError(f"option '-{name}' needs a value")
                value = args[i]
                i += 1
            _apply_flag(opts, name, value)
        elif is_pass_name(name):
            spec = PassSpec(name, parse_options(value) if value else {})
            opts.passes.extend(_expanded(build_pass(spec)))
        else:
            candidates = list(_FLAGS) + pass_names()
            close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
            hint = f" (did you mean: {', '.join('-' + c for c in close)}?)" if close else ""
            raise UsageError(f"unknown option or pass '{arg}'{hint}")
    return opts


def _expanded(p: ModulePass) -> list[ModulePass]:
    """A pipeline pass (one with `expand()`) as its passes, any other pass as itself."""
    expand = getattr(p, "expand", None)
    if expand is None:
        return [p]
    try:
        return [q for sub in expand() for q in _expanded(sub)]
    except ValueError as exc:
        raise UsageError(f"pass '{p.name}': {exc}") from None


def _bool_value(name: str, value: str | None) -> bool:
    if value is None:
        return True
    if value.lower() in ("true", "1"):
        return True
    if value.lower() in ("false", "0"):
        return False
    raise UsageError(f"option '-{name}' takes true or false, got '{value}'")


def _apply_flag(opts: Options, name: str, value: str | None) -> None:
    if name == "o":
        opts.output = value or "-"
    elif name == "pass-pipeline":
        assert value is not None
        for anchor, spec in flatten(parse_pass_pipeline(value)):
            del anchor  # passes walk every op they apply to
            opts.passes.extend(_expanded(build_pass(spec)))
    elif name == "split-input-file":
        opts.split_input_file = _bool_value(name, value)
    elif name == "mlir-print-ir-after-all":
        opts.print_after_all = _bool_value(name, value)
    elif name == "mlir-print-ir-before-all":
        opts.print_before_all = _bool_value(name, value)
    elif name == "mlir-print-ir-after-change":
        opts.print_after_change = _bool_value(name, value)
    elif name == "mlir-print-op-generic":
        opts.generic = _bool_value(name, value)
    elif name == "mlir-timing":
        opts.timing = _bool_value(name, value)
    elif name == "verify-each":
        opts.verify_each = _bool_value(name, value)
    elif name == "verify-diagnostics":
        opts.verify_diagnostics = _bool_value(name, value)
    elif name == "allow-unregistered-dialect":
        opts.allow_unregistered = _bool_value(name, value)
    elif name == "list-passes":
        opts.list_passes = True
    elif name == "load-pass-plugin":
        assert value is not None
        load_pass_plugin(value)
    elif name == "show-dialects":
        opts.show_dialects = True
    elif name in ("help", "h"):
        opts.help = True
    elif name == "version":
        opts.version = True
    # mlir-disable-threading, mlir-print-debuginfo: accepted, no effect here


def load_pass_plugin(path: str) -> None:
    """Import the Python file `path`, whose `@register_pass` classes become passes.

    MLIR's `--load-pass-plugin` loads a shared library; disc-ir's passes are
    Python, so a plugin is a `.py` file (see examples/custom_pass.py). Passes
    named after the flag on the command line may come from it.
    """
    import importlib.util

    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--load-pass-plugin: no such file '{path}'")
    module_name = f"disc_ir_plugin_{abs(hash(str(file.resolve())))}"
    if module_name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise UsageError(f"--load-pass-plugin: '{path}' is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - report any failure of the plugin itself
        del sys.modules[module_name]
        raise UsageError(
            f"--load-pass-plugin: loading '{path}' failed: {type(exc).__name__}: {exc}"
        ) from None


def _print(module: ModuleOp, generic: bool) -> str:
    return module_text(module, generic=generic)


def _pass_class_name(p: ModulePass) -> str:
    return type(p).__name__


@dataclass
class PassTiming:
    name: str
    seconds: float = 0.0


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    opts: Options,
    timings: list[PassTiming],
    err: TextIO,
) -> None:
    """Run `passes` on `module`, verifying after each one when asked."""
    from disc_ir.codegen.shared_lowering import SharingFailed
    from disc_ir.ir.diagnostics import RejectedInput

    verifier = VerifyEach()
    for index, p in enumerate(passes):
        header = f"{_pass_class_name(p)} ({pass_spec_text(p)})"
        if opts.print_before_all:
            err.write(f"// -----// IR Dump Before {header} //----- //\n")
            err.write(_print(module, opts.generic))
        before = _print(module, opts.generic) if opts.print_after_change else None
        start = time.perf_counter()
        try:
            p.apply(ctx, module)
        except SharingFailed:
            raise  # `run` runs the passes again without sharing
        except RejectedInput as exc:
            raise InputRejected(str(exc)) from None
        except (DiagnosticException, VerifyException) as exc:
            raise PassFailed(p.name, str(exc)) from None
        if index < len(timings):
            timings[index].seconds += time.perf_counter() - start
        if opts.verify_each:
            failure = verifier.first_failure(module)
            if failure is not None:
                op_name, message = failure[0], failure[1]
                raise VerifyAfterPass(p.name, op_name, message)
        if opts.print_after_all or (
            opts.print_after_change and _print(module, opts.generic) != before
        ):
            err.write(f"// -----// IR Dump After {header} //----- //\n")
            err.write(_print(module, opts.generic))


class InputRejected(Exception):
    """A pass found something the pipeline does not compile (`RejectedInput`):
    reported as its message alone, as `disc_ir.compile` reports it."""


class PassFailed(Exception):
    def __init__(self, pass_name: str, message: str):
        super().__init__(f"pass '{pass_name}' failed: {message.strip()}")


class VerifyAfterPass(Exception):
    def __init__(self, pass_name: str, op_name: str, message: str):
        super().__init__(f"verification failed after pass '{pass_name}': '{op_name}' op {message}")


def _chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """The input split at `// -----` lines, each with its starting line offset."""
    if not split:
        return [(text, 0)]
    out = []
    pos = 0
    line = 0
    for m in SPLIT_MARKER.finditer(text):
        chunk = text[pos : m.start()]
        out.append((chunk, line))
        line += chunk.count("\n") + text[m.start() : m.end()].count("\n")
        pos = m.end()
    out.append((text[pos:], line))
    return out


def _list_passes(out: TextIO) -> None:
    out.write("Available passes:\n")
    for info in pass_infos():
        out.write(f"  --{info.name}  -  {info.summary}\n")
        for o in info.options:
            default = str(o.default).lower() if isinstance(o.default, bool) else o.default
            desc = f"  {o.help}" if o.help else ""
            out.write(f"      {o.name}=<{o.type_text}> (default: {default}){desc}\n")


def _usage() -> str:
    return (
        "usage: disc-opt [options] [passes] [input.mlir|-]\n"
        "  -split-input-file  -o FILE  -pass-pipeline='builtin.module(...)'\n"
        "  --mlir-print-ir-after-all  --mlir-print-ir-before-all  --mlir-print-op-generic\n"
        "  --mlir-timing  --verify-each[=false]  --allow-unregistered-dialect  --list-passes\n"
        "  -verify-diagnostics  check the input's // expected-error {{...}} comments\n"
        "  --load-pass-plugin=FILE.py   import a Python file of @register_pass passes\n"
        "  -<pass-name>[='opt=v ...'] or --<pass-name>{opt=v ...}: see --list-passes\n"
    )


def _timing_report(timings: list[PassTiming], total: float) -> str:
    lines = [
        "===" + "-" * 73 + "===",
        " " * 28 + "Execution time report",
        "===" + "-" * 73 + "===",
        f"  Total Execution Time: {total:.4f} seconds",
        "",
        "  ----Wall Time----  ----Name----",
    ]
    for t in timings:
        pct = 100.0 * t.seconds / total if total > 0 else 0.0
        lines.append(f"    {t.seconds:.4f} ({pct:5.1f}%)  {t.name}")
    lines.append(f"    {total:.4f} (100.0%)  Total")
    return "\n".join(lines) + "\n"


def run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """disc-opt's main logic; returns the exit code."""
    try:
        opts = parse_args(argv)
    except (UsageError, PipelineError) as exc:
        stderr.write(f"disc-opt: error: {exc}\n")
        return 1
    if opts.help:
        stdout.write(_usage())
        return 0
    if opts.version:
        from importlib.metadata import version

        stdout.write(f"disc-opt (disc-ir {version('disc-ir')})\n")
        return 0
    if opts.list_passes:
        _list_passes(stdout)
        return 0
    if opts.show_dialects:
        from disc_ir.ir.context import dialect_names

        stdout.write("Available Dialects: " + ", ".join(dialect_names()) + "\n")
        return 0
    if len(opts.inputs) > 1:
        stderr.write(f"disc-opt: error: expected one input file, got {len(opts.inputs)}\n")
        return 1
    path = opts.inputs[0] if opts.inputs else "-"
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        stderr.write(f"disc-opt: error: cannot read '{path}': {exc.strerror}\n")
        return 1
    except UnicodeDecodeError as exc:
        stderr.write(_invalid_utf8(path, exc) + "\n")
        return 1
    filename = "<stdin>" if path == "-" else path
    from disc_ir.pipeline import with_sharing_fallback, without_shared_lowering

    if opts.verify_diagnostics:
        return _run_verifying_diagnostics(opts, text, filename, stdout, stderr)
    outputs: list[str] = []
    failed = False
    timings = [PassTiming(f"{_pass_class_name(p)} ({p.name})") for p in opts.passes]
    total_start = time.perf_counter()
    for chunk, line_offset in _chunks(text, opts.split_input_file):

        def attempt(share: bool, chunk: str = chunk, line_offset: int = line_offset) -> str:
            # sharing off: the run again from the parsed input (`with_sharing_fallback`)
            passes = opts.passes if share else without_shared_lowering(opts.passes)
            kept = {id(p) for p in passes}
            times = [t for p, t in zip(opts.passes, timings, strict=True) if id(p) in kept]
            ctx = make_context(opts.allow_unregistered)
            module = parse_module(ctx, chunk, filename, line_offset)
            failure = first_verify_failure(module)
            if failure is not None:
                raise Diagnostic(
                    filename, *_op_location(module, failure[2]), f"'{failure[0]}' op {failure[1]}"
                )
            run_passes(ctx, module, passes, opts, times, stderr)
            return _print(module, opts.generic)

        try:
            outputs.append(with_sharing_fallback(attempt))
        except Diagnostic as diag:
            stderr.write(f"{diag}\n")
            failed = True
        except (VerifyAfterPass, PassFailed, InputRejected) as exc:
            stderr.write(f"{filename}: error: {exc}\n")
            failed = True
        except (VerifyException, DiagnosticException) as exc:
            stderr.write(f"{filename}: error: {exc}\n")
            failed = True
    result = "// -----\n".join(outputs)
    if opts.output == "-":
        stdout.write(result)
    else:
        with open(opts.output, "w", encoding="utf-8") as fh:
            fh.write(result)
    if opts.timing:
        stderr.write(_timing_report(timings, time.perf_counter() - total_start))
    return 1 if failed else 0


def _invalid_utf8(path: str, exc: UnicodeDecodeError) -> str:
    """The diagnostic for input that is not UTF-8, at the first bad byte."""
    before = bytes(exc.object[: exc.start])
    line = before.count(b"\n") + 1
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    filename = "<stdin>" if path == "-" else path
    return (
        f"{filename}:{line}:{column}: error: invalid UTF-8 byte "
        f"0x{exc.object[exc.start]:02x}: the input must be UTF-8 text"
    )


def _chunk_diagnostics(
    opts: Options, chunk: str, filename: str, line_offset: int, stderr: TextIO
) -> tuple[str | None, list[EmittedDiagnostic]]:
    """Parse, verify and run the passes on one chunk, as `run` does, collecting
    its diagnostics instead of printing them: (the printed module or None, them)."""
    ctx = make_context(opts.allow_unregistered)
    timings: list[PassTiming] = []
    module: ModuleOp | None = None
    try:
        module = parse_module(ctx, chunk, filename, line_offset)
        failure = first_verify_failure(module)
        if failure is not None:
            line, column = _op_location(module, failure[2])
            message = f"'{failure[0]}' op {failure[1]}"
            return None, [EmittedDiagnostic("error", filename, line, column, message)]
        run_passes(ctx, module, opts.passes, opts, timings, stderr)
        return _print(module, opts.generic), []
    except Diagnostic as diag:
        return None, [EmittedDiagnostic("error", filename, diag.line, diag.column, diag.message)]
    except VerifyAfterPass as exc:
        line = column = 0
        if module is not None and (failure := first_verify_failure(module)) is not None:
            line, column = _op_location(module, failure[2])
        return None, [EmittedDiagnostic("error", filename, line, column, str(exc))]
    except (PassFailed, VerifyException, DiagnosticException) as exc:
        return None, [EmittedDiagnostic("error", filename, 0, 0, str(exc).strip())]


def _run_verifying_diagnostics(
    opts: Options, text: str, filename: str, stdout: TextIO, stderr: TextIO
) -> int:
    """`-verify-diagnostics`: each chunk's diagnostics must be exactly those its
    `expected-*` comments announce (see `diagnostic_verifier`); 0 when they
    are, else 1 with MLIR's messages on stderr. Chunks that succeed print."""
    source_lines = {filename: text.split("\n")}
    outputs: list[str] = []
    failures: list[str] = []
    for chunk, line_offset in _chunks(text, opts.split_input_file):
        expectations = parse_expectations(chunk, filename, line_offset)
        printed, emitted = _chunk_diagnostics(opts, chunk, filename, line_offset, stderr)
        if printed is not None:
            outputs.append(printed)
        failures.extend(verify_diagnostics(expectations, emitted, source_lines))
    result = "// -----\n".join(outputs)
    if opts.output == "-":
        stdout.write(result)
    else:
        with open(opts.output, "w", encoding="utf-8") as fh:
            fh.write(result)
    for failure in failures:
        stderr.write(f"{failure}\n")
    return 1 if failures else 0


def _op_location(module: ModuleOp, op) -> tuple[int, int]:
    from disc_ir.ir.parser import source_location

    loc = source_location(op)
    return loc if loc is not None else (0, 0)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    config.warn_unknown_switches()
    try:
        code = run(argv, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - an internal error: report, no traceback
        if config.flag("DISC_IR_DEBUG"):
            raise
        sys.stderr.write(
            f"disc-opt: internal error: {type(exc).__name__}: {exc}\n"
            "(set DISC_IR_DEBUG=1 for the Python traceback; please report this)\n"
        )
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
