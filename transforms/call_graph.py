"""Which functions a module's code calls, and which calls the whole block makes together.

A barrier in a device function is met by the whole block only if every thread calls
the function at the same point. `CallGraph` answers that from the module alone:

- a `gpu.func` kernel and a `gpu.launch` body are entered by the whole block;
- a `func.func` outside any `gpu.module` that nothing in the module references is an
  entry point (IREE's workgroup-level function, run by every thread of a workgroup);
- any other function is *reached uniformly* when every reference to it is a
  `func.call` that is not under thread-dependent control flow in its caller
  (`kernel_ir.is_thread_dependent_control` for structured ops; for a call in a block of
  an unstructured body, `uniform_block`: every branch of that CFG is on a uniform
  condition, so no thread-dependent `cf.cond_br` or early return leads to it), and every
  caller is reached uniformly in turn. A function referenced any other way (`func.constant`, an unknown op), called
  recursively, or that nothing in the module calls (a device function whose caller
  the pass cannot see) is not.

`thread_dependence` solves `kernel_ir.ThreadDependence` for a code unit with the
right entry arguments: a function's argument is uniform only if every call passes a
uniform value (a caller may pass its thread id). Every answer is computed once.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.transforms.block_level_code import enclosing_code
from gpu_alloc.transforms.kernel_ir import (
    Kernel,
    ThreadDependence,
    enclosing_ops,
    is_thread_dependent_control,
    kernel_name,
    walk_ops,
)
from xdsl.dialects import cf, func, gpu
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

Function = func.FuncOp | gpu.FuncOp


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def _symbol_refs(op: Operation) -> Iterator[SymbolRefAttr]:
    for value in (*op.properties.values(), *op.attributes.values()):
        values: tuple[Attribute, ...] = value.data if isinstance(value, ArrayAttr) else (value,)
        yield from (v for v in values if isinstance(v, SymbolRefAttr))


class CallGraph:
    """The calls of one module (see the module docstring); built in one walk."""

    def __init__(self, module: ModuleOp):
        self._tables: dict[Operation, dict[str, Operation]] = {}
        for op in walk_ops(module):
            if op.has_trait(SymbolTable) and op.regions and op.regions[0].blocks:
                names = ((_symbol_name(o), o) for o in op.regions[0].blocks[0].ops)
                self._tables[op] = {name: o for name, o in names if name is not None}
        self.calls: dict[Operation, list[func.CallOp]] = {}
        """Per function, the `func.call`s of it, in program order."""
        self.calls_in: dict[Operation, list[tuple[func.CallOp, Operation]]] = {}
        """Per code (function or launch), the calls it makes and their callees."""
        self._other_references: dict[Operation, Operation] = {}
        for op in walk_ops(module):
            if isinstance(op, func.CallOp):
                callee = self.resolve(op, op.callee)
                if isinstance(callee, Function):
                    self.calls.setdefault(callee, []).append(op)
                    code = enclosing_code(op)
                    if code is not None:
                        self.calls_in.setdefault(code, []).append((op, callee))
            elif not isinstance(op, gpu.LaunchFuncOp):
                for ref in _symbol_refs(op):
                    target = self.resolve(op, ref)
                    if isinstance(target, Function):
                        self._other_references.setdefault(target, op)
        self._why_not: dict[Operation, str | None] = {}
        self._in_progress: set[Operation] = set()
        self._dependence: dict[Operation, ThreadDependence] = {}

    def resolve(self, op: Operation, ref: SymbolRefAttr) -> Operation | None:
        """The op `ref` names, looked up from `op`'s nearest symbol table as MLIR does."""
        table = op.parent_op()
        while table is not None and table not in self._tables:
            table = table.parent_op()
        found: Operation | None = None
        for k, name in enumerate(
            [ref.root_reference.data, *(r.data for r in ref.nested_references)]
        ):
            if table is None or (k > 0 and table not in self._tables):
                return None
            found = self._tables[table].get(name)
            table = found
        return found

    def callees(self, code: Operation) -> list[Operation]:
        """The functions `code` calls, directly or through other functions, each once."""
        seen: list[Operation] = []
        work = [callee for _, callee in self.calls_in.get(code, [])]
        while work:
            callee = work.pop(0)
            if callee not in seen and callee is not code:
                seen.append(callee)
                work += [c for _, c in self.calls_in.get(callee, [])]
        return seen

    def call_is_uniform(self, call: func.CallOp) -> bool:
        """Whether every thread of the block makes `call` together, as far as its caller
        goes (not under thread-dependent control flow)."""
        code = enclosing_code(call)
        if code is None:
            return False
        depends = self.thread_dependence(code)
        if any(is_thread_dependent_control(p, depends) for p in enclosing_ops(call, code)):
            return False
        return uniform_block(call, code, depends)

    def why_not_uniform(self, code: Operation) -> str | None:
        """None if the whole block enters `code` together, else the reason it may not."""
        if is_kernel(code) or isinstance(code, gpu.LaunchOp):
            return None
        if code in self._why_not:
            return self._why_not[code]
        if code in self._in_progress:
            return f"'{kernel_name(code)}' is called recursively"
        self._in_progress.add(code)
        try:
            reason = self._reason(code)
        finally:
            self._in_progress.discard(code)
        self._why_not[code] = reason
        return reason

    def _reason(self, code: Operation) -> str | None:
        name = kernel_name(code)
        if (other := self._other_references.get(code)) is not None:
            return f"'{name}' is referenced by '{other.name}', a caller the pass cannot follow"
        calls = self.calls.get(code, [])
        if not calls:
            top_level = not any(isinstance(p, gpu.ModuleOp) for p in _ancestors(code))
            if isinstance(code, func.FuncOp) and top_level:
                return None  # an entry point, run by the whole workgroup
            return f"nothing in the module calls '{name}', so its callers are unknown"
        for call in calls:
            caller = enclosing_code(call)
            assert caller is not None
            if not self.call_is_uniform(call):
                return (
                    f"'{name}' is called under thread-dependent control flow "
                    f"in '{kernel_name(caller)}'"
                )
            if (reason := self.why_not_uniform(caller)) is not None:
                return f"'{name}' is called from '{kernel_name(caller)}', and {reason}"
        return None

    def thread_dependence(self, code: Operation) -> ThreadDependence:
        """`ThreadDependence` of `code`, its entry arguments seeded from its calls."""
        if code not in self._dependence:
            assert isinstance(code, Kernel)
            self._dependence[code] = ThreadDependence(code, self._dependent_arguments(code))
        return self._dependence[code]

    def _dependent_arguments(self, code: Operation) -> list[int]:
        if not isinstance(code, func.FuncOp) or not code.body.blocks:
            return []
        count = len(code.body.blocks[0].args)
        calls = self.calls.get(code, [])
        if not calls:
            return [] if self.why_not_uniform(code) is None else list(range(count))
        if self.why_not_uniform(code) is not None:
            return list(range(count))
        dependent: list[int] = []
        for k in range(count):
            for call in calls:
                caller = enclosing_code(call)
                assert caller is not None
                if k >= len(call.arguments) or self.thread_dependence(caller)(call.arguments[k]):
                    dependent.append(k)
                    break
        return dependent


