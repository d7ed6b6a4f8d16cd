"""cured.distributed on every rank of a torchrun job, against one GPU's result for the whole.

    PYTHONPATH=<build>/python torchrun --nproc_per_node=N python/tests/dist_check.py   # N = 1, 2, 4 ...

Each case's whole tensor is made on every rank from one seed (the same bits everywhere) and each
rank takes its shard of it along the case's dim (None: a piece of the flattened whole, in a shape
of its own): uneven shards (rank r holds (r + 1) * 50 rows or columns), and the same with group
rank 0's shard empty. Every op is checked for dim None, 0 and 1 against torch on the whole (sum
within 1e-5 of the float64 sum's scale, argmin and argmax exactly, ties and NaN included) or
against cured on one GPU (exact_sum: the same bits). all_reduce_exact, and exact_sum along dim
0, against an exact CPU reference (exact_reference.py) on hard data, and bit for bit against
cured.exact_sum on 2^20 normal values. Calls that differ between ranks must raise on every rank;
the caller's current device must stay as it was. Each check's verdict is every rank's: rank 0
prints one line per check, a rank that fails prints why. Exits 1 on any failure, and rank 0 ends
with "dist_check: N ranks: K checks passed".
"""

import math
import os
import random
import sys

import torch
import torch.distributed as dist

import cured
import cured.distributed as cd
from exact_reference import FLOAT32, FLOAT64, exact_sum_reference, float32_bits, float64_bits, to_float32

class Checks:
    """Verdicts agreed by every rank: a check passes when it passed on all of them."""

    def __init__(self, rank, device):
        self.rank, self.device = rank, device
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        verdict = torch.tensor([1 if ok else 0], dtype=torch.int32, device=self.device)
        dist.all_reduce(verdict, op=dist.ReduceOp.MIN)
        if not ok:
            print("FAIL  [rank %d] %s%s" % (self.rank, name, ": " + detail if detail else ""), flush=True)
        if verdict.item():
            self.passed += 1
            if self.rank == 0:
                print("ok    " + name, flush=True)
        else:
            self.failed += 1

    def run(self, name, compute):
        """compute() -> (ok, detail); an exception fails the check on this rank."""
        try:
            ok, detail = compute()
        except Exception as e:  # noqa: BLE001 - any exception is this check's failure
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        self(name, ok, detail)


# ---- the cases: a whole tensor and this rank's shard of it ------------------------------------

def shard_of(whole, dim, extents, rank, shapes=None):
    """Rank `rank`'s shard of whole along dim by extents (dim None: the flat piece in shapes[rank])."""
    start = sum(extents[:rank])
    if dim is None:
        return whole[start:start + extents[rank]].reshape(shapes[rank])
    return whole.narrow(dim, start, extents[rank])


def layout(name, ranks, dim):
    """(extents, shapes) of every rank: uneven; "empty": the same with group rank 0's shard empty."""
    if dim is None:
        shapes = [((r + 1) * 10, 7 + r) for r in range(ranks)]
        if name == "empty":
            shapes[0] = (0, 7)
        return [a * b for a, b in shapes], shapes
    extents = [(r + 1) * 50 for r in range(ranks)]
    if name == "empty":
        extents[0] = 0
    return extents, None


def make_whole(dim, extents, dtype, device, seed, values="normal"):
    """The whole tensor: flat for dim None, else [total, 33] (dim 0) or [17, total] (dim 1)."""
    total = sum(extents)
    shape = (total,) if dim is None else (total, 33) if dim == 0 else (17, total)
    g = torch.Generator().manual_seed(seed)
    if values == "ties":
        whole = torch.randint(0, 3, shape, generator=g).to(torch.float64)
    else:
        whole = torch.randn(shape, generator=g, dtype=torch.float64)
    return whole.to(dtype).to(device)


def extent_of(whole, dim):
    return whole.numel() if dim is None else whole.shape[dim]


# ---- comparisons --------------------------------------------------------------------------------

