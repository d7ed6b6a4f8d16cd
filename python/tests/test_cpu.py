"""The package without a GPU: dims, shapes, the tables and type rules of the C library as
Python reads them, the reading of array descriptions, and the errors the C library returns
before it touches CUDA."""

import ctypes
import dis
import inspect
import itertools
import os
import unittest

import cured
from cured import _arrays, _lib


class Dims(unittest.TestCase):
    def test_none_and_empty_mean_every_axis(self):
        self.assertEqual(cured._normalize_dims(None, 3), (0, 1, 2))
        self.assertEqual(cured._normalize_dims((), 2), (0, 1))
        self.assertEqual(cured._normalize_dims([], 0), ())

    def test_negative_dims_count_from_the_end_and_sort(self):
        self.assertEqual(cured._normalize_dims(-1, 4), (3,))
        self.assertEqual(cured._normalize_dims((2, -4), 4), (0, 2))
        self.assertEqual(cured._normalize_dims([1], 2), (1,))

    def test_a_zero_dim_array_takes_dim_0_and_minus_1(self):
        self.assertEqual(cured._normalize_dims(0, 0), ())
        self.assertEqual(cured._normalize_dims(-1, 0), ())

    def test_bad_dims(self):
        with self.assertRaisesRegex(ValueError, "dim 2 out of range for an array of 2 axes"):
            cured._normalize_dims(2, 2)
        with self.assertRaisesRegex(ValueError, "dim -3 out of range"):
            cured._normalize_dims((0, -3), 2)
        with self.assertRaisesRegex(ValueError, "appears more than once"):
            cured._normalize_dims((1, -1), 2)
        with self.assertRaises(TypeError):
            cured._normalize_dims(1.0, 2)
        with self.assertRaises(TypeError):
            cured._normalize_dims(True, 2)
        with self.assertRaises(TypeError):
            cured._normalize_dims(("a",), 2)

    def test_numpy_axis(self):
        """axis= as NumPy's: an empty tuple reduces no axis (torch's dim=() reduces every one)."""
        self.assertEqual(cured._normalize_dims(cured._axis(None, ()), 3), ())
        self.assertEqual(cured._normalize_dims(cured._axis(None, 1), 3), (1,))
        self.assertEqual(cured._normalize_dims(cured._axis(None, (-1, 0)), 3), (0, 2))
        self.assertEqual(cured._normalize_dims(cured._axis(None, [2]), 3), (2,))
        with self.assertRaisesRegex(TypeError, "not both"):
            cured._axis(0, 1)
        with self.assertRaisesRegex(ValueError, "dim 3 out of range"):
            cured._normalize_dims(cured._axis(None, 3), 3)
        self.assertIn("axis", inspect.signature(cured.sum).parameters)
        self.assertIn("out", inspect.signature(cured.logsumexp).parameters)

    def test_output_shapes(self):
        self.assertEqual(cured._out_shape((4, 5, 6), (1,), False), (4, 6))
        self.assertEqual(cured._out_shape((4, 5, 6), (0, 2), True), (1, 5, 1))
        self.assertEqual(cured._out_shape((4, 5), (0, 1), False), ())


