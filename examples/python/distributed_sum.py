# cured.distributed: a tensor sharded over the GPUs of a torchrun job, one rank per GPU, reduced
# with one call per rank; every rank gets the result for the whole. Needs cured built with NCCL.
#
#   PYTHONPATH=<build>/python torchrun --nproc_per_node=2 examples/python/distributed_sum.py

import os

import torch
import torch.distributed as dist

import cured.distributed as cd

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl")
rank = dist.get_rank()

# docs:begin distributed
# This rank's shard: 1000 * (rank + 1) rows of the whole, uneven across ranks.
shard = torch.randn(1000 * (rank + 1), 64, device="cuda", generator=torch.Generator("cuda").manual_seed(rank))
total = cd.sum(shard)                   # the whole's sum, the ranks' partials combined in rank order
exact = cd.exact_sum(shard)             # the same bits for any number of ranks and any split
where = cd.argmax(shard, dim=0)         # per column, the row of the greatest value in the whole

grad = torch.full((4,), 0.1 * (rank + 1), device="cuda")  # a gradient-like tensor
cd.all_reduce_exact(grad)               # in place: each element's exact sum over the ranks, rounded once
# docs:end distributed

print("rank %d: sum %.6f, exact_sum %.6f, argmax of column 0 %d, gradient %s"
      % (rank, total.item(), exact.item(), where[0].item(), grad.tolist()), flush=True)
cd.destroy()
dist.destroy_process_group()