def same_bits(got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False, "got %s %s, want %s %s" % (got.dtype, tuple(got.shape), want.dtype, tuple(want.shape))
    view = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}.get(got.dtype)
    differ = got.view(view) != want.view(view) if view is not None else got != want
    if got.is_floating_point():  # NaN's bits may differ
        differ &= ~(torch.isnan(got) & torch.isnan(want))
    if bool(differ.any()):
        k = int(differ.reshape(-1).nonzero()[0])
        return False, "element %d: got %r, want %r" % (k, got.reshape(-1)[k].item(), want.reshape(-1)[k].item())
    return True, ""


def close(got, want, rtol, atol):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False, "got %s %s, want %s %s" % (got.dtype, tuple(got.shape), want.dtype, tuple(want.shape))
    g, w = got.double(), want.double()
    atol = atol if torch.is_tensor(atol) else torch.full_like(w, atol)
    bad = ~((g - w).abs() <= atol + rtol * w.abs()) & ~(torch.isnan(g) & torch.isnan(w))
    if bool(bad.any()):
        k = int(bad.reshape(-1).nonzero()[0])
        return False, "element %d: got %r, want %r" % (k, g.reshape(-1)[k].item(), w.reshape(-1)[k].item())
    return True, ""


def torch_dim(dim):
    return {} if dim is None else {"dim": dim}


# ---- the ops on the whole (references) and on the shards ----------------------------------------

def reference(op, whole, dim, param):
    """One GPU's answer for the whole: torch's, or cured's where torch has none (exact_sum; the
    extremes and norms of no elements, where torch raises)."""
    empty = extent_of(whole, dim) == 0
    if op == "exact_sum":
        return cured.exact_sum(whole, **torch_dim(dim))
    if empty and op in ("amin", "amax", "argmin", "argmax", "vector_norm"):
        local = {"amin": cured.amin, "amax": cured.amax, "argmin": cured.argmin, "argmax": cured.argmax}.get(op)
        return local(whole, **torch_dim(dim)) if local else cured.vector_norm(whole, param, **torch_dim(dim))
    if op == "sum":
        return torch.sum(whole.double(), **torch_dim(dim))
    if op in ("amin", "amax", "argmin", "argmax"):
        return getattr(torch, op)(whole, **torch_dim(dim))
    if op == "vector_norm":
        return torch.linalg.vector_norm(whole.double(), param, **torch_dim(dim)).to(whole.dtype)
    var, mean = torch.var_mean(whole.double(), correction=param, **torch_dim(dim))
    return var.to(whole.dtype), mean.to(whole.dtype)


def distributed(op, shard, dim, param):
    if op == "vector_norm":
        return cd.vector_norm(shard, param, dim)
    if op == "var_mean":
        return cd.var_mean(shard, dim, correction=param)
    return getattr(cd, op)(shard, dim)


def compare(op, got, want, whole, dim):
    if op == "exact_sum":
        return same_bits(got, want)
    if op in ("amin", "amax", "argmin", "argmax"):
        return same_bits(got, want)
    if op == "sum":  # within 1e-5 of the scale of the terms: the float64 sum of their magnitudes
        scale = torch.sum(whole.double().abs(), **torch_dim(dim))
        return close(got, want.to(got.dtype), 0.0, 1e-5 * scale + 1e-30)
    if op == "vector_norm":
        return close(got, want, 1e-5, 1e-30)
    ok, detail = close(got[0], want[0], 1e-4, 1e-6)
    if not ok:
        return ok, "var: " + detail
    ok, detail = close(got[1], want[1], 1e-5, 1e-6)
    return ok, ("mean: " + detail) if not ok else ""


OPS = [("sum", None), ("amin", None), ("amax", None), ("argmin", None), ("argmax", None), ("exact_sum", None),
       ("vector_norm", 1), ("vector_norm", 2), ("vector_norm", math.inf), ("var_mean", 1), ("var_mean", 0)]