class TypeRules(unittest.TestCase):
    def test_sums_follow_torch(self):
        for t in (_lib.BOOL, _lib.INT8, _lib.UINT8, _lib.INT16, _lib.INT32, _lib.INT64):
            self.assertEqual(_lib.result_dtype(_lib.SUM, t), _lib.INT64)
        for t in (_lib.FLOAT16, _lib.BFLOAT16, _lib.FLOAT32, _lib.FLOAT64):
            self.assertEqual(_lib.result_dtype(_lib.SUM, t), t)
        self.assertEqual(_lib.result_dtype(_lib.SUM, _lib.BFLOAT16, _lib.FLOAT32), _lib.FLOAT32)
        with self.assertRaisesRegex(TypeError, r"no sum of float32 as float16 \(dtype may be float32, float64\)"):
            _lib.result_dtype(_lib.SUM, _lib.FLOAT32, _lib.FLOAT16)
        # a dtype naming the default result is the default; the exact sum of integers is their sum
        self.assertEqual(cured._resolve_code(_lib.SUM, _lib.INT32, _lib.INT64), (_lib.SUM, _lib.INT64))
        self.assertEqual(cured._resolve_code(_lib.EXACT_SUM, _lib.INT8, -1), (_lib.SUM, _lib.INT64))
        self.assertEqual(cured._resolve_code(_lib.MAX, _lib.FLOAT16, -1), (_lib.MAX, _lib.FLOAT16))

    def test_the_other_ops(self):
        self.assertEqual(_lib.result_dtype(_lib.MAX, _lib.BOOL), _lib.BOOL)
        self.assertEqual(_lib.result_dtype(_lib.ARGMIN, _lib.FLOAT16), _lib.INT64)
        self.assertEqual(_lib.result_dtype(_lib.EXACT_SUM, _lib.FLOAT16), _lib.FLOAT32)
        self.assertEqual(_lib.result_dtype(_lib.EXACT_SUM, _lib.FLOAT64), _lib.FLOAT64)
        with self.assertRaisesRegex(cured.CuredTypeError, "exact_sum takes float16, bfloat16, float32, float64 "
                                                          "elements, not int32"):
            _lib.result_dtype(_lib.EXACT_SUM, _lib.INT32)

    def test_segments_have_their_own_rules(self):
        """The segmented reductions take the types whose `segments` column is 1, with every sum
        widening: Python's check is theirs, not the axes' (float16 into float32 once passed
        Python's check per segment and failed in C)."""
        for widening in ((_lib.FLOAT16, _lib.FLOAT32), (_lib.BFLOAT16, _lib.FLOAT32), (_lib.FLOAT32, _lib.FLOAT64)):
            for segments in (False, True):
                self.assertEqual(_lib.result_dtype(_lib.SUM, *widening, segments=segments), widening[1])
        self.assertEqual(_lib.result_dtype(_lib.SUM, _lib.INT32, segments=True), _lib.INT64)
        with self.assertRaisesRegex(TypeError, "segment sum takes int32, int64, float16, bfloat16, float32, float64 "
                                               "elements, not int8"):
            _lib.result_dtype(_lib.SUM, _lib.INT8, segments=True)
        with self.assertRaisesRegex(TypeError, "segment aminmax takes .* not uint8"):
            _lib.statistic_dtype(_lib.AMINMAX, _lib.UINT8, segments=True)
        self.assertEqual(_lib.statistic_dtype(_lib.ANY, _lib.INT8, segments=True), _lib.BOOL)
        self.assertEqual(_lib.statistic_dtype(_lib.COUNT_NONZERO, _lib.BOOL, segments=True), _lib.INT64)


class StatisticRules(unittest.TestCase):
    def test_result_types(self):
        for t in (_lib.FLOAT16, _lib.BFLOAT16, _lib.FLOAT32):
            for s in (_lib.MEAN, _lib.VAR, _lib.STD_MEAN, _lib.VECTOR_NORM, _lib.LOGSUMEXP):
                self.assertEqual(_lib.statistic_dtype(s, t), _lib.FLOAT32)
        self.assertEqual(_lib.statistic_dtype(_lib.VAR_MEAN, _lib.FLOAT64), _lib.FLOAT64)
        for t in range(len(_lib.DTYPE_NAMES)):
            self.assertEqual(_lib.statistic_dtype(_lib.AMINMAX, t), t)
            self.assertEqual(_lib.statistic_dtype(_lib.COUNT_NONZERO, t), _lib.INT64)
            self.assertEqual(_lib.statistic_dtype(_lib.ANY, t), _lib.BOOL)
            self.assertEqual(_lib.statistic_dtype(_lib.ALL, t), _lib.BOOL)
        with self.assertRaisesRegex(TypeError, "logsumexp takes float16, bfloat16, float32, float64 elements, "
                                               "not int32"):
            _lib.statistic_dtype(_lib.LOGSUMEXP, _lib.INT32)

    def test_arguments(self):
        self.assertEqual(cured._correction(None), 1.0)
        self.assertEqual(cured._correction(0), 0.0)
        with self.assertRaises(TypeError):
            cured._correction("1")
        with self.assertRaises(TypeError):
            cured._correction(True)
        self.assertEqual(cured._order(float("inf")), float("inf"))
        with self.assertRaises(TypeError):
            cured._order("fro")

    def test_checks_before_cuda(self):
        def call(stat, param=0.0, out_dtype=_lib.FLOAT32, second=True, data=64):
            x = _lib.pack_array(data, _lib.FLOAT32, (16,), (1,))
            out = _lib.pack_array(4096, out_dtype, (), ())
            _lib.statistic_reduce(stat, x, (0,), param, out, out if second else None, 0)
        with self.assertRaisesRegex(ValueError, "var_mean needs a second output"):
            call(_lib.VAR_MEAN, second=False)
        with self.assertRaisesRegex(ValueError, "mean has one output"):
            call(_lib.MEAN)
        with self.assertRaisesRegex(ValueError, "the output is int64, not bool"):
            call(_lib.ANY, out_dtype=_lib.INT64, second=False)
        with self.assertRaisesRegex(ValueError, "not a multiple of its element size"):
            call(_lib.LOGSUMEXP, second=False, data=66)


