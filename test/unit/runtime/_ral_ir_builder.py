"""Builds LLVM IR text for the runtime tests: functions that call disc_ral_call the way
BladeDISC's disc-to-llvm lowering does (one stack struct for operands and results,
an array of field pointers, memref operands spread over 3 + 2N fields)."""

from __future__ import annotations

from dataclasses import dataclass, field


def memref_type(rank: int) -> str:
    if rank == 0:
        return "{ ptr, ptr, i64 }"
    return f"{{ ptr, ptr, i64, [{rank} x i64], [{rank} x i64] }}"


@dataclass
class Func:
    """A function body under construction; values are LLVM IR names."""

    name: str
    params: str
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    strings: dict[str, str] = field(default_factory=dict)

    def tmp(self) -> str:
        self.counter += 1
        return f"%t{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def op(self, text: str) -> str:
        value = self.tmp()
        self.emit(f"{value} = {text}")
        return value

    def string(self, module: Module, text: str) -> str:
        return module.string(text)

    def memref_fields(self, value: str, rank: int) -> list[tuple[str, str]]:
        """(type, value) of each descriptor field of a memref value."""
        ty = memref_type(rank)
        fields = [
            ("ptr", self.op(f"extractvalue {ty} {value}, 0")),
            ("ptr", self.op(f"extractvalue {ty} {value}, 1")),
            ("i64", self.op(f"extractvalue {ty} {value}, 2")),
        ]
        for part in (3, 4):
            for i in range(rank):
                fields.append(("i64", self.op(f"extractvalue {ty} {value}, {part}, {i}")))
        return fields

    def make_memref(self, data: str, sizes: list[str], strides: list[str]) -> str:
        """A memref value over ``data`` with the given i64 sizes/strides (values or constants)."""
        rank = len(sizes)
        ty = memref_type(rank)
        value = "undef"
        for index, item in [("0", data), ("1", data)]:
            value = self.op(f"insertvalue {ty} {value}, ptr {item}, {index}")
        value = self.op(f"insertvalue {ty} {value}, i64 0, 2")
        for i, s in enumerate(sizes):
            value = self.op(f"insertvalue {ty} {value}, i64 {s}, 3, {i}")
        for i, s in enumerate(strides):
            value = self.op(f"insertvalue {ty} {value}, i64 {s}, 4, {i}")
        return value

    def ral_call(
        self,
        module: Module,
        ctx: str,
        name: str,
        operands: list[tuple[str, str]],
        result_type: str | None = None,
    ) -> str | None:
        """Emits a disc_ral_call of ``name`` with flattened ``operands`` [(type, value)]."""
        types = [t for t, _ in operands] + ([result_type] if result_type else [])
        struct = "{ " + ", ".join(types) + " }"
        storage = self.op(f"alloca {struct}")
        array = self.op(f"alloca [{len(types)} x ptr]")
        result_ptr = None
        for i, ty in enumerate(types):
            field_ptr = self.op(f"getelementptr {struct}, ptr {storage}, i32 0, i32 {i}")
            if i < len(operands):
                self.emit(f"store {ty} {operands[i][1]}, ptr {field_ptr}")
            else:
                result_ptr = field_ptr
            slot = self.op(f"getelementptr [{len(types)} x ptr], ptr {array}, i32 0, i32 {i}")
            self.emit(f"store ptr {field_ptr}, ptr {slot}")
        name_ptr = module.string(name)
        self.emit(f"call void @disc_ral_call(ptr {ctx}, ptr {name_ptr}, ptr {array})")
        if result_type is None:
            return None
        return self.op(f"load {result_type}, ptr {result_ptr}")

    def text(self) -> str:
        body = "\n".join(self.lines)
        return f"define void @{self.name}({self.params}) {{\nentry:\n{body}\n  ret void\n}}\n"


@dataclass
class Module:
    """A module: string constants, extra raw functions and built functions."""

    strings: dict[str, str] = field(default_factory=dict)
    raw: list[str] = field(default_factory=list)
    funcs: list[Func] = field(default_factory=list)

    def string(self, text: str) -> str:
        if text not in self.strings:
            self.strings[text] = f"@str{len(self.strings)}"
        return self.strings[text]

    def func(self, name: str, params: str) -> Func:
        f = Func(name, params)
        self.funcs.append(f)
        return f

    def text(self) -> str:
        lines = ["declare void @disc_ral_call(ptr, ptr, ptr)", ""]
        for text, sym in self.strings.items():
            lines.append(
                f'{sym} = private unnamed_addr constant [{len(text) + 1} x i8] c"{text}\\00"'
            )
        lines.append("")
        lines.extend(self.raw)
        lines.extend(f.text() for f in self.funcs)
        return "\n".join(lines)
