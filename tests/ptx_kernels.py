"""One small kernel per row and element type of the coverage contract
(`gpu_alloc.lowering.coverage.COVERAGE`), for the coverage tests of every target."""

from __future__ import annotations

from gpu_alloc.lowering.coverage import INDEX_BINARY, Row
from lowering_support import make_context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

_GPU_MODULE = """  "gpu.module"() <{{sym_name = "{name}"}}> ({{
{globals}    "gpu.func"() <{{function_type = (memref<64x{T}, 1>, memref<64x{T}, 1>, memref<64x{T}, 1>, memref<64x{R}, 1>) -> (), kernel}}> ({{
    ^bb0(%a: memref<64x{T}, 1>, %b: memref<64x{T}, 1>, %c: memref<64x{T}, 1>, %out: memref<64x{R}, 1>):
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %x = memref.load %a[%t] : memref<64x{T}, 1>
      %y = memref.load %b[%t] : memref<64x{T}, 1>
      %z = memref.load %c[%t] : memref<64x{T}, 1>
{body}
      memref.store %r, %out[%t] : memref<64x{R}, 1>
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
{functions}  }}) : () -> ()
"""

_FLOATS = ("f16", "bf16", "f32", "f64")

GENERIC_ONLY = frozenset({"arith.remf", "arith.index_castui"})
"""Ops the simulator and MLIR know but xDSL 0.75 does not register: written in the
generic form and parsed with unregistered ops allowed."""

_SPECIAL: dict[str, str] = {
    "vector.load": """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %r = vector.extract %v[1] : {T} from vector<4x{T}>""",
    "vector.store": """      %v = vector.broadcast %x : {T} to vector<4x{T}>
      vector.store %v, %b[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %r = arith.addi %x, %x : {T}""",
    "vector.broadcast": """      %v = vector.broadcast %x : {T} to vector<4x{T}>
      %r = vector.extract %v[%t] : {T} from vector<4x{T}>""",
    "vector.extract": """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %r = vector.extract %v[3] : {T} from vector<4x{T}>""",
    "vector.insert": """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %w = vector.insert %y, %v[2] : {T} into vector<4x{T}>
      vector.store %w, %b[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %r = vector.extract %w[0] : {T} from vector<4x{T}>""",
    "vector.fma": """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %w = vector.fma %v, %v, %v : vector<4x{T}>
      %r = vector.extract %w[0] : {T} from vector<4x{T}>""",
    "vector.reduction": """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %r = vector.reduction <{KIND}>, %v : vector<4x{T}> into {T}""",
    "memref.load": "      %r = memref.load %a[%c1] : memref<64x{T}, 1>",
    "memref.store": """      memref.store %x, %b[%c1] : memref<64x{T}, 1>
      %r = memref.load %c[%c1] : memref<64x{T}, 1>""",
    "memref.alloca": """      %p = memref.alloca() : memref<8x{T}, 5>
      memref.store %x, %p[%c1] : memref<8x{T}, 5>
      %r = memref.load %p[%c1] : memref<8x{T}, 5>""",
    "memref.view": """      %bytes = memref.alloca() : memref<256xi8, 5>
      %v = memref.view %bytes[%c32][] : memref<256xi8, 5> to memref<8x{T}, 5>
      memref.store %x, %v[%c1] : memref<8x{T}, 5>
      %r = memref.load %v[%c1] : memref<8x{T}, 5>""",
    "memref.subview": """      %s = memref.subview %a[%c4] [8] [2] : memref<64x{T}, 1> to memref<8x{T}, strided<[2], offset: ?>, 1>
      %r = memref.load %s[%c1] : memref<8x{T}, strided<[2], offset: ?>, 1>""",
    "memref.cast": """      %s = "memref.cast"(%a) : (memref<64x{T}, 1>) -> memref<?x{T}, 1>
      %r = memref.load %s[%c1] : memref<?x{T}, 1>""",
    "memref.reinterpret_cast": """      %s = memref.reinterpret_cast %a to offset: [4], sizes: [8, 4], strides: [4, 1] : memref<64x{T}, 1> to memref<8x4x{T}, strided<[4, 1], offset: 4>, 1>
      %r = memref.load %s[%c1, %c1] : memref<8x4x{T}, strided<[4, 1], offset: 4>, 1>""",
    "memref.dim": """      %s = "memref.cast"(%a) : (memref<64x{T}, 1>) -> memref<?x{T}, 1>
      %n = memref.dim %s, %c0 : memref<?x{T}, 1>
      %i = arith.subi %n, %c1 : index
      %r = memref.load %s[%i] : memref<?x{T}, 1>""",
    "memref.copy": """      "memref.copy"(%a, %b) : (memref<64x{T}, 1>, memref<64x{T}, 1>) -> ()
      %r = memref.load %b[%c1] : memref<64x{T}, 1>""",
    "memref.get_global": """      %g = memref.get_global @tile : memref<64x{T}, 3>
      memref.store %x, %g[%t] : memref<64x{T}, 3>
      "gpu.barrier"() : () -> ()
      %r = memref.load %g[%c1] : memref<64x{T}, 3>""",
    "memref.memory_space_cast": """      %s = "memref.memory_space_cast"(%a) : (memref<64x{T}, 1>) -> memref<64x{T}, 1>
      %r = memref.load %s[%c1] : memref<64x{T}, 1>""",
    "memref.dealloc": """      %p = memref.alloca() : memref<8x{T}, 5>
      memref.store %x, %p[%c1] : memref<8x{T}, 5>
      %r = memref.load %p[%c1] : memref<8x{T}, 5>
      memref.dealloc %p : memref<8x{T}, 5>""",
    "memref.atomic_rmw": """      %r = "memref.atomic_rmw"(%x, %b, %c1) <{kind = {KIND} : i64}> : ({T}, memref<64x{T}, 1>, index) -> {T}""",
    "memref.alloc": """      %p = memref.alloc() : memref<8x{T}, 1>
      memref.store %x, %p[%c1] : memref<8x{T}, 1>
      %r = memref.load %p[%c1] : memref<8x{T}, 1>""",
    "gpu.dynamic_shared_memory": """      %d = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %s = "memref.memory_space_cast"(%d) : (memref<?xi8, #gpu.address_space<workgroup>>) -> memref<?xi8, 3 : i32>
      %v = memref.view %s[%c0][] : memref<?xi8, 3 : i32> to memref<64x{T}, 3 : i32>
      memref.store %x, %v[%t] : memref<64x{T}, 3 : i32>
      "gpu.barrier"() : () -> ()
      %r = memref.load %v[%c1] : memref<64x{T}, 3 : i32>""",
}