class Tables(unittest.TestCase):
    """Python's names and maps against the library's rows, queried here afresh."""

    def test_abi_version(self):
        self.assertEqual(_lib.lib.cured_abi_version(), 3)

    def rows(self, query, info):
        rows = []
        while query(len(rows), ctypes.byref(info)) == _lib.SUCCESS:
            rows.append((info.name.decode(),) + tuple(getattr(info, f) for f, _ in info._fields_[1:]))
            self.assertLess(len(rows), 1000, "%s: no end" % query.__name__)
        self.assertEqual(query(len(rows), ctypes.byref(info)), _lib.ERROR_INVALID, "the first code past the table")
        self.assertEqual(query(-1, ctypes.byref(info)), _lib.ERROR_INVALID, "code -1")
        return rows

    def test_element_types(self):
        rows = self.rows(_lib.lib.cured_dtype_query, _lib.DtypeInfo())
        self.assertEqual(len(rows), len(_lib.DTYPES))
        for code, (name, size, kind, dl_code, dl_bits, typestr, segments) in enumerate(rows):
            typestr = (typestr or b"").decode()
            self.assertEqual(_lib.DTYPES[code], (code, name, size, kind, dl_code, dl_bits, typestr, bool(segments)))
            self.assertEqual(getattr(_lib, name.upper()), code, name)
            self.assertEqual((_lib.DTYPE_NAMES[code], _lib.DTYPE_BYTES[code]), (name, size))
            self.assertEqual(_arrays._NAMES[name], code)
            self.assertEqual(_arrays._DL_CODES[(dl_code, dl_bits)], code, name)
            self.assertEqual(code in _lib.FLOATING, kind == _lib.KIND_FLOATING, name)
            if typestr:
                self.assertEqual(_arrays._TYPESTR[typestr], code, name)
            else:
                self.assertNotIn(code, _arrays._TYPESTR.values(), "%s has no typestr" % name)
        self.assertEqual(len(_arrays._TYPESTR), sum(1 for r in rows if r[5]))
        self.assertEqual(len(_arrays._DL_CODES), len(rows), "one DLPack (code, bits) per row")
        # The header's rows that the rest of the package names.
        for name in ("BOOL", "INT32", "INT64", "FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64"):
            self.assertIn(getattr(_lib, name), range(len(rows)))
        self.assertEqual(_lib.DTYPES[_lib.BFLOAT16].typestr, "", "NumPy has no bfloat16")

    def test_ops_and_statistics(self):
        for query, table, names in ((_lib.lib.cured_op_query, _lib.OPS, _lib.OP_NAMES),
                                    (_lib.lib.cured_statistic_query, _lib.STATISTICS, _lib.STATISTIC_NAMES)):
            rows = self.rows(query, _lib.ReductionInfo())
            self.assertEqual([tuple(r[1:]) for r in table], rows)
            self.assertEqual(list(names), [r[0] for r in rows])
            for code, row in enumerate(rows):
                self.assertEqual(getattr(_lib, row[0].upper()), code, row[0])
        self.assertEqual(_lib.TWO_PART, {r.code for r in _lib.STATISTICS if r.parts == 2})
        self.assertEqual(_lib.TWO_PART, {_lib.VAR_MEAN, _lib.STD_MEAN, _lib.AMINMAX})
        self.assertEqual(_lib.STATISTIC_NAMES[_lib.VECTOR_NORM], "vector_norm")
        self.assertEqual(_lib.OP_NAMES[_lib.MIN], "min")

    def test_type_rules(self):
        """Each map holds exactly what its C function allows; the segment family allows nothing
        the axes do not, with the same output."""
        out = ctypes.c_int32()
        n, ops, stats = len(_lib.DTYPES), len(_lib.OPS), len(_lib.STATISTICS)
        for rule, table in ((_lib.lib.cured_result_dtype, _lib.RESULT_DTYPES),
                            (_lib.lib.cured_segment_result_dtype, _lib.SEGMENT_RESULT_DTYPES)):
            seen = {}
            for key in itertools.product(range(ops), range(n), range(-1, n)):
                if rule(*key, ctypes.byref(out)) == _lib.SUCCESS:
                    seen[key] = out.value
            self.assertEqual(table, seen, rule.__name__)
        for rule, table in ((_lib.lib.cured_statistic_dtype, _lib.STATISTIC_DTYPES),
                            (_lib.lib.cured_segment_statistic_dtype, _lib.SEGMENT_STATISTIC_DTYPES)):
            seen = {}
            for key in itertools.product(range(stats), range(n)):
                if rule(*key, ctypes.byref(out)) == _lib.SUCCESS:
                    seen[key] = out.value
            self.assertEqual(table, seen, rule.__name__)
        for key, code in _lib.SEGMENT_RESULT_DTYPES.items():
            self.assertEqual(_lib.RESULT_DTYPES.get(key), code, key)
            self.assertTrue(_lib.DTYPES[key[1]].segments, key)
        for key, code in _lib.SEGMENT_STATISTIC_DTYPES.items():
            self.assertEqual(_lib.STATISTIC_DTYPES.get(key), code, key)
        self.assertEqual(_lib.lib.cured_segment_result_dtype(_lib.SUM, _lib.FLOAT16, _lib.FLOAT32, ctypes.byref(out)),
                         _lib.SUCCESS, _lib.last_error())
        self.assertEqual(out.value, _lib.FLOAT32)
        self.assertEqual(_lib.SEGMENT_RESULT_DTYPES[(_lib.SUM, _lib.FLOAT16, _lib.FLOAT32)], _lib.FLOAT32)


