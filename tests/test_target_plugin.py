"""A vendor is one plugin (issue 28): a test-only target added to `TARGETS` — its
description, its `-t` driver and its tools' check, nothing else — is listed by every
registry that lists targets (the xDSL universe's targets, the tool checks, the chips
`resolve` and the passes know, the coverage contract's columns) and read from a
module's target attribute, with no other edit."""

from __future__ import annotations

import dataclasses
from typing import IO

import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering import tool_checks
from gpu_alloc.lowering.coverage import Row
from gpu_alloc.syntax.mlir_attributes import opaque_attribute_type
from gpu_alloc.targets import TARGETS, Chip, Device, TargetDescription, resolve
from gpu_alloc.transforms.module_target import declared_target, device_at
from gpu_alloc.universe import target_entries
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Region
from xdsl.utils.target import Target

TOY_CHIP = Chip("toy_1", 12 * 1024, 16, None, "Toy ISA 1")


@dataclasses.dataclass(frozen=True)
class ToyTarget(Target):
    """The test-only target's `-t toy` driver."""

    name = "toy"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write("toy\n")


def toy_check(text: str, device: Device, isa_version: int) -> dict[str, int]:
    """The test-only target's tools: every kernel uses as many bytes as the text is long."""
    return {"k": len(text)}


TOY = dataclasses.replace(
    TARGETS["amdgcn"],
    name="toy",
    vendor="Toy",
    chips=(TOY_CHIP,),
    default_chip="toy_1",
    driver=f"{__name__}:ToyTarget",
    tool_check=f"{__name__}:toy_check",
    mlir_target_attributes=("rocdl.toy_target",),
    mlir_default_chip="toy_1",
)


@pytest.fixture
def toy() -> TargetDescription:
    TARGETS["toy"] = TOY
    try:
        yield TOY
    finally:
        del TARGETS["toy"]


def test_the_universe_lists_the_toy_target_and_loads_its_driver(toy: TargetDescription):
    entries = target_entries()
    assert set(entries) == {"ptx", "amdgcn", "spirv", "opencl", "toy"}
    assert entries["toy"]() is ToyTarget


def test_the_tool_checks_dispatch_to_the_toy_targets_tools(toy: TargetDescription):
    assert set(tool_checks.tool_checks()) == {"ptx", "amdgcn", "spirv", "opencl", "toy"}
    assert tool_checks.shared_bytes_by_tool("12345", Device(toy, TOY_CHIP), 0) == {"k": 5}


def test_a_pass_option_and_resolve_know_the_toy_chip(toy: TargetDescription):
    assert resolve(chip="toy_1") == Device(toy, TOY_CHIP)
    module = ModuleOp([])
    assert device_at(module, "fuse-gpu-allocs", chip="toy_1").shared_bytes_per_block == 12288


def test_the_coverage_contract_reads_the_toy_target_refusals(toy: TargetDescription):
    row = Row("arith.addf", "elementwise", ("bf16", "f32"))
    # Its description's refused types apply (the amdgcn ones it was copied from: none)...
    assert row.refusal("toy/llvmlite", "f32") is None
    refusing = dataclasses.replace(TOY, refused_types={"bf16": "the toy has no bf16"})
    TARGETS["toy"] = refusing
    assert row.refusal("toy/llvmlite", "bf16") == "the toy has no bf16"


def test_a_gpu_module_attribute_names_the_toy_target(toy: TargetDescription):
    ctx = Context()
    kind = opaque_attribute_type(ctx, "rocdl.toy_target", is_type=False)
    assert kind is not None
    gpu_module = gpu.ModuleOp(StringAttr("m"), Region(Block()))
    gpu_module.attributes["targets"] = ArrayAttr([kind(StringAttr(""), IntAttr(0))])
    declared = declared_target(gpu_module)
    assert declared is not None and declared.device == Device(toy, TOY_CHIP)
    with pytest.raises(GpuAllocPassError, match=r"is for toy toy_1 .* but x\{chip=sm_90\}"):
        device_at(gpu_module, "x", chip="sm_90")