_ID_BODY = """      %i = "{OP}"() <{dimension = #gpu<dim x>}> : () -> index
      %r = arith.addi %i, %x : index"""

for _name in ("gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim", "gpu.global_id"):
    _SPECIAL[_name] = _ID_BODY.replace("{OP}", _name)
_SPECIAL["gpu.lane_id"] = """      %i = "gpu.lane_id"() : () -> index
      %r = arith.addi %i, %x : index"""
_SPECIAL["gpu.subgroup_size"] = """      %i = "gpu.subgroup_size"() : () -> index
      %r = arith.addi %i, %x : index"""
_SPECIAL["gpu.barrier"] = """      memref.store %x, %b[%t] : memref<64x{T}, 1>
      "gpu.barrier"() : () -> ()
      %r = memref.load %b[%c1] : memref<64x{T}, 1>"""
_SPECIAL["gpu.shuffle"] = """      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %s, %ok = "gpu.shuffle"(%x, %c1_i32, %c32_i32) <{mode = #gpu<shuffle_mode xor>}> : ({T}, i32, i32) -> ({T}, i1)
      %r = arith.select %ok, %s, %x : {T}"""
_SPECIAL["gpu.printf"] = """      "gpu.printf"(%x) <{format = "x = %d"}> : ({T}) -> ()
      %r = arith.addi %x, %y : {T}"""
_SPECIAL["gpu.return"] = "      %r = arith.addi %x, %y : {T}"

_SCF = """      %ub = arith.index_cast %x : {T} to index
      %s = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %y) -> ({T}) {
        %n = arith.addi %acc, %x : {T}
        scf.yield %n : {T}
      }
      %p = arith.cmpi slt, %x, %y : {T}
      %q = scf.if %p -> ({T}) {
        scf.yield %s : {T}
      } else {
        scf.yield %z : {T}
      }
      %w = scf.while (%v = %q) : ({T}) -> {T} {
        %more = arith.cmpi slt, %v, %y : {T}
        scf.condition(%more) %v : {T}
      } do {
      ^bb0(%v2: {T}):
        %n2 = arith.addi %v2, %x : {T}
        scf.yield %n2 : {T}
      }
      %r = scf.index_switch %t -> {T}
      case 1 {
        scf.yield %w : {T}
      }
      case 5 {
        scf.yield %x : {T}
      }
      default {
        scf.yield %y : {T}
      }"""