class PublicNames(unittest.TestCase):
    def test_all(self):
        """__all__: public names only, each defined and documented, and every other public name
        of the package a submodule; every op and statistic has its function along axes and per
        segment."""
        for name in cured.__all__:
            self.assertFalse(name.startswith("_"), name)
            self.assertTrue(inspect.getdoc(getattr(cured, name)), "%s has no docstring" % name)
        others = {name for name, value in vars(cured).items()
                  if not name.startswith("_") and name not in cured.__all__
                  and not (inspect.ismodule(value) and value.__name__.startswith("cured."))}
        self.assertEqual(others, set(), "public names outside __all__")
        for row in _lib.OPS:
            name = {"min": "amin", "max": "amax"}.get(row.name, row.name)
            self.assertIn(name, cured.__all__)
            self.assertIn("segment_" + name, cured.__all__)
        for row in _lib.STATISTICS:
            self.assertIn(row.name, cured.__all__)
            self.assertIn("segment_" + row.name, cured.__all__)

    def test_no_function_reads_a_shadowed_builtin(self):
        """The package defines sum, any, all, max and min: inside it those names are its own
        functions, so no function of the package may read them as globals meaning Python's."""
        shadowed = {n for n in ("sum", "any", "all", "max", "min") if hasattr(cured, n)}
        for module in (cured, cured._torch_ops) if hasattr(cured, "_torch_ops") else (cured,):
            for name, f in vars(module).items():
                code = getattr(f, "__code__", None)
                if code is None or getattr(f, "__module__", None) != module.__name__:
                    continue
                stack = [code]
                while stack:
                    c = stack.pop()
                    read = {i.argval for i in dis.get_instructions(c) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
                    self.assertFalse(read & shadowed, "%s.%s reads %s" % (module.__name__, name, read & shadowed))
                    stack.extend(k for k in c.co_consts if inspect.iscode(k))

    def test_type_hints(self):
        """Every parameter and the result of every public function is annotated, and py.typed
        says so to type checkers."""
        for name in cured.__all__:
            f = getattr(cured, name)
            if not inspect.isfunction(f):
                continue
            signature = inspect.signature(f)
            self.assertIsNot(signature.return_annotation, inspect.Signature.empty, "%s: no return annotation" % name)
            for p in signature.parameters.values():
                self.assertIsNot(p.annotation, inspect.Parameter.empty, "%s(%s): no annotation" % (name, p.name))
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(cured.__file__), "py.typed")))


