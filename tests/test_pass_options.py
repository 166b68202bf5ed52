"""Pass options as the user types them: `--help` lists each with its meaning, and a mistake is
worded in kebab-case with the closest names (issue 23 item 4)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from gpu_alloc.tools.pass_options import pipeline_problem
from gpu_alloc.universe import ALL_PASSES

OPT = Path(sys.executable).parent / "gpu-alloc-opt"


def test_help_lists_every_option_of_every_pass_with_its_meaning():
    out = subprocess.run([str(OPT), "--help"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    for name, factory in ALL_PASSES.items():
        start = next(i for i, line in enumerate(lines) if line.startswith(f"  {name}: "))
        listed = []
        for line in lines[start + 1 :]:
            if not line.startswith("      "):
                break
            listed.append(line.strip())
        fields = [f.name.replace("_", "-") for f in dataclasses.fields(factory()) if f.init]
        assert [entry.split("=")[0] for entry in listed] == fields, name
        for entry in listed:
            meaning = entry.split("): ", 1)[1]
            assert len(meaning) > 10, entry  # a docstring under the field, not nothing
    assert "      max-shared-bytes=none (an integer): Shared bytes a kernel may use" in out
    assert '      chip="" (a string): The chip to fuse for' in out


def test_pipeline_problems_use_the_users_spelling():
    passes = ALL_PASSES
    assert pipeline_problem("fuse-gpu-allocs{alignment=32},flatten-aliases", passes) is None
    assert pipeline_problem("fuse-gpu-allocs{time-limit=2}", passes) is None  # int for float
    assert pipeline_problem("flaten-aliases", passes) == (
        "unknown pass 'flaten-aliases' (did you mean 'flatten-aliases'?)"
    )
    assert pipeline_problem("no-such-thing", passes) == "unknown pass 'no-such-thing'"
    assert pipeline_problem("stripe-lane-allocs{warp_sise=16}", passes) == (
        "pass 'stripe-lane-allocs' has no option 'warp-sise' (did you mean 'warp-size'?) "
        "(its options: chip, warp-size)"
    )
    assert pipeline_problem("fuse-gpu-allocs{report=yes}", passes) == (
        "option 'report' of pass 'fuse-gpu-allocs' needs true or false, got 'yes'"
    )
    assert pipeline_problem("fuse-gpu-allocs{budget=1.5}", passes) == (
        "option 'budget' of pass 'fuse-gpu-allocs' needs an integer, got '1.5'"
    )
    assert pipeline_problem("fuse-gpu-allocs{", passes) is None  # syntax: xDSL points at it


def test_an_option_given_twice_is_refused_wherever_a_pipeline_is_parsed():
    """`{chip=sm_90 chip=sm_80}` was silently the last one (xDSL keeps a dict): the parser
    refuses the second (in either spelling) at its column, and the driver words it."""
    import pytest
    from gpu_alloc.xdsl_fixes import RepeatedPassOption
    from xdsl.passes import PassPipeline

    for pipeline, column in [
        ("fuse-gpu-allocs{chip=sm_90 chip=sm_80}", 28),
        ("flatten-aliases,fuse-gpu-allocs{max-shared-bytes=1 max_shared_bytes=2}", 52),
    ]:
        with pytest.raises(RepeatedPassOption) as error:
            PassPipeline.parse_spec(ALL_PASSES, pipeline)
        assert f"pass-pipeline:1:{column}" in str(error.value)
        assert error.value.pass_name == "fuse-gpu-allocs"
        assert pipeline_problem(pipeline, ALL_PASSES) == (
            f"option '{error.value.option}' of pass 'fuse-gpu-allocs' is given twice"
        )
    # The same option in two passes is fine.
    spec = "fuse-gpu-allocs{report=true chip=sm_90},fuse-gpu-allocs{chip=sm_80 report=false}"
    assert pipeline_problem(spec, ALL_PASSES) is None
    assert len(PassPipeline.parse_spec(ALL_PASSES, spec).passes) == 2