for _name in ("scf.for", "scf.if", "scf.while", "scf.index_switch", "scf.yield", "scf.condition"):
    _SPECIAL[_name] = _SCF

_CF = """      %p = arith.cmpi slt, %x, %y : {T}
      cf.cond_br %p, ^then(%x : {T}), ^join(%y : {T})
    ^then(%v: {T}):
      cf.switch %x : {T}, [
        default: ^join(%v : {T}),
        2: ^join(%z : {T}),
        7: ^seven
      ]
    ^seven:
      cf.br ^join(%x : {T})
    ^join(%r: {T}):"""
for _name in ("cf.br", "cf.cond_br", "cf.switch"):
    _SPECIAL[_name] = _CF

_FUNC = """      %r = func.call @twice(%x, %b) : ({T}, memref<64x{T}, 1>) -> {T}"""
_FUNCTIONS = """    func.func @twice(%v: {T}, %m: memref<64x{T}, 1>) -> {T} {
      %i = arith.constant 3 : index
      %w = memref.load %m[%i] : memref<64x{T}, 1>
      %s = arith.addf %v, %w : {T}
      func.return %s : {T}
    }
"""
for _name in ("func.func", "func.call", "func.return"):
    _SPECIAL[_name] = _FUNC

_GPU_ALLOC = """      %s = gpu_alloc.alloc "shared" align 16 : memref<256xi8, 3 : i32>
      %off = arith.constant 64 : index
      %p = gpu_alloc.offset_pointer %s[%off] : memref<256xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f = gpu_alloc.alias "f" %p : !gpu_alloc.ptr<3 : i32> -> memref<16x{T}, 3 : i32>
      memref.store %x, %f[%c1] : memref<16x{T}, 3 : i32>
      "gpu.barrier"() : () -> ()
      %r = memref.load %f[%c1] : memref<16x{T}, 3 : i32>
      gpu_alloc.dealloc %s : memref<256xi8, 3 : i32>"""
for _name in (
    "gpu_alloc.alloc",
    "gpu_alloc.alias",
    "gpu_alloc.offset_pointer",
    "gpu_alloc.dealloc",
):
    _SPECIAL[_name] = _GPU_ALLOC


_SHARED = """      %sh = gpu_alloc.alloc "sh" align 16 : memref<64x{T}, 3 : i32>
"""
_AFFINE = {
    "affine.apply": """      %j = affine.apply affine_map<(d0)[s0] -> ((d0 + s0 * 3) mod 64)>(%t)[%c4]
      %r = memref.load %a[%j] : memref<64x{T}, 1>""",
    "affine.min": """      %j = affine.min affine_map<(d0)[s0] -> (d0, s0 + 59)>(%t)[%c4]
      %r = memref.load %a[%j] : memref<64x{T}, 1>""",
    "affine.max": """      %j = affine.max affine_map<(d0) -> (d0 floordiv 2, d0 ceildiv 4)>(%t)
      %r = memref.load %a[%j] : memref<64x{T}, 1>""",
    "affine.load": "      %r = affine.load %a[%c4 * 2 + 1] : memref<64x{T}, 1>",
    "affine.store": """      affine.store %x, %b[%c4 + 3] : memref<64x{T}, 1>
      %r = affine.load %c[%c1] : memref<64x{T}, 1>""",
    "affine.vector_load": """      %v = affine.vector_load %a[%c4 * 2 + 1] : memref<64x{T}, 1>, vector<4x{T}>
      %r = vector.extract %v[1] : {T} from vector<4x{T}>""",
    "affine.vector_store": """      %v = vector.broadcast %x : {T} to vector<4x{T}>
      affine.vector_store %v, %b[%c4 + 3] : memref<64x{T}, 1>, vector<4x{T}>
      %r = affine.load %c[%c1] : memref<64x{T}, 1>""",
    "affine.for": """      %r = affine.for %i = 0 to min affine_map<()[s0] -> (8, s0)>()[%c4] step 2 iter_args(%acc = %x) -> ({T}) {
        %v = affine.load %a[%i] : memref<64x{T}, 1>
        %n = arith.addf %acc, %v : {T}
        affine.yield %n : {T}
      }""",
    "affine.if": """      %r = affine.if affine_set<()[s0] : (s0 - 2 >= 0, s0 * 2 - 8 == 0)>()[%c4] -> {T} {
        affine.yield %x : {T}
      } else {
        affine.yield %y : {T}
      }""",
    "affine.delinearize_index": """      %q:2 = affine.delinearize_index %t into (8, 8) : index, index
      %j = arith.maxsi %q#0, %q#1 : index
      %r = memref.load %a[%j] : memref<64x{T}, 1>""",
    "affine.linearize_index": """      %l = affine.linearize_index disjoint [%c1, %c4] by (8, 8) : index
      %r = memref.load %a[%l] : memref<64x{T}, 1>""",
}
_AFFINE["affine.yield"] = _AFFINE["affine.for"]
_SPECIAL.update(_AFFINE)
_FORALL = """      scf.forall (%i, %j) in (2, %c4) {
        %k = arith.maxsi %i, %j : index
        memref.store %x, %b[%k] : memref<64x{T}, 1>
      }
      %r = memref.load %b[%c1] : memref<64x{T}, 1>"""
