"""cured.distributed (reductions of tensors sharded over torch.distributed ranks): what runs
anywhere, and dist_check.py under torchrun where GPUs are.

    PYTHONPATH=<build>/python python3 -m unittest -v test_distributed     # from python/tests
    PYTHONPATH=<build>/python python3 -m pytest -q python/tests/test_distributed.py

Everywhere: `import cured` leaves cured.distributed (and torch) unimported; where libcured_nccl
is missing, importing cured.distributed is an ImportError saying cured was built without NCCL;
the exact CPU reference of dist_check.py (exact_reference.py). Where the library and torch are
there: its ABI, its functions' checks before any communicator. With torch, CUDA devices and
libcured_nccl: dist_check.py on min(2, devices) ranks through torch.distributed.run. Each skip
says why; CURED_REQUIRE_DEVICE=1 makes the GPU run's skip an error where libcured_nccl exists.
"""

import importlib
import importlib.util
import math
import os
import random
import struct
import subprocess
import sys
import unittest
from fractions import Fraction

from exact_reference import FLOAT32, FLOAT64, exact_sum_reference, float32_bits, round_fraction
from test_device import _try_import

HERE = os.path.dirname(os.path.abspath(__file__))

cured, _CURED_ERROR = _try_import("cured")


def _python(code, **env):
    """Runs code in a fresh Python with this environment plus env: (exit status, stdout + stderr)."""
    environment = dict(os.environ, **env)
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def _library():
    """The path of libcured_nccl this package would load, and whether it is there."""
    path = os.environ.get("CURED_NCCL_LIBRARY") or os.path.join(os.path.dirname(cured._lib.__file__),
                                                                 "libcured_nccl.so.0")
    return path, os.path.exists(path)


class Import(unittest.TestCase):
    """Needs cured (libcured_c), not torch, not a GPU."""

    @classmethod
    def setUpClass(cls):
        if _CURED_ERROR:
            raise unittest.SkipTest(_CURED_ERROR)

    def test_import_cured_imports_neither_distributed_nor_torch(self):
        status, out = _python("import sys, cured; print(sorted(m for m in ('cured.distributed', 'torch') "
                              "if m in sys.modules))")
        self.assertEqual(status, 0, out)
        self.assertEqual(out.strip().splitlines()[-1], "[]")

    def test_without_the_library_the_import_says_cured_was_built_without_nccl(self):
        missing = os.path.join(HERE, "no-such-dir", "libcured_nccl.so.0")
        status, out = _python("import cured.distributed", CURED_NCCL_LIBRARY=missing)
        self.assertNotEqual(status, 0, out)
        self.assertIn("ImportError: cured was built without NCCL", out)
        self.assertIn(missing, out)

    def test_a_library_that_does_not_load_is_an_import_error_naming_it(self):
        status, out = _python("import cured.distributed", CURED_NCCL_LIBRARY=os.path.abspath(__file__))
        self.assertNotEqual(status, 0, out)
        self.assertIn("ImportError: cured: cannot load " + os.path.abspath(__file__), out)


