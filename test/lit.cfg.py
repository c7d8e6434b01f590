# lit configuration of regcopy's FileCheck tests.
#
# Run the suite with `lit test` (or through pytest: test/python/test_lit.py runs one pytest item
# per lit test file). A test is any `*.mlir` file under test/ that has a `RUN:` line; `.mlir` files
# without one (GPU kernels under test/gpu/kernels/, inputs under */Inputs/) are data, not tests.

import os
import shutil
import subprocess
import sys

import lit.formats

# `config` and `lit_config` are defined by lit when it runs this file.

config.name = "regcopy"
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Scratch files (%t, Output/) go under the source tree unless `--param exec_root=DIR` says
# otherwise (test/python/test_lit.py passes a per-session temporary directory, so that two
# concurrent runs never share %t files).
config.test_exec_root = lit_config.params.get("exec_root") or config.test_source_root
# Non-test directories: pytest files, lit's scratch output, and inputs of tests.
EXCLUDED_DIRS = ["python", "Inputs", "Output", "__pycache__"]


def _has_run_line(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return any("RUN:" in line for line in f)
    except OSError:
        return False


def _data_file_names(root: str) -> list[str]:
    """Names of `.mlir` files without a `RUN:` line (data such as the GPU kernels under
    test/gpu/kernels/), so that lit does not report them as UNRESOLVED tests. lit excludes by
    base name, so a name that is also a real test's somewhere stays included (and shows up)."""
    tests: set[str] = set()
    data: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in EXCLUDED_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(".mlir"):
                (tests if _has_run_line(os.path.join(dirpath, name)) else data).add(name)
    return sorted(data - tests)


# A custom ShTest subclass that filters on RUN lines cannot be defined here: lit pickles the test
# format to its worker processes, and a class defined in lit.cfg.py does not pickle.
config.test_format = lit.formats.ShTest(execute_external=False)
config.excludes = ["lit.cfg.py", *EXCLUDED_DIRS, *_data_file_names(config.test_source_root)]

# lit forwards PATH but scrubs most other variables: put the bin/ of the Python running lit (the
# one regcopy is installed into) first, so that regcopy-opt, xdsl-opt and filecheck are found
# with or without an activated virtual environment.
# Under pytest (test/python/lit_runner.py), `--param tool_bin=DIR` comes first: stand-ins for
# regcopy-opt, xdsl-opt and filecheck that run the same entry points forked from a server that
# has imported xDSL once (test/python/tool_server.py).
bindir = os.path.dirname(sys.executable)
tool_bin = lit_config.params.get("tool_bin")
config.environment["PATH"] = os.pathsep.join(
    [*([tool_bin] if tool_bin else []), bindir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "PYTHONPATH", "REGCOPY_CACHE_DIR"):  # user site, scratch, compile cache
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("REGCOPY_ROUNDTRIP",
     "regcopy-opt %s --print-op-generic --split-input-file | regcopy-opt --split-input-file "
     "| filecheck %s"))
config.substitutions.append(
    ("REGCOPY_GENERIC_ROUNDTRIP",
     "regcopy-opt %s --print-op-generic --split-input-file | filecheck %s "
     "--check-prefix=CHECK-GENERIC"))
config.substitutions.append(
    ("XDSL_ROUNDTRIP",
     "xdsl-opt %s --print-op-generic --split-input-file | xdsl-opt --split-input-file "
     "| filecheck %s"))


def _has_gpu() -> bool:
    """Whether an NVIDIA GPU is visible (`REQUIRES: gpu` in a test needs one)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if _has_gpu():
    config.available_features.add("gpu")