_PARALLEL = """      scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
        memref.store %x, %b[%i] : memref<64x{T}, 1>
      }
      %r = memref.load %b[%c1] : memref<64x{T}, 1>"""
for _name, _text in (
    ("scf.forall", _FORALL),
    ("scf.forall.in_parallel", _FORALL),
    ("scf.parallel", _PARALLEL),
    ("scf.reduce", _PARALLEL),
):
    _SPECIAL[_name] = _text
for _name in INDEX_BINARY:
    _SPECIAL[f"index.{_name}"] = f"      %r = index.{_name} %x, %y"
_SPECIAL["index.casts"] = """      %v = index.casts %x : index to i32
      %r = index.casts %v : i32 to index"""
_SPECIAL["index.castu"] = """      %v = index.castu %x : index to i64
      %r = index.castu %v : i64 to index"""
_SPECIAL["index.constant"] = """      %k = index.constant 42
      %r = index.add %k, %x"""
_ASYNC_COPY = (
    _SHARED
    + """      %tok = nvgpu.device_async_copy %a[%c4], %sh[%c4], 4 : memref<64x{T}, 1> to memref<64x{T}, 3 : i32>
      %g = nvgpu.device_async_create_group %tok
      nvgpu.device_async_wait %g {numGroups = 0 : i32}
      "gpu.barrier"() : () -> ()
      %r = memref.load %sh[%c1] : memref<64x{T}, 3 : i32>"""
)
for _name in (
    "nvgpu.device_async_copy",
    "nvgpu.device_async_create_group",
    "nvgpu.device_async_wait",
):
    _SPECIAL[_name] = _ASYNC_COPY
_SPECIAL[
    "nvgpu.ldmatrix"
] = """      %sh = gpu_alloc.alloc "sh" align 16 : memref<32x32x{T}, 3 : i32>
      %m = nvgpu.ldmatrix %sh[%t, %c0] {numTiles = 4 : i32, transpose = false} : memref<32x32x{T}, 3 : i32> -> vector<4x2x{T}>
      %r = vector.extract %m[0, 1] : {T} from vector<4x2x{T}>"""
_SPECIAL["nvgpu.mma.sync"] = """      %ma = vector.broadcast %x : {T} to vector<4x2x{T}>
      %mb = vector.broadcast %y : {T} to vector<2x2x{T}>
      %mc = vector.broadcast %z : {T} to vector<2x2x{T}>
      %md = nvgpu.mma.sync(%ma, %mb, %mc) {mmaShape = [16, 8, 16]} : (vector<4x2x{T}>, vector<2x2x{T}>, vector<2x2x{T}>) -> vector<2x2x{T}>
      %r = vector.extract %md[1, 1] : {T} from vector<2x2x{T}>"""
_SPECIAL["linalg.fill"] = (
    _SHARED
    + """      linalg.fill ins(%x : {T}) outs(%sh : memref<64x{T}, 3 : i32>)
      "gpu.barrier"() : () -> ()
      %r = memref.load %sh[%c1] : memref<64x{T}, 3 : i32>"""
)
_SPECIAL[
    "linalg.copy"
] = """      linalg.copy ins(%a : memref<64x{T}, 1>) outs(%b : memref<64x{T}, 1>)
      %r = memref.load %b[%c1] : memref<64x{T}, 1>"""
