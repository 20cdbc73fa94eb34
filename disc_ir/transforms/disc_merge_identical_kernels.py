"""`disc-merge-identical-kernels`: keep one copy of structurally identical CPU kernels.

A disc-ir addition: BladeDISC has no such pass (it lowers every outlined
kernel). Runs right after `disc-outline-cpu-kernel` in the CPU pipeline. The
kernels of repeated subgraphs (the layers of a transformer) are identical
but for their names; merging them here saves the later passes, the
translation to LLVM IR and the JIT from redoing the same work (the LLVM
backend's `identical_functions` only catches copies after `disc-to-llvm`).

Contract: among the module's top-level `func.func`s marked
`disc_cpu_kernel_func`, two are identical when their fingerprints are equal.
The fingerprint of a kernel is its signature and attributes other than
`sym_name`, then every op of its body in order: name, operands numbered in
definition order (block arguments included, SSA names ignored), result
types, properties, attributes, successors and the nested regions' blocks,
structurally. A symbol reference to the kernel itself is abstracted; any
other symbol reference is compared by name, so the symbols referenced
(globals, functions) are the same ones. The first kernel of each set of
identical ones (in module order) is kept; every `SymbolRefAttr` in the
module naming a duplicate (the `callee` of `disc_ral.cpu_launch`, also
inside array / dictionary attributes) is rewritten to the kept kernel, and
the duplicates are erased. When a merge makes kernels that reference the
merged ones identical, merging repeats for those.

Kernels are named only by `SymbolRefAttr`s at this point: `disc-to-llvm`
creates the `ral_kernel_launch` name strings (`_cpu_kernel_<name>`) later,
from the rewritten `callee`. String attributes are not rewritten (a
kernel's name equals its fusion's `disc.fusion.name`, which is no reference).

Fingerprints are hashed: the cost is linear in the size of the module, with
full comparison only between kernels whose fingerprints hash alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, SymbolRefAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from disc_ir.codegen.loop_utils import CPU_KERNEL_FUNC_ATTR
from disc_ir.ir.structural_key import StructuralKey, append_structure, identical_symbols
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: stands for the kernel's own name in its fingerprint
_SELF = ("@self",)


def _mentions(attr: Attribute, names: set[str]) -> bool:
    """Whether `attr` is or holds (in arrays / dictionaries) a symbol reference to `names`."""
    cls = attr.__class__  # exact type tests: isinstance on xDSL attributes is slow
    if cls is SymbolRefAttr:
        return attr.root_reference.data in names  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
    if cls is ArrayAttr:
        return any(_mentions(a, names) for a in attr.data)  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
    if cls is DictionaryAttr:
        return any(_mentions(a, names) for a in attr.data.values())  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
    return False


def _renamed(attr: Attribute, rename: dict[str, str]) -> Attribute:
    """`attr` with its symbol references to `rename`'s keys renamed (itself when none)."""
    cls = attr.__class__
    if cls is SymbolRefAttr:
        root = attr.root_reference.data  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
        if root not in rename:
            return attr
        return SymbolRefAttr(rename[root], attr.nested_references)  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
    if cls is ArrayAttr:
        items = [_renamed(a, rename) for a in attr.data]  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
        if all(a is b for a, b in zip(items, attr.data, strict=True)):  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
            return attr
        return ArrayAttr(items)
    if cls is DictionaryAttr:
        entries = {k: _renamed(a, rename) for k, a in attr.data.items()}  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
        if all(entries[k] is a for k, a in attr.data.items()):  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
            return attr
        return DictionaryAttr(entries)
    return attr


def fingerprint(kernel: func.FuncOp, refs: set[str]) -> StructuralKey | None:
    """The structure of `kernel` without its name and SSA names (see the module docs).

    The names of the other symbols it references are added to `refs`. None
    when some attribute is not hashable (such a kernel is never merged).
    """
    own = kernel.sym_name.data

    def norm(attr: Attribute) -> Any:
        cls = attr.__class__
        if cls is SymbolRefAttr:
            root = attr.root_reference.data  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
            if root == own:
                return (_SELF, attr.nested_references)  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
            refs.add(root)
            return attr
        if cls is ArrayAttr:
            return ("[]", tuple(norm(a) for a in attr.data))  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
        if cls is DictionaryAttr:
            return ("{}", tuple(sorted((k, norm(a)) for k, a in attr.data.items())))  # type: ignore[attr-defined]  # exact class test above (`cls is ...`)
        return attr

    items: list[Any] = [
        tuple(sorted((k, norm(v)) for k, v in kernel.properties.items() if k != "sym_name")),
        tuple(sorted((k, norm(v)) for k, v in kernel.attributes.items() if k != "sym_name")),
    ]
    # a value not defined in the kernel (none in valid IR: functions are
    # isolated from above) is its own identity
    append_structure(items, [kernel.body], norm, lambda v: v)
    try:
        return StructuralKey(tuple(items))
    except TypeError:
        return None


def merge_identical_kernels(module: builtin.ModuleOp) -> dict[str, str]:
    """Merge the identical kernels of `module`; returns erased name -> kept name."""
    kernels = [
        op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp) and CPU_KERNEL_FUNC_ATTR in op.attributes and op.body.blocks
    ]

    def rewrite(merged: dict[str, str], refs: dict[str, set[str]]) -> None:
        # references live outside the kernels (the launches) or in kernels that
        # reference other symbols (collected by their fingerprints)
        skip = {k for k in kernels if not refs[k.sym_name.data] & merged.keys()}
        _rewrite_references(module, merged, skip)

    rename = identical_symbols(kernels, lambda k, _renamed, refs: fingerprint(k, refs), rewrite)
    for kernel in kernels:
        if kernel.sym_name.data in rename:
            kernel.detach()
            kernel.erase()
    return rename


def _rewrite_references(
    module: builtin.ModuleOp, rename: dict[str, str], skip: set[func.FuncOp]
) -> None:
    """Rename the symbol references to `rename`'s keys in `module`, not looking into `skip`."""
    names = set(rename)
    for top in module.body.block.ops:
        if top in skip:
            continue
        for op in preorder_ops(top):
            for attrs in (op.attributes, op.properties):
                stale = [k for k, a in attrs.items() if k != "sym_name" and _mentions(a, names)]
                for key in stale:
                    attrs[key] = _renamed(attrs[key], rename)


@register_pass
@dataclass(frozen=True)
class DiscMergeIdenticalKernelsPass(ModulePass):
    """Merge structurally identical outlined CPU kernels into one (a disc-ir addition)."""

    name = "disc-merge-identical-kernels"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        merge_identical_kernels(op)


__all__ = ["DiscMergeIdenticalKernelsPass", "fingerprint", "merge_identical_kernels"]