def check_ops(check, rank, ranks, device):
    seed = 1
    for name in ("uneven", "empty"):
        for dim in (None, 0, 1):
            extents, shapes = layout(name, ranks, dim)
            for dtype in (torch.float32, torch.float64):
                seed += 1
                whole = make_whole(dim, extents, dtype, device, seed)
                shard = shard_of(whole, dim, extents, rank, shapes)
                for op, param in OPS:
                    if dtype == torch.float64 and op != "exact_sum":
                        continue
                    label = "%s%s %s dim=%s %s shards" % (op, "" if param is None else "(%s)" % param,
                                                          str(dtype)[6:], dim, name)
                    check.run(label, lambda: compare(op, distributed(op, shard, dim, param),
                                                     reference(op, whole, dim, param), whole, dim))
    # Ties (the first index wins), NaN (the first NaN wins, amax is NaN), other element types.
    for dim in (None, 0, 1):
        extents, shapes = layout("uneven", ranks, dim)
        whole = make_whole(dim, extents, torch.float32, device, 100, values="ties")
        shard = shard_of(whole, dim, extents, rank, shapes)
        for op in ("argmin", "argmax", "amin", "amax"):
            check.run("%s with ties dim=%s" % (op, dim),
                      lambda: compare(op, distributed(op, shard, dim, None), reference(op, whole, dim, None), whole, dim))
        whole = make_whole(dim, extents, torch.float32, device, 101)
        flat = whole.view(-1) if dim is None else whole.select(1 - dim, 3)  # one row or column of the whole
        total = flat.numel()
        for k in (total // 3, total // 2, total - 1):
            flat[k] = math.nan
        shard = shard_of(whole, dim, extents, rank, shapes)
        nan = torch.isnan(whole)
        first_nan = nan.to(torch.uint8).argmax(**torch_dim(dim))  # the first True: torch's first-index rule
        plain = torch.where(nan, torch.full_like(whole, -math.inf), whole).argmax(**torch_dim(dim))
        want = torch.where(nan.any(**torch_dim(dim)), first_nan, plain)
        check.run("argmax with NaN dim=%s" % dim, lambda: same_bits(cd.argmax(shard, dim), want))
        check.run("amax with NaN dim=%s" % dim, lambda: same_bits(cd.amax(shard, dim), torch.amax(whole, **torch_dim(dim))))
        for dtype in (torch.int32, torch.float16):
            whole = (make_whole(dim, extents, torch.float64, device, 102) * 1000).to(dtype)
            shard = shard_of(whole, dim, extents, rank, shapes)
            for op in ("exact_sum", "argmax", "amin"):
                check.run("%s %s dim=%s" % (op, str(dtype)[6:], dim),
                          lambda: same_bits(getattr(cd, op)(shard, dim), getattr(cured, op)(whole, **torch_dim(dim))))
            if dtype == torch.int32:
                check.run("sum int32 dim=%s" % dim,
                          lambda: same_bits(cd.sum(shard, dim), torch.sum(whole, **torch_dim(dim))))
            else:  # float16 partials are summed in float32 and rounded once
                scale = torch.sum(whole.double().abs(), **torch_dim(dim))
                check.run("sum float16 dim=%s" % dim,
                          lambda: close(cd.sum(shard, dim), torch.sum(whole.double(), **torch_dim(dim)).half(),
                                        1e-3, 1e-5 * scale + 1e-30))


# ---- exact sums on hard data against the exact CPU reference ------------------------------------

TERMS = 4  # the global set of tensors, distributed over the ranks


def hard_columns(fmt, rng, m):
    """m columns of TERMS values of fmt each (Python floats), the hard cases first: cancellation,
    ties, overflow, signed zeros, subnormals, infinities and NaN; then values spread over the
    exponents from 2^-120 (2^-1000 for float64) to 2^100, subnormals, and normal values."""
    exact = to_float32 if fmt is FLOAT32 else float
    top = float(fmt.max_finite)
    least = math.ldexp(1.0, fmt.min_exponent - fmt.precision + 1)  # the least subnormal
    half = math.ldexp(1.0, -fmt.precision)  # half the ulp of 1
    big, small = exact(1e30), exact(1e-30)
    inf, nan = math.inf, math.nan
    columns = [
        [big, -big, small, 0.0], [big, small, -big, -small], [top, top, -top, 0.0], [top, top, 0.0, 0.0],
        [top, half * top, 0.0, 0.0], [1.0, half, 0.0, 0.0], [1.0 + 2 * half, half, 0.0, 0.0],
        [1.0, half, least, 0.0], [1.0, half, -least, 0.0], [-0.0, -0.0, -0.0, -0.0], [-0.0, 0.0, -0.0, -0.0],
        [1.5, -1.5, -0.0, -0.0], [least, least, -least, 2 * least], [-least, -least, -0.0, -0.0],
        [math.ldexp(1.0, fmt.min_exponent), -least, 0.0, 0.0], [inf, 1.0, 2.0, -3.0], [-inf, -top, -top, 0.0],
        [inf, -inf, 0.0, 0.0], [nan, 1.0, 2.0, 3.0], [1.0, 2.0, nan, -inf],
    ]
    low = -120 if fmt is FLOAT32 else -1000
    while len(columns) < m:
        kind = len(columns) % 3
        if kind == 0:
            col = [exact(rng.choice((-1.0, 1.0)) * math.ldexp(0.5 + rng.random(), rng.randint(low, 100)))
                   for _ in range(TERMS)]
        elif kind == 1:
            col = [rng.choice((-1.0, 1.0)) * least * rng.randint(0, 1 << (fmt.precision - 1)) for _ in range(TERMS)]
        else:
            col = [exact(rng.gauss(0.0, 1.0)) for _ in range(TERMS)]
        columns.append(col)
    return columns[:m]


def check_exact(check, rank, ranks, device):
    rng = random.Random(7)
    for fmt, dtype, bits in ((FLOAT32, torch.float32, float32_bits), (FLOAT64, torch.float64, float64_bits)):
        columns = hard_columns(fmt, rng, 400)
        terms = torch.tensor([[c[j] for c in columns] for j in range(TERMS)], dtype=dtype, device=device)
        mine = terms[rank::ranks] if rank < TERMS else terms[:0]  # rank r: terms r, r + ranks, ...

        def against(got, used):
            want = [exact_sum_reference([c[j] for j in used], fmt) for c in columns]
            for k, (g, w) in enumerate(zip(got.tolist(), want)):
                if bits(g) != bits(w):
                    return False, "column %d %r: got %r, want %r" % (k, [columns[k][j] for j in used], g, w)
            return True, ""

        name = str(dtype)[6:]
        check.run("exact_sum %s dim=0 of %d hard terms over the ranks" % (name, TERMS),
                  lambda: against(cd.exact_sum(mine, 0), range(TERMS)))
        # One row a rank in place: ranks beyond the terms add -0, IEEE addition's identity.
        row = terms[rank].clone() if rank < TERMS else torch.full_like(terms[0], -0.0)
        check.run("all_reduce_exact %s of hard terms, one a rank" % name,
                  lambda: against(cd.all_reduce_exact(row), range(min(ranks, TERMS))))
    n = 1 << 20
    stack = torch.stack([torch.randn(n, generator=torch.Generator().manual_seed(1000 + r)) for r in range(ranks)])
    stack = stack.to(device)
    mine = stack[rank].clone()
    check.run("all_reduce_exact float32 of 2^20 normal values against cured.exact_sum",
              lambda: same_bits(cd.all_reduce_exact(mine), cured.exact_sum(stack, dim=0)))
    check.run("exact_sum float32 dim=None of 2^20 normal values a rank",
              lambda: same_bits(cd.exact_sum(stack[rank]), cured.exact_sum(stack)))


# ---- calls that differ between ranks ------------------------------------------------------------

def raises_everywhere(check, name, call, expect=None):
    """call() must raise on every rank (expect: a text the message holds)."""
    try:
        call()
        ok, detail = False, "no exception"
    except Exception as e:  # noqa: BLE001
        ok = expect is None or expect in str(e)
        detail = "" if ok else "%s: %s" % (type(e).__name__, e)
    check(name, ok, detail)


def check_mismatches(check, rank, ranks, device):
    if ranks < 2:
        if rank == 0:
            print("skip  calls that differ between ranks: one rank", flush=True)
        return
    x = torch.ones(100, 5, device=device)
    raises_everywhere(check, "sum dim=None of float32 on rank 0, float64 elsewhere",
                      lambda: cd.sum(x if rank == 0 else x.double()))
    raises_everywhere(check, "sum dim=0 of float32 on rank 0, float64 elsewhere, naming group rank 1",
                      lambda: cd.sum(x if rank == 0 else x.double(), 0), "group rank 1")
    raises_everywhere(check, "sum dim=0 of shards of 5 columns on rank 0, 6 elsewhere",
                      lambda: cd.sum(x if rank == 0 else torch.ones(3, 6, device=device), 0), "group rank 1")
    raises_everywhere(check, "sum along dim 0 on rank 0, dim 1 elsewhere", lambda: cd.sum(x, 0 if rank == 0 else 1))
    raises_everywhere(check, "amax on rank 0, sum elsewhere", lambda: (cd.amax if rank == 0 else cd.sum)(x))
    raises_everywhere(check, "all_reduce_exact of 100 + rank elements",
                      lambda: cd.all_reduce_exact(torch.ones(100 + rank, device=device)))
    raises_everywhere(check, "all_reduce_exact of float16 on rank 1 (refused there), float32 elsewhere",
                      lambda: cd.all_reduce_exact(torch.ones(100, device=device, dtype=torch.float16 if rank == 1
                                                             else torch.float32)))
    raises_everywhere(check, "sum of a CPU tensor on rank 1 (refused there), CUDA elsewhere",
                      lambda: cd.sum(x.cpu() if rank == 1 else x))
    raises_everywhere(check, "vector_norm ord 3 (refused everywhere)", lambda: cd.vector_norm(x, 3))
    check.run("a sum after the failed calls", lambda: same_bits(cd.sum(x), torch.tensor(500.0 * ranks, device=device)))


def check_groups_and_devices(check, rank, ranks, device):
    """A group whose rank 0 is not global rank 0, and the caller's current device kept."""
    members = list(range(1, ranks)) if ranks > 1 else [0]
    group = dist.new_group(members)
    if rank in members:
        x = torch.full((rank + 1, 3), float(rank), device=device)
        want = float(sum((r + 1) * 3 * r for r in members))
        ok, detail = same_bits(cd.sum(x, None, group), torch.tensor(want, device=device))
        comm = cd.communicator(group)
        if ok and (comm.ranks, comm.rank, comm.device) != (len(members), members.index(rank), device.index):
            ok, detail = False, repr(comm)
        cd.destroy(group)
    else:
        ok, detail = True, ""
    check("sum over the group of global ranks %s" % members, ok, detail)
    before = torch.cuda.current_device()
    x = torch.arange(10.0, device=device)
    for call in (lambda: cd.sum(x), lambda: cd.argmax(x, 0), lambda: cd.var_mean(x, 0),
                 lambda: cd.all_reduce_exact(x.clone())):
        call()
    check("the current device is cuda:%d after the calls" % before, torch.cuda.current_device() == before,
          "cuda:%d" % torch.cuda.current_device())
    if torch.cuda.device_count() > 1:
        other = (device.index + 1) % torch.cuda.device_count()
        with torch.cuda.device(other):
            got = cd.sum(x)
            torch.cuda.synchronize(device)
            kept = torch.cuda.current_device()
        check("sum of a tensor on cuda:%d with cuda:%d current keeps cuda:%d current" % (device.index, other, other),
              kept == other and got.item() == 45.0 * ranks, "current cuda:%d, sum %r" % (kept, got.item()))
        raises_everywhere(check, "the communicator asked for on cuda:%d, made on cuda:%d" % (other, device.index),
                          lambda: cd.communicator(device=other), "destroy(group) first")
        raises_everywhere(check, "a sum of a tensor on cuda:%d, the communicator's on cuda:%d" % (other, device.index),
                          lambda: cd.sum(x.to(other)), "destroy(group) first")
        check.run("a sum after them", lambda: same_bits(cd.sum(x), torch.tensor(45.0 * ranks, device=device)))


def main():
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    check = Checks(rank, device)
    for part in (check_ops, check_exact, check_mismatches, check_groups_and_devices):
        part(check, rank, ranks, device)
    failed = check.failed
    cd.destroy()
    dist.destroy_process_group()
    if rank == 0:
        print("dist_check: %d ranks: %d checks passed%s" % (ranks, check.passed,
                                                            ", %d failed" % failed if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
