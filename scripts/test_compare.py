"""Tests of scripts/compare_reports.py and scripts/compare_sass.py on made-up inputs."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_reports  # noqa: E402
import compare_sass  # noqa: E402


def row(impl, n, ms, op="sum", check="ok"):
    return {"impl": impl, "type": "float", "op": op, "n": n, "cold_ms": ms, "hot_ms": None, "check": check}


class CompareReportsTest(unittest.TestCase):
    def test_new_over_base_and_the_noise(self):
        base1 = [row("cured", 1024, 1.0), row("cub", 1024, 2.0)]
        base2 = [row("cured", 1024, 1.0), row("cub", 1024, 2.2)]
        new1 = [row("cured", 1024, 0.5), row("cub", 1024, 2.0)]
        text = "\n".join(compare_reports.tables([base1, base2], [new1], "cub", "cured"))
        # base: 2.0 and 2.2 (mean 2.098), new: 4.0; noise 2.2 / 2.0.
        self.assertIn("| float | sum | exact | 1.907 | 1.100 |", text)
        self.assertIn("| 2^10 | 2.00 | 2.20 | 4.00 |", text)

    def test_rows_not_ok_are_left_out_and_exact_sum_meets_the_peers_sum(self):
        runs = [[row("cured", 1024, 1.0, op="exact_sum"), row("cub", 1024, 3.0),
                 row("cured", 2048, 1.0), row("cub", 2048, 1.0, check="got 1 want 2")]]
        r = compare_reports.ratios(runs[0], "cub", "cured")
        self.assertEqual(r, {("float", "exact_sum", "exact"): {1024: 3.0}})


SASS = """
	code for sm_90
		Function : _Z6kernelIfEvPT_
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                           /* 0x00000a00ff017b82 */
        /*0010*/                   EXIT ;                                           /* 0x000000000000794d */
		Function : _Z5otherv
        /*0000*/                   EXIT ;                                           /* 0x000000000000794d */
"""


class CompareSassTest(unittest.TestCase):
    def test_parse(self):
        k = compare_sass.parse_sass(SASS)
        self.assertEqual(k["_Z6kernelIfEvPT_"], ["LDC R1, c[0x0][0x28]", "EXIT"])
        self.assertEqual(k["_Z5otherv"], ["EXIT"])

    def test_renamed_kernels_are_matched(self):
        base = {"a": ["EXIT"], "b": ["NOP", "EXIT"], "c": ["EXIT"]}
        new = {"x": ["EXIT"], "y": ["EXIT"], "z": ["EXIT"]}
        names_base = {"a": "k<old::p>", "b": "m<int>", "c": "gone()"}
        names_new = {"x": "k<new::p>", "y": "m<int>", "z": "added()"}
        same, differing, only_base, only_new = compare_sass.compare(base, new, names_base, names_new,
                                                                    [(r"old::", "new::")])
        self.assertEqual((same, differing, only_base, only_new), (["k<new::p>"], ["m<int>"], ["gone()"], ["added()"]))


if __name__ == "__main__":
    unittest.main()
