# lit configuration of a project that uses gpu_alloc: the two lines below are all it takes.
# ruff: noqa: F821 (lit defines `config`)
import os

import lit.formats
from gpu_alloc.testing import configure_lit

config.name = "downstream"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.join(os.path.dirname(__file__), "tests")

configure_lit(config)