class Reference(unittest.TestCase):
    """exact_reference.py, the exact sums dist_check.py compares with: CPU only."""

    def test_rounding_to_float32_matches_the_hardware_cast(self):
        rng = random.Random(3)
        for _ in range(20000):
            x = math.ldexp(rng.random() * 2 - 1, rng.randint(-160, 129))
            try:
                want = struct.unpack("<f", struct.pack("<f", x))[0]  # the C cast: to nearest, ties to even
            except OverflowError:
                want = math.copysign(math.inf, x)
            got = round_fraction(Fraction(x), FLOAT32)
            self.assertEqual((got, math.copysign(1, got)), (want, math.copysign(1, want)), x)

    def test_rounding_to_float64_matches_python_division(self):
        rng = random.Random(4)
        for _ in range(5000):
            q = Fraction(rng.randint(-10 ** 40, 10 ** 40), rng.randint(1, 10 ** 40)) * Fraction(2) ** rng.randint(-1150,
                                                                                                                  1030)
            try:
                want = q.numerator / q.denominator  # correctly rounded in CPython
            except OverflowError:
                want = math.inf if q > 0 else -math.inf
            self.assertEqual(round_fraction(q, FLOAT64), want, q)

    def test_ties_go_to_even(self):
        one, half = Fraction(1), Fraction(1, 1 << 24)  # half the ulp of 1 in float32
        self.assertEqual(round_fraction(one + half), 1.0)
        self.assertEqual(round_fraction(one + 3 * half), 1.0 + 2 ** -22)
        self.assertEqual(round_fraction(one + half + Fraction(1, 1 << 80)), 1.0 + 2 ** -23)
        self.assertEqual(round_fraction(-(one + half)), -1.0)

    def test_subnormals(self):
        least = Fraction(1, 1 << 149)
        self.assertEqual(round_fraction(3 * least), 3 * 2.0 ** -149)
        self.assertEqual(round_fraction(least / 2), 0.0)  # a tie with 0: even
        self.assertEqual(round_fraction(least * 3 / 4), 2.0 ** -149)
        self.assertEqual(math.copysign(1, round_fraction(-least / 4)), -1)  # nonzero rounding to zero keeps its sign
        self.assertEqual(round_fraction(Fraction(1, 1 << 126) - least), 2.0 ** -126 - 2.0 ** -149)
        self.assertEqual(round_fraction(Fraction(1, 1 << 1074), FLOAT64), 5e-324)

    def test_overflow_at_the_greatest_value_plus_half_its_ulp(self):
        top = FLOAT32.max_finite
        half_ulp = Fraction(2) ** 103
        self.assertEqual(round_fraction(top + half_ulp - Fraction(1)), float(top))
        self.assertEqual(round_fraction(top + half_ulp), math.inf)
        self.assertEqual(round_fraction(-2 * top), -math.inf)
        self.assertEqual(round_fraction(FLOAT64.max_finite, FLOAT64), sys.float_info.max)
        self.assertEqual(round_fraction(2 * FLOAT64.max_finite, FLOAT64), math.inf)

    def test_exact_sums_of_terms(self):
        big = struct.unpack("<f", struct.pack("<f", 1e30))[0]
        small = struct.unpack("<f", struct.pack("<f", 1e-30))[0]
        self.assertEqual(exact_sum_reference([big, -big, small]), small)
        self.assertEqual(exact_sum_reference([1.0, 2.0 ** -24, 2.0 ** -24]), 1.0 + 2 ** -23)  # no double rounding
        self.assertEqual(exact_sum_reference([float(FLOAT32.max_finite)] * 2 + [-float(FLOAT32.max_finite)]),
                         float(FLOAT32.max_finite))
        self.assertEqual(exact_sum_reference([1e308, 1e308, -1e308], FLOAT64), 1e308)

    def test_signed_zeros_infinities_and_nan(self):
        self.assertEqual(float32_bits(exact_sum_reference([-0.0, -0.0])), 0x80000000)
        self.assertEqual(float32_bits(exact_sum_reference([-0.0, 0.0])), 0)
        self.assertEqual(float32_bits(exact_sum_reference([1.5, -1.5, -0.0])), 0)
        self.assertEqual(float32_bits(exact_sum_reference([])), 0)
        self.assertEqual(exact_sum_reference([math.inf, 1.0, -1e30]), math.inf)
        self.assertEqual(exact_sum_reference([-math.inf, -1.0]), -math.inf)
        self.assertTrue(math.isnan(exact_sum_reference([math.inf, -math.inf])))
        self.assertTrue(math.isnan(exact_sum_reference([1.0, math.nan, math.inf])))


def _distributed():
    """cured.distributed, or None and why it is not here (no cured, no torch, no libcured_nccl)."""
    if _CURED_ERROR:
        return None, _CURED_ERROR
    path, there = _library()
    if not there:
        return None, "cured was built without NCCL (no %s)" % path
    return _try_import("cured.distributed")


class Library(unittest.TestCase):
    """Needs libcured_nccl and torch, not a GPU."""

    @classmethod
    def setUpClass(cls):
        cls.cd, reason = _distributed()
        if reason:
            raise unittest.SkipTest(reason)

    def test_abi_and_nccl_version(self):
        self.assertEqual(self.cd.lib.cured_nccl_abi_version(), self.cd.ABI_VERSION)
        self.assertGreaterEqual(self.cd.nccl_version(), 20000)

    def test_the_public_functions(self):
        for name in self.cd.__all__:
            self.assertTrue(hasattr(self.cd, name), name)
            self.assertTrue(getattr(self.cd, name).__doc__, name)

    def test_checks_before_any_communicator(self):
        import torch
        import torch.distributed as dist
        if dist.is_initialized():
            self.skipTest("torch.distributed is initialized in this process")
        with self.assertRaisesRegex(TypeError, "expected a torch tensor"):
            self.cd.sum([1.0, 2.0])
        with self.assertRaisesRegex(TypeError, "not on a CUDA device"):
            self.cd.sum(torch.ones(3))
        with self.assertRaisesRegex(RuntimeError, "torch.distributed is not initialized"):
            self.cd.communicator()


def _device_run_reason():
    """Why dist_check.py cannot run here (None if it can), and whether the reason is the device's."""
    cd, reason = _distributed()
    if reason:
        return reason, False
    torch, reason = _try_import("torch")
    if reason:
        return reason, True
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False", True
    if importlib.util.find_spec("torch.distributed.run") is None:
        return "torch.distributed.run (torchrun) is missing", True
    return None, False


class DeviceRun(unittest.TestCase):
    """dist_check.py under torchrun on min(2, devices) ranks: needs torch, CUDA and libcured_nccl."""

    def test_dist_check(self):
        reason, device = _device_run_reason()
        if reason:
            if device and os.environ.get("CURED_REQUIRE_DEVICE"):
                raise RuntimeError("cured.distributed's device run cannot run: " + reason)
            self.skipTest(reason)
        import torch
        ranks = min(2, torch.cuda.device_count())
        # NVLink multicast (NVLS) off: its sums differ between calls, and it can take shared GPUs down.
        env = dict(os.environ, NCCL_NVLS_ENABLE=os.environ.get("NCCL_NVLS_ENABLE", "0"))
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=%d" % ranks,
                   os.path.join(HERE, "dist_check.py")]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        out = done.stdout + done.stderr
        self.assertEqual(done.returncode, 0, out[-6000:])
        self.assertIn("dist_check: %d ranks:" % ranks, out)
        self.assertNotIn("FAIL", out)


if __name__ == "__main__":
    unittest.main()