_SPECIAL[
    "linalg.generic"
] = """      linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<64x{T}, 1>) outs(%b : memref<64x{T}, 1>) {
      ^bb0(%in: {T}, %out_: {T}):
        %s = arith.addf %in, %in : {T}
        linalg.yield %s : {T}
      }
      %r = memref.load %b[%c1] : memref<64x{T}, 1>"""
_TRANSFER = """      %v = vector.transfer_read %a[%c4], %x {in_bounds = [true]} : memref<64x{T}, 1>, vector<4x{T}>
      vector.transfer_write %v, %b[%c4] {in_bounds = [true]} : vector<4x{T}>, memref<64x{T}, 1>
      %r = vector.extract %v[2] : {T} from vector<4x{T}>"""
_SPECIAL["vector.transfer_read"] = _SPECIAL["vector.transfer_write"] = _TRANSFER
_SPECIAL["vector.shape_cast"] = """      %v = vector.load %a[%c4] : memref<64x{T}, 1>, vector<4x{T}>
      %w = vector.shape_cast %v : vector<4x{T}> to vector<2x2x{T}>
      %r = vector.extract %w[1, 0] : {T} from vector<2x2x{T}>"""
_SPECIAL["vector.step"] = """      %s = vector.step : vector<4xindex>
      %i = vector.extract %s[3] : index from vector<4xindex>
      %r = memref.load %a[%i] : memref<64x{T}, 1>"""
_SPECIAL["vector.from_elements"] = """      %v = vector.from_elements %x, %y : vector<2x{T}>
      %r = vector.extract %v[1] : {T} from vector<2x{T}>"""
_SPECIAL["gpu.all_reduce"] = "      %r = gpu.all_reduce add %x uniform {} : ({T}) -> {T}"
_SPECIAL["gpu.subgroup_reduce"] = "      %r = gpu.subgroup_reduce add %x : ({T}) -> {T}"
_OFFSET = "      %o = arith.index_cast %t : index to i32\n"
_SPECIAL["amdgpu.raw_buffer_load"] = (
    _OFFSET
    + "      %r = amdgpu.raw_buffer_load {boundsCheck = true} %a[%o] : memref<64x{T}, 1>, i32 -> {T}"
)
_SPECIAL["amdgpu.raw_buffer_store"] = (
    _OFFSET
    + """      amdgpu.raw_buffer_store {boundsCheck = true} %x -> %b[%o] : {T} -> memref<64x{T}, 1>, i32
      %r = arith.addf %x, %y : {T}"""
)
_SPECIAL["amdgpu.lds_barrier"] = (
    _SHARED
    + """      memref.store %x, %sh[%t] : memref<64x{T}, 3 : i32>
      amdgpu.lds_barrier
      %r = memref.load %sh[%c1] : memref<64x{T}, 3 : i32>"""
)
_SPECIAL["amdgpu.gather_to_lds"] = (
    _SHARED
    + """      amdgpu.gather_to_lds %a[%t], %sh[%c0] : {T}, memref<64x{T}, 1>, memref<64x{T}, 3 : i32>
      "gpu.barrier"() : () -> ()
      %r = memref.load %sh[%c1] : memref<64x{T}, 3 : i32>"""
)
_SPECIAL["amdgpu.transpose_load"] = (
    _SHARED
    + """      memref.store %x, %sh[%t] : memref<64x{T}, 3 : i32>
      "gpu.barrier"() : () -> ()
      %v = amdgpu.transpose_load %sh[%c4] : memref<64x{T}, 3 : i32> -> vector<4x{T}>
      %r = vector.extract %v[1] : {T} from vector<4x{T}>"""
)
_SPECIAL[
    "amdgpu.fat_raw_buffer_cast"
] = """      %f = amdgpu.fat_raw_buffer_cast %a resetOffset : memref<64x{T}, 1> to memref<64x{T}, #amdgpu.address_space<fat_raw_buffer>>
      %r = memref.load %f[%c1] : memref<64x{T}, #amdgpu.address_space<fat_raw_buffer>>"""


def _constant(element: str) -> str:
    if element == "i1":
        return "true"
    if element in _FLOATS:
        return f"1.5 : {element}"
    return f"7 : {element}"


