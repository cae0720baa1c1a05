"""The ctypes structs of the module are the C structs of include/stepcast.h
and include/stepcast_recsys.h field for field: the same names, offsets and
sizes, and the same total size (so a field added to a C struct and not to
the module fails here).
The C side is printed by abi_layout.c, built by CMake (STEPCAST_ABI names
it) or here with the C compiler ($CC, else cc)."""
import ctypes
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402

MIRRORS = {"sc_error": stepcast._Err, "sc_search_opts": stepcast._SearchOpts,
           "sc_coll_sweep_opts": stepcast._SweepOpts, "sc_trace_whatif": stepcast._TraceWhatif,
           "sc_predict_json_opts": stepcast._PredictOpts,
           "sc_validate_json_opts": stepcast._ValidateOpts, "sc_rs_plan_opts": stepcast._RsPlanOpts}


@pytest.fixture(scope="module")
def c_layout(tmp_path_factory):
    """{struct: (size, {field: (offset, size)})} as the C compiler lays them out."""
    exe = os.environ.get("STEPCAST_ABI")
    if not exe:
        exe = str(tmp_path_factory.mktemp("abi") / "abi_layout")
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-std=c17", "-I", os.path.join(ROOT, "include"),
                        os.path.join(HERE, "abi_layout.c"), "-o", exe], check=True)
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    layout = {}
    for line in out.splitlines():
        kind, name, *rest = line.split()
        if kind == "S":
            layout[name] = (int(rest[0]), {})
        else:
            layout[name][1][rest[0]] = (int(rest[1]), int(rest[2]))
    return layout


def test_every_mirror_is_printed(c_layout):
    assert set(c_layout) == set(MIRRORS)


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_struct_matches_c(c_layout, name):
    size, fields = c_layout[name]
    cls = MIRRORS[name]
    assert ctypes.sizeof(cls) == size, f"{name}: ctypes {ctypes.sizeof(cls)} bytes, C {size}"
    py = {f[0]: (getattr(cls, f[0]).offset, getattr(cls, f[0]).size) for f in cls._fields_}
    assert list(py) == list(fields), f"{name}: fields differ (ctypes vs C, in order)"
    for field, (off, sz) in fields.items():
        assert py[field] == (off, sz), f"{name}.{field}: ctypes {py[field]}, C {(off, sz)}"