def uniform_block(op: Operation, code: Operation, depends: ThreadDependence) -> bool:
    """Whether every thread of the block that enters `code` reaches the block holding
    `op` (at each level of nesting up to `code`): it is its region's entry block, or
    every branch of that region's CFG is on a block-uniform condition (`cf.br`, a
    `cf.cond_br` or `cf.switch` whose condition or flag does not depend on the thread),
    and no block of it leaves early (a `return` outside the last block ends the code for
    some paths only when a branch before it is thread-dependent, which is excluded)."""
    current: Operation | None = op
    while current is not None and current is not code:
        region = current.parent_region()
        block = current.parent_block()
        if region is None or block is None:
            return False
        if len(region.blocks) > 1 and block is not region.blocks[0]:
            for other in region.blocks:
                terminator = other.last_op
                if terminator is None or not terminator.successors:
                    continue
                if isinstance(terminator, cf.BranchOp):
                    continue
                if isinstance(terminator, cf.ConditionalBranchOp):
                    if depends(terminator.cond):
                        return False
                elif isinstance(terminator, cf.SwitchOp):
                    if depends(terminator.flag):
                        return False
                else:
                    return False  # a branch the model does not know
        current = region.parent_op()
    return True


def _ancestors(op: Operation) -> Iterator[Operation]:
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()