def _body(row: Row, element: str) -> tuple[str, str, str]:
    """The body computing `%r`, the operand element type and the result element type."""
    op, form = row.op, row.form
    if op in GENERIC_ONLY:
        if form == "cast":
            source, target = element.split(">")
            return f'      %r = "{op}"(%x) : ({source}) -> {target}', source, target
        return f'      %r = "{op}"(%x, %y) : ({element}, {element}) -> {element}', element, element
    if form == "binary":
        return f"      %r = {op} %x, %y : {element}", element, element
    if form == "unary":
        return f"      %r = {op} %x : {element}", element, element
    if form == "ternary":
        return f"      %r = {op} %x, %y, %z : {element}", element, element
    if form == "compare":
        predicate = "slt" if op == "arith.cmpi" else "olt"
        return f"      %r = {op} {predicate}, %x, %y : {element}", element, "i1"
    if form == "select":
        return (
            f"      %p = arith.cmpi ult, %t, %c32 : index\n"
            f"      %r = arith.select %p, %x, %y : {element}",
            element,
            element,
        )
    if form == "cast":
        source, target = element.split(">")
        return f"      %r = {op} %x : {source} to {target}", source, target
    if form == "extended":
        if op == "arith.addui_extended":
            return (
                f"      %s, %o = {op} %x, %y : {element}, i1\n"
                f"      %r = arith.select %o, %s, %x : {element}",
                element,
                element,
            )
        return (
            f"      %lo, %hi = {op} %x, %y : {element}\n      %r = arith.xori %lo, %hi : {element}",
            element,
            element,
        )
    if form == "fpowi":
        return (
            f"      %n = arith.constant 3 : i32\n      %r = {op} %x, %n : {element}, i32",
            element,
            element,
        )
    if form == "constant":
        return f"      %r = arith.constant {_constant(element)}", element, element
    return _special(op, element)


def _special(op: str, element: str) -> tuple[str, str, str]:
    floats = element in _FLOATS
    body = _SPECIAL[op].replace("{T}", element)
    if op == "vector.reduction":
        body = body.replace("{KIND}", "add")
    if op == "memref.atomic_rmw":
        body = body.replace("{KIND}", "0" if floats else "1")  # addf, addi
    if floats:
        body = body.replace("arith.addi", "arith.addf").replace("arith.cmpi slt", "arith.cmpf olt")
    if op.startswith(("scf.", "cf.")) and floats:
        body = body.replace("arith.index_cast %x", "arith.fptosi %x").replace(
            f"%x : {element} to index", f"%x : {element} to i32"
        )
    return body, element, element


def parse_kernel(text: str) -> ModuleOp:
    """Parse (with the unregistered ops of `GENERIC_ONLY` and
    `gpu.dynamic_shared_memory` allowed) and verify."""
    ctx = make_context()
    ctx.allow_unregistered = True
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def module_name(element: str) -> str:
    """The `gpu.module` holding the kernel `k` for `element` (`i8>i32`: `m_i8_to_i32`)."""
    return "m_" + element.replace(">", "_to_")


def kernel_for(row: Row, element: str) -> str:
    """A module with one kernel `k` using `row.op` on `element`."""
    return f"builtin.module {{\n{gpu_module_for(row, element)}}}\n"


def module_for(row: Row, types: tuple[str, ...] | None = None) -> str:
    """A module with one `gpu.module` (see `module_name`) per element type of `row` (or
    of `types`)."""
    modules = "".join(gpu_module_for(row, element) for element in types or row.types)
    return f"builtin.module {{\n{modules}}}\n"


def gpu_module_for(row: Row, element: str) -> str:
    """The `gpu.module` text of a kernel `k` using `row.op` on `element`."""
    body, source, result = _body(row, element)
    globals_ = ""
    if row.op == "memref.get_global":
        globals_ = (
            f'    "memref.global"() <{{sym_name = "tile", sym_visibility = "private", '
            f"type = memref<64x{element}, 3>, initial_value, alignment = 16 : i64}}> : () -> ()\n"
        )
    functions = _FUNCTIONS.replace("{T}", element) if row.op.startswith("func.") else ""
    if row.op.startswith("func.") and element not in _FLOATS:
        functions = functions.replace("arith.addf", "arith.addi")
    return _GPU_MODULE.format(
        name=module_name(element),
        T=source,
        R=result,
        body=body,
        globals=globals_,
        functions=functions,
    )
