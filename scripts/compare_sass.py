#!/usr/bin/env python3
"""Whether two builds' kernels compiled to the same machine code, kernel by kernel.

    scripts/compare_sass.py base/cured-bench new/cured-bench --rename 'cured::detail::policy=P' ...

Reads each binary's SASS (cuobjdump -sass), names every kernel by its demangled name (cu++filt)
after the --rename rules (regular expression=replacement, applied in order: a kernel whose
template arguments were renamed or moved between namespaces is still the same kernel), and
compares the instructions, addresses left out. Prints one line per kernel that differs or is
in one build only, then the counts. Exit status 0 when every kernel in both is the same.
"""

import argparse
import re
import shutil
import subprocess
import sys


def parse_sass(text):
    """{mangled kernel name: [instruction, ...]} from cuobjdump -sass output."""
    kernels, name = {}, None
    for line in text.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            name = m.group(1)
            kernels[name] = []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m and name is not None:
            kernels[name].append(re.sub(r"\s+", " ", m.group(1)))
    return kernels


def rename(name, rules):
    for pattern, replacement in rules:
        name = re.sub(pattern, replacement, name)
    return name


def compare(base, new, base_names, new_names, rules):
    """(same, differing, only_base, only_new): kernel names after the rules."""
    b = {rename(base_names[k], rules): v for k, v in base.items()}
    w = {rename(new_names[k], rules): v for k, v in new.items()}
    same = sorted(k for k in b if k in w and b[k] == w[k])
    differing = sorted(k for k in b if k in w and b[k] != w[k])
    return same, differing, sorted(set(b) - set(w)), sorted(set(w) - set(b))


def tool(*names):
    for n in names:
        path = shutil.which(n) or shutil.which(n, path="/usr/local/cuda/bin")
        if path:
            return path
    sys.exit(f"compare_sass: none of {', '.join(names)} found")


def demangle(names):
    out = subprocess.run([tool("cu++filt", "c++filt")], input="\n".join(names), capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return dict(zip(names, out))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--rename", action="append", default=[], metavar="REGEX=REPLACEMENT")
    args = ap.parse_args(argv)
    rules = [tuple(r.split("=", 1)) for r in args.rename]
    sass = [parse_sass(subprocess.run([tool("cuobjdump"), "-sass", f], capture_output=True, text=True,
                                      check=True).stdout) for f in (args.base, args.new)]
    base_names, new_names = demangle(list(sass[0])), demangle(list(sass[1]))
    same, differing, only_base, only_new = compare(sass[0], sass[1], base_names, new_names, rules)
    by_name = [{rename(names[k], rules): v for k, v in kernels.items()}
               for kernels, names in ((sass[0], base_names), (sass[1], new_names))]
    for k in differing:
        print(f"differs ({len(by_name[0][k])} -> {len(by_name[1][k])} instructions): {k}")
    for k in only_base:
        print(f"base only: {k}")
    for k in only_new:
        print(f"new only: {k}")
    print(f"{len(same)} kernels the same, {len(differing)} differ, {len(only_base)} in base only, "
          f"{len(only_new)} in new only")
    return 0 if not (differing or only_base or only_new) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
