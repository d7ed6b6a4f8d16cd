"""The package as pip installs it, CPU-only: the wheel built offline from the source tree (its
CMake build directory reused, so libcured_c is not compiled again), installed into a fresh
venv, imported there and tested from there (not from the build tree), then uninstalled.

    python3 tests/python/wheel_test.py SOURCE_DIR CMAKE_BUILD_DIR WORK_DIR

Needs a Python with pip, setuptools and a bdist_wheel (setuptools 70.1 or later, or the wheel
package), and venv with ensurepip: this Python, else the first python3 on the PATH, else the
system's /usr/bin/python3 (the wheel is the same for any Python 3: the package loads its C
library with ctypes). Without one it exits 77 (ctest: skipped) saying what is missing, unless
CURED_REQUIRE_PIP is set, which makes that a failure (CI sets it).
"""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

SKIP = 77
TESTS = ("test_cpu", "test_bench_table", "test_bench_shapes")  # the package's tests that need no GPU


def step(what, command, **kwargs):
    """Runs command, prints it and its output, and returns the output; exits 1 on failure."""
    print("== %s: %s" % (what, " ".join(command)), flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, **kwargs)
    print(done.stdout.rstrip(), flush=True)
    if done.returncode != 0:
        print("FAILED: %s (exit status %d)" % (what, done.returncode))
        sys.exit(1)
    return done.stdout


def missing(python):
    """What `python` lacks to build and install a wheel offline, or None."""
    probes = (("pip", "import pip"), ("setuptools", "import setuptools"),
              ("bdist_wheel (setuptools 70.1+ or the wheel package)",
               "try:\n import setuptools.command.bdist_wheel\nexcept ImportError:\n import wheel.bdist_wheel"),
              ("venv with ensurepip", "import venv, ensurepip"))
    for name, code in probes:
        if subprocess.run([python, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            return name
    return None


def main():
    source, build, work = (os.path.abspath(a) for a in sys.argv[1:4])
    candidates = []
    for c in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if c and os.path.exists(c) and os.path.realpath(c) not in (os.path.realpath(k) for k in candidates):
            candidates.append(c)
    lacking = [(c, missing(c)) for c in candidates]
    usable = [c for c, m in lacking if m is None]
    if not usable:
        for c, m in lacking:
            print("%s has no %s" % (c, m))
        print("the wheel is not built (Debian: apt-get install python3-pip python3-setuptools python3-wheel "
              "python3-venv)")
        sys.exit(1 if os.environ.get("CURED_REQUIRE_PIP") else SKIP)
    builder = usable[0]
    print("python: %s" % builder)
    shutil.rmtree(work, ignore_errors=True)
    wheelhouse, venv = os.path.join(work, "wheelhouse"), os.path.join(work, "venv")
    env = dict(os.environ, CURED_CMAKE_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)

    step("build the wheel offline", [builder, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                                     "-w", wheelhouse, source], env=env, cwd=source)
    wheels = glob.glob(os.path.join(wheelhouse, "cured-*.whl"))
    if len(wheels) != 1:
        sys.exit("FAILED: want one cured wheel in %s, found %s" % (wheelhouse, wheels))
    wheel = os.path.basename(wheels[0])
    print("wheel: %s" % wheel)
    with zipfile.ZipFile(wheels[0]) as z:
        fast = [n for n in z.namelist() if n.startswith("cured/_torch_fast")]
    # py3-none-<platform> (ctypes alone), or cpXY-cpXY-<platform> with the torch fast path.
    python_tag = "-cp" if fast else "-py3-none-"
    if "+cu" not in wheel or python_tag not in wheel or wheel.endswith("-any.whl"):
        sys.exit("FAILED: %s: want a platform wheel (%s<platform>) whose version names the CUDA major (+cuN)"
                 % (wheel, python_tag.strip("-")))

    step("a fresh venv", [builder, "-m", "venv", venv], env=env)
    python = os.path.join(venv, "bin", "python")
    step("install the wheel", [python, "-m", "pip", "install", "--no-deps", wheels[0]], env=env)
    listed = step("pip list", [python, "-m", "pip", "list"], env=env)
    if not any(line.split()[:1] == ["cured"] for line in listed.splitlines()):
        sys.exit("FAILED: pip list does not list cured")
    step("pip show cured", [python, "-m", "pip", "show", "cured"], env=env)
    where = step("import it", [python, "-c", "import cured, sys; print(cured.__version__, cured.__file__); "
                                            "assert cured.__file__.startswith(sys.prefix), 'not from the venv'"],
                 env=env, cwd=work)
    print("imported: %s" % where.strip())
    # From python/tests: the source's python/cured is not on the path there, the venv's is.
    step("the CPU tests from the install", [python, "-m", "unittest", "-v"] + list(TESTS), env=env,
         cwd=os.path.join(source, "python", "tests"))
    step("uninstall", [python, "-m", "pip", "uninstall", "-y", "cured"], env=env)
    gone = subprocess.run([python, "-c", "import cured"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, cwd=work)
    if gone.returncode == 0 or "No module named 'cured'" not in gone.stdout:
        sys.exit("FAILED: cured still imports after pip uninstall: %s" % gone.stdout)
    print("uninstalled: import cured fails (No module named 'cured')")


if __name__ == "__main__":
    main()
