"""`pip install .`: the Python package `cured` (python/cured) with libcured_c inside.

setuptools drives CMake: it configures the project (Release, no tests, benchmark or examples;
the CUDA architectures CMake picks) and builds the `cured-python` target only (the library, and
the compiled torch fast path where the configuring Python has torch with CUDA:
python/CMakeLists.txt), then puts the library, the extension and the _version.py that CMake
writes into the package beside its Python files. The backend is
setuptools, not scikit-build-core, because Debian 12's python3-setuptools and python3-wheel build
it offline (`pip install --no-build-isolation .`) on every machine here, where no package index
is reachable and scikit-build-core is not installed everywhere.

The wheel is tagged for the platform (py3-none-linux_x86_64: ctypes, no Python ABI), or for the
Python that built it as well where it holds the torch fast path (cp311-cp311-linux_x86_64: a
CPython extension, loaded only with the torch version it was compiled against); its version carries the CUDA major version of the toolkit that built it (0.1.0+cu13): the library
links that CUDA runtime statically and needs a driver that supports it.

Environment:
  CURED_CMAKE_BUILD_DIR   a CMake build directory to use (absolute, or relative to the top of
                          the source tree, also for `pip install python/`). One configured
                          already (a preset's, CI's) only has cured-python built; another is
                          configured here first. Default: build/pip (kept: a reinstall is quick).
  CMAKE_ARGS              more arguments for that first configure (-DCMAKE_CUDA_ARCHITECTURES=80;90)
  CMAKE_BUILD_PARALLEL_LEVEL  jobs for the build (default: every CPU)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools 70.1 and later
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel  # the wheel package, before that
    except ImportError:
        bdist_wheel = None

ROOT = os.path.dirname(os.path.abspath(__file__))
PACKAGE_FILES = ("libcured_c.so.0", "_version.py")  # what the CMake build adds to the package
EXTENSION = "_torch_fast"  # and the torch fast path, where the build has it (_torch_fast<EXT_SUFFIX>)
NCCL_LIBRARY = "libcured_nccl.so.0"  # and cured.distributed's library, where the build found NCCL


def fail(message):
    sys.exit("cured setup.py: " + message)


def project_version():
    """The version of project(cured VERSION x.y.z) in CMakeLists.txt: declared there alone."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        found = re.search(r"project\(\s*cured\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", f.read())
    if not found:
        fail("no project(cured VERSION x.y.z) in %s" % os.path.join(ROOT, "CMakeLists.txt"))
    return found.group(1)


def cmake_build_dir():
    """CURED_CMAKE_BUILD_DIR (a relative path from the top of the source tree, wherever pip runs
    this), or build/pip there."""
    given = os.environ.get("CURED_CMAKE_BUILD_DIR")
    return os.path.join(ROOT, given or os.path.join("build", "pip"))


def cache_value(build_dir, name):
    """A variable of build_dir's CMakeCache.txt, or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def read_version_file(path):
    """version and cuda_major of a _version.py that CMake wrote."""
    values = {}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), values)  # noqa: S102 - our own generated file
    return values["version"], values["cuda_major"]


def cuda_major(build_dir):
    """The CUDA major version the build uses: a configured build's _version.py says; otherwise
    nvcc's, found as CMake finds it (CUDACXX, then PATH, then /usr/local/cuda)."""
    written = os.path.join(build_dir, "python", "cured", "_version.py")
    if os.path.exists(written):
        return read_version_file(written)[1]
    nvcc = (os.environ.get("CUDACXX") or cache_value(build_dir, "CMAKE_CUDA_COMPILER") or shutil.which("nvcc")
            or "/usr/local/cuda/bin/nvcc")
    try:
        out = subprocess.run([nvcc, "--version"], check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail("cannot run nvcc (%s): %s; install the CUDA toolkit or set CUDACXX" % (nvcc, e))
    found = re.search(r"release ([0-9]+)\.", out)
    if not found:
        fail("no 'release X.Y' in the output of %s --version" % nvcc)
    return int(found.group(1))


BUILD_DIR = cmake_build_dir()
VERSION = "%s+cu%d" % (project_version(), cuda_major(BUILD_DIR))


def run(command):
    print("cured setup.py: " + " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True)


def build_library():
    """Configures BUILD_DIR where it is not yet, builds cured-python there, and returns the folder
    where the build put the package: libcured_c, _version.py and the torch fast path beside the
    Python files."""
    cmake = shutil.which("cmake") or fail("cmake is not on PATH (CMake 3.25 or newer)")
    home = cache_value(BUILD_DIR, "CMAKE_HOME_DIRECTORY")
    if home is None:
        # CURED_PYTHON: the torch fast path is compiled against this Python's torch, where it has one.
        run([cmake, "-S", ROOT, "-B", BUILD_DIR, "-DCMAKE_BUILD_TYPE=Release", "-DCURED_BUILD_TESTS=OFF",
             "-DCURED_BUILD_BENCH=OFF", "-DCURED_BUILD_EXAMPLES=OFF", "-DCURED_PYTHON=" + sys.executable]
            + shlex.split(os.environ.get("CMAKE_ARGS", "")))
    elif os.path.realpath(home) != os.path.realpath(ROOT):
        fail("%s is the build directory of %s, not of %s" % (BUILD_DIR, home, ROOT))
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    run([cmake, "--build", BUILD_DIR, "--target", "cured-python", "--parallel", jobs])
    package = os.path.join(BUILD_DIR, "python", "cured")
    version, major = read_version_file(os.path.join(package, "_version.py"))
    built = "%s+cu%d" % (version, major)
    if built != VERSION:
        fail("%s built version %s, but this package is %s (the build directory's CUDA toolkit or CMakeLists.txt "
             "changed: reconfigure it, or remove it)" % (BUILD_DIR, built, VERSION))
    return package


def built_files(package):
    """The names the CMake build adds to the package: PACKAGE_FILES, and the torch fast path where
    it was built for this Python (its name ends with this Python's extension suffix)."""
    extension = EXTENSION + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
    optional = (extension, NCCL_LIBRARY)
    return PACKAGE_FILES + tuple(n for n in optional if os.path.exists(os.path.join(package, n)))


class build_py_and_library(build_py):
    """build_py, then the C library, _version.py and the torch fast path from the CMake build."""

    copied = ()  # what run() added: the wheel's tag depends on it

    def run(self):
        super().run()
        package = build_library()
        target = os.path.join(self.build_lib, "cured")
        os.makedirs(target, exist_ok=True)
        build_py_and_library.copied = built_files(package)
        for name in build_py_and_library.copied:
            # copyfile follows the soname link to the library itself (a wheel holds no links).
            shutil.copyfile(os.path.join(package, name), os.path.join(target, name))

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, "cured", n)
                                                        for n in build_py_and_library.copied or PACKAGE_FILES]


class BinaryDistribution(Distribution):
    """Holds a native library: the wheel is platform-specific."""

    def has_ext_modules(self):
        return True


commands = {"build_py": build_py_and_library}
if bdist_wheel is None and {"bdist_wheel", "dist_info"} & set(sys.argv):
    fail("a wheel needs setuptools 70.1 or later, or the wheel package, in %s (Debian: python3-wheel); "
         "pip --no-build-isolation builds with what that Python has" % sys.executable)
if bdist_wheel is not None:
    class bdist_wheel_any_python(bdist_wheel):
        """py3-none-<platform>: the library is loaded with ctypes, so any CPython 3 takes the
        wheel; the platform is the one it was built on. A wheel with the torch fast path (a
        CPython extension) is tagged for the Python that built it."""

        def get_tag(self):
            tag = super().get_tag()
            if any(name.startswith(EXTENSION) for name in build_py_and_library.copied):
                return tag
            return ("py3", "none", tag[2])

    commands["bdist_wheel"] = bdist_wheel_any_python

setup(
    name="cured",
    version=VERSION,
    description="Reductions of CUDA arrays (torch, CuPy, Numba, DLPack): sums, extrema, exact sums, statistics, "
                "along axes and per segment",
    long_description="The Python package of cured, a CUDA C++ reduction library: see README.md and "
                     "docs/PYTHON.md in its source tree. This build links CUDA %d's runtime statically and needs "
                     "an NVIDIA driver that supports CUDA %d." % ((int(VERSION.split("+cu")[1]),) * 2),
    python_requires=">=3.9",
    packages=["cured"],
    package_dir={"": os.path.relpath(os.path.join(ROOT, "python"))},
    package_data={"cured": ["py.typed"]},
    zip_safe=False,
    classifiers=[
        "Environment :: GPU :: NVIDIA CUDA :: %s" % VERSION.split("+cu")[1],
        "Operating System :: POSIX :: Linux",
        "Programming Language :: Python :: 3",
        "Programming Language :: C++",
        "Typing :: Typed",
    ],
    distclass=BinaryDistribution,
    cmdclass=commands,
)