class Versions(unittest.TestCase):
    def test_one_version(self):
        """The package's version is the C library's (project(cured VERSION ...)) with the CUDA
        major version of its build, and pip's where pip installed it."""
        from cured import _version
        self.assertRegex(_lib.version(), r"^[0-9]+\.[0-9]+\.[0-9]+$")
        self.assertEqual(_version.version, _lib.version())
        self.assertEqual(cured.__version__, "%s+cu%d" % (_lib.version(), _version.cuda_major))
        # The architectures of the build, from 8.0 on (CMake's list, or native).
        self.assertTrue(cured.__cuda_architectures__)
        for arch in cured.__cuda_architectures__:
            self.assertRegex(arch, r"^(native|[0-9]+[af]?(-real|-virtual)?)$")
            if arch != "native":
                self.assertGreaterEqual(int(arch.split("-")[0]), 80, arch)
        try:
            from importlib import metadata
            dist = metadata.distribution("cured")
        except Exception:  # noqa: BLE001 - not installed as a distribution (the build tree)
            return
        files = [os.path.realpath(dist.locate_file(f)) for f in dist.files or ()]
        if os.path.realpath(cured.__file__) in files:
            self.assertEqual(dist.version, cured.__version__)

    def test_status_strings(self):
        self.assertEqual(_lib.status_string(_lib.SUCCESS), "CURED_SUCCESS: success")
        self.assertEqual(_lib.status_string(_lib.ERROR_INVALID), "CURED_ERROR_INVALID: invalid argument")
        self.assertTrue(_lib.status_string(_lib.ERROR_CUDA).startswith("CURED_ERROR_CUDA"))
        self.assertEqual(_lib.status_string(99), "unknown status")


class FakeCai:
    """An object with a __cuda_array_interface__ and nothing else."""

    def __init__(self, **cai):
        self.__cuda_array_interface__ = dict({"version": 3, "data": (0, False), "strides": None}, **cai)


class Descriptions(unittest.TestCase):
    def test_contiguous_strides(self):
        self.assertEqual(_arrays.contiguous_strides((4, 5, 6)), (30, 6, 1))
        self.assertEqual(_arrays.contiguous_strides((4, 0, 6)), (6, 6, 1))
        self.assertEqual(_arrays.contiguous_strides(()), ())

    def test_byte_strides_become_element_strides(self):
        self.assertEqual(_arrays._byte_strides((24, 4), 4, (2, 6)), (6, 1))
        self.assertEqual(_arrays._byte_strides((-4,), 4, (3,)), None)
        with self.assertRaisesRegex(ValueError, "not a whole number of 4-byte elements"):
            _arrays._byte_strides((6,), 4, (3,))

    def test_what_is_not_a_cuda_array(self):
        with self.assertRaisesRegex(TypeError, "expected a CUDA array"):
            cured.sum([1.0, 2.0])

        class HostArray:
            __array_interface__ = {}

        with self.assertRaisesRegex(TypeError, "host memory"):
            cured.amax(HostArray())

    def test_cuda_array_interface_types_and_strides(self):
        with self.assertRaisesRegex(TypeError, "unsupported element type <c8"):
            cured.sum(FakeCai(shape=(4,), typestr="<c8"))
        with self.assertRaisesRegex(ValueError, "not a whole number"):
            cured.sum(FakeCai(shape=(4, 4), typestr="<f4", strides=(16, 3)))
        with self.assertRaisesRegex(ValueError, "negative strides"):
            cured.sum(FakeCai(shape=(4,), typestr="<f4", strides=(-4,)))

    def test_max_and_min_take_dim_or_axis(self):
        for f in (cured.max, cured.min):
            with self.assertRaisesRegex(TypeError, "not both"):
                f(object(), 0, axis=1)

    def test_max_into_a_pair_takes_torch_tensors(self):
        with self.assertRaisesRegex(TypeError, "out=\\(values, indices\\) for torch tensors only"):
            cured.max(FakeCai(shape=(4, 4), typestr="<f4"), 1, out=(None, None))


