"""partition-loops keeps every loop's results and removes its boundary tests.

Independent of the GPU simulator: the loops are run in plain `func.func`s with xDSL's
interpreter, before and after the pass, over random bounds, steps, predicates and
offsets, both as constants and as run-time arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.transforms import PartitionLoopsPass
from hypothesis import given, settings
from hypothesis import strategies as st
from interpret import parse, run
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.ir import Operation, SSAValue

SIGNED = ("slt", "sle", "sgt", "sge")
UNSIGNED = ("ult", "ule", "ugt", "uge")
SIZE = 48


@dataclass(frozen=True)
class Atom:
    predicate: str
    offset: int  # compares iv + offset
    iv_on_left: bool


@dataclass(frozen=True)
class Kernel:
    """One loop `for iv in [lb, ub) step s` whose body stores a code of its tests."""

    atoms: tuple[Atom, Atom]
    combine: str  # arith.andi or arith.ori for the scf.if condition
    constant: frozenset[str]  # which of lb, ub, step, n, m are compile-time constants
    extra: Atom | None = None  # a third test (against n) inside the scf.if's then-branch

    def text(self, values: dict[str, int]) -> str:
        lines: list[str] = []
        names: dict[str, str] = {}
        for name in ("lb", "ub", "step", "n", "m"):
            if name in self.constant:
                lines.append(f"%{name}_c = arith.constant {values[name]} : index")
                names[name] = f"%{name}_c"
            else:
                names[name] = f"%{name}"
        body: list[str] = []
        conds: list[str] = []
        for i, (atom, bound) in enumerate(zip(self.atoms, ("n", "m"), strict=True)):
            x = "%iv"
            if atom.offset:
                body.append(f"%k{i} = arith.constant {atom.offset} : index")
                body.append(f"%x{i} = arith.addi %iv, %k{i} : index")
                x = f"%x{i}"
            lhs, rhs = (x, names[bound]) if atom.iv_on_left else (names[bound], x)
            body.append(f"%a{i} = arith.cmpi {atom.predicate}, {lhs}, {rhs} : index")
            conds.append(f"%a{i}")
        then_branch = ["  %one = arith.constant 1 : i32", "  scf.yield %one : i32"]
        if self.extra is not None:
            x = "%iv"
            if self.extra.offset:
                x = "%x2"
                body.append(f"%k2 = arith.constant {self.extra.offset} : index")
                body.append("%x2 = arith.addi %iv, %k2 : index")
            operands = (x, names["n"]) if self.extra.iv_on_left else (names["n"], x)
            then_branch = [
                f"  %a2 = arith.cmpi {self.extra.predicate}, {operands[0]}, {operands[1]} : index",
                "  %five = arith.constant 5 : i32",
                "  %one = arith.constant 1 : i32",
                "  %e = arith.select %a2, %five, %one : i32",
                "  scf.yield %e : i32",
            ]
        body += [
            f"%both = {self.combine} %a0, %a1 : i1",
            "%v = scf.if %both -> (i32) {",
            *then_branch,
            "} else {",
            "  %two = arith.constant 2 : i32",
            "  scf.yield %two : i32",
            "}",
            "%ten = arith.constant 10 : i32",
            "%zero = arith.constant 0 : i32",
            "%w = arith.select %a1, %ten, %zero : i32",
            "%vw = arith.addi %v, %w : i32",
            "%old = memref.load %out[%iv] : memref<48xi32>",
            "%new = arith.addi %old, %vw : i32",
            "memref.store %new, %out[%iv] : memref<48xi32>",
            "%sum = arith.addi %acc, %vw : i32",
            "scf.yield %sum : i32",
        ]
        indent = "\n      "
        return f"""
func.func @f(%out: memref<48xi32>, %total: memref<1xi32>, %lb: index, %ub: index, %step: index, %n: index, %m: index) {{
  {indent.join(lines)}
  %c0 = arith.constant 0 : index
  %init = arith.constant 0 : i32
  %r = scf.for %iv = {names["lb"]} to {names["ub"]} step {names["step"]} iter_args(%acc = %init) -> (i32) {{
      {indent.join(body)}
  }}
  memref.store %r, %total[%c0] : memref<1xi32>
  func.return
}}
"""


def _uses_iv(value: SSAValue, iv: SSAValue) -> bool:
    owner = value.owner
    return value is iv or (isinstance(owner, arith.AddiOp) and any(v is iv for v in owner.operands))


def _iv_comparisons_left(op: Operation) -> int:
    """How many comparisons still test a loop's iv (or iv + k)."""
    count = 0
    for loop in op.walk():
        if isinstance(loop, scf.ForOp):
            iv = loop.body.block.args[0]
            for inner in loop.body.walk():
                if isinstance(inner, arith.CmpiOp) and any(_uses_iv(v, iv) for v in inner.operands):
                    count += 1
    return count


atoms = st.builds(
    Atom,
    predicate=st.sampled_from(SIGNED + UNSIGNED),
    offset=st.integers(-3, 3),
    iv_on_left=st.booleans(),
)
kernels = st.builds(
    Kernel,
    atoms=st.tuples(atoms, atoms),
    combine=st.sampled_from(("arith.andi", "arith.ori")),
    constant=st.frozensets(st.sampled_from(("lb", "ub", "step", "n", "m"))),
)
kernels_with_a_nested_test = st.builds(
    Kernel,
    atoms=st.tuples(atoms, atoms),
    combine=st.sampled_from(("arith.andi", "arith.ori")),
    constant=st.frozensets(st.sampled_from(("lb", "ub", "step", "n", "m"))),
    extra=atoms,
)
bounds = st.fixed_dictionaries(
    {
        "lb": st.integers(0, 20),
        "ub": st.integers(0, SIZE),
        "step": st.integers(1, 4),
        "n": st.integers(-4, SIZE + 4),
        "m": st.integers(-4, SIZE + 4),
    }
)


@settings(max_examples=80, deadline=None)
@given(kernels | kernels_with_a_nested_test, bounds)
def test_partitioned_loop_computes_the_same(kernel: Kernel, values: dict[str, int]):
    """A third split point (the nested test) is not folded, but must stay correct."""
    text = kernel.text(values)
    args = [values[k] for k in ("lb", "ub", "step", "n", "m")]
    # iv + offset must stay a valid index of %out: only the bounds' own iterations run.
    before = run(parse(text), "f", [SIZE, 1], args)
    module = parse(text)
    PartitionLoopsPass().apply(Context(), module)
    module.verify()
    assert run(module, "f", [SIZE, 1], args) == before


@settings(max_examples=40, deadline=None)
@given(kernels, bounds)
def test_partitioned_loops_have_no_boundary_test(kernel: Kernel, values: dict[str, int]):
    module = parse(kernel.text(values))
    # Unsigned tests are only folded when iv + offset is known non-negative.
    foldable = all(
        a.predicate in SIGNED or ("lb" in kernel.constant and a.offset >= 0) for a in kernel.atoms
    )
    PartitionLoopsPass().apply(Context(), module)
    if foldable:
        assert _iv_comparisons_left(module) == 0


def test_unsigned_test_with_a_dynamic_lower_bound_is_left_alone():
    kernel = Kernel((Atom("ult", 0, True), Atom("ult", 0, True)), "arith.andi", frozenset())
    module = parse(kernel.text({}))
    PartitionLoopsPass().apply(Context(), module)
    assert sum(isinstance(op, scf.ForOp) for op in module.walk()) == 1
    assert _iv_comparisons_left(module) == 2