class SegmentReduceArguments(unittest.TestCase):
    """segment_reduce: torch's signature, and the checks made before any array is read."""

    def test_torchs_signature(self):
        parameters = inspect.signature(cured.segment_reduce).parameters
        self.assertEqual(list(parameters), ["data", "reduce", "lengths", "indices", "offsets", "axis", "unsafe",
                                            "initial"])
        keyword_only = {name for name, p in parameters.items() if p.kind == p.KEYWORD_ONLY}
        self.assertEqual(keyword_only, {"lengths", "indices", "offsets", "axis", "unsafe", "initial"})
        self.assertEqual([parameters[name].default for name in ("lengths", "indices", "offsets", "axis", "unsafe",
                                                                 "initial")], [None, None, None, 0, False, None])

    def test_reduces(self):
        with self.assertRaisesRegex(ValueError, "no reduce 'prod'; it takes sum, mean, max, min, amax, amin, "
                                                "exact_sum, argmax"):
            cured.segment_reduce(None, "prod", lengths=None)
        with self.assertRaisesRegex(ValueError, "no reduce 'SUM'"):
            cured.segment_reduce(None, "SUM")
        with self.assertRaisesRegex(ValueError, "no reduce 1"):
            cured.segment_reduce(None, 1)
        for name, function in cured._SEGMENT_REDUCES.items():
            self.assertIn(function.__name__, cured.__all__, name)
            self.assertTrue(function.__name__.startswith("segment_"), name)

    def test_lengths_or_offsets(self):
        with self.assertRaisesRegex(TypeError, "indices is not supported"):
            cured.segment_reduce(None, "sum", indices=object())
        with self.assertRaisesRegex(TypeError, "exactly one of lengths and offsets"):
            cured.segment_reduce(None, "sum")
        with self.assertRaisesRegex(TypeError, "exactly one of lengths and offsets"):
            cured.segment_reduce(None, "sum", lengths=object(), offsets=object())

    def test_initial(self):
        with self.assertRaisesRegex(ValueError, "initial goes with the reduces sum, mean, max, min, amax, amin, "
                                                "not argmax"):
            cured.segment_reduce(None, "argmax", lengths=object(), initial=0)
        for bad in ("1", True, [1.0]):
            with self.assertRaisesRegex(TypeError, "initial must be a number"):
                cured.segment_reduce(None, "sum", lengths=object(), initial=bad)

    def test_arrays_of_torch_or_cupy(self):
        a = FakeCai(shape=(4,), typestr="<f4")
        with self.assertRaisesRegex(TypeError, "takes data as a torch tensor or a CuPy array, not FakeCai"):
            cured.segment_reduce(a, "sum", offsets=FakeCai(shape=(2,), typestr="<i8"))

    def test_axis(self):
        self.assertEqual(cured._segment_axis(-1, 3), 2)
        self.assertEqual(cured._segment_axis(1, 3), 1)
        self.assertEqual(cured._segment_axis(0, 1), 0)
        with self.assertRaisesRegex(ValueError, "axis 3 out of range for data of 3 axes"):
            cured._segment_axis(3, 3)
        with self.assertRaisesRegex(ValueError, "axis -4 out of range"):
            cured._segment_axis(-4, 3)
        with self.assertRaisesRegex(ValueError, "axis 0 out of range for data of 0 axes"):
            cured._segment_axis(0, 0)
        for bad in (True, 1.0, (0,)):
            with self.assertRaises(TypeError):
                cured._segment_axis(bad, 2)

class CLibraryChecks(unittest.TestCase):
    """Checks the C library makes before any CUDA call, so they run without a GPU."""

    def call(self, op, data=64, dtype=_lib.FLOAT32, shape=(16,), axes=(0,), out_dtype=None, out_shape=()):
        out_dtype = dtype if out_dtype is None else out_dtype
        _lib.reduce(op, _lib.pack_array(data, dtype, shape, _arrays.contiguous_strides(shape)), axes,
                    _lib.pack_array(4096, out_dtype, out_shape, _arrays.contiguous_strides(out_shape)), 0)

    def test_wrong_output_type(self):
        with self.assertRaisesRegex(ValueError, "the output is int64, not float32"):
            self.call(_lib.MIN, out_dtype=_lib.INT64)
        with self.assertRaisesRegex(ValueError, "the output is float32, not int64"):
            self.call(_lib.ARGMAX)

    def test_misaligned_data(self):
        with self.assertRaisesRegex(ValueError, "not a multiple of its element size"):
            self.call(_lib.SUM, data=66)

    def test_unknown_types_and_ranks(self):
        with self.assertRaises(TypeError):
            self.call(_lib.SUM, dtype=42, out_dtype=_lib.FLOAT32)
        with self.assertRaisesRegex(ValueError, "at most 8 axes"):
            self.call(_lib.SUM, shape=(1,) * 9)

    def test_errors_are_cured_errors(self):
        with self.assertRaises(cured.CuredError):
            self.call(_lib.MIN, out_dtype=_lib.INT64)


if __name__ == "__main__":
    unittest.main()
